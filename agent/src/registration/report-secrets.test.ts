import { describe, expect, it } from 'vitest';
import { parseReportSecrets } from './report-secrets.ts';

describe('parseReportSecrets', () => {
  it.each<[string[], { credentials: boolean; impersonator: boolean }]>([
    [['KubeCredentials', 'KubeImpersonator'], { credentials: true, impersonator: true }],
    [['KubeImpersonator', 'KubeCredentials'], { credentials: true, impersonator: true }],
    [['KubeCredentials'], { credentials: true, impersonator: false }],
    [['KubeImpersonator'], { credentials: false, impersonator: true }],
    [['None'], { credentials: false, impersonator: false }],
    [[], { credentials: false, impersonator: false }],
  ])('%j reports %j', (values, expected) => {
    expect(parseReportSecrets(values)).toEqual(expected);
  });

  it.each<[string[], RegExp]>([
    [
      ['KubeCredentials', 'kubeimpersonator'],
      /unknown value\(s\) "kubeimpersonator" \(valid: KubeCredentials, KubeImpersonator, None\)/,
    ],
    [['Token', 'All'], /unknown value\(s\) "Token", "All"/],
    [['None', 'KubeCredentials'], /None cannot be combined with other values/],
  ])('refuses %j', (values, why) => {
    expect(() => parseReportSecrets(values)).toThrow(why);
  });
});
