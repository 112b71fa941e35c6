import { describe, expect, it } from 'vitest';
import { credentialNames, parseReportSecrets, secretRefs } from './report-secrets.ts';

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

describe('credential names and references', () => {
  const names = credentialNames('member1', 'karmada-cluster');

  it("follow karmada-agent's names", () => {
    expect(names).toEqual({
      namespace: 'karmada-cluster',
      credentialsServiceAccount: 'karmada-member1',
      impersonatorServiceAccount: 'karmada-impersonator',
      clusterRole: 'karmada-controller-manager:karmada-member1',
      credentialsSecret: 'member1',
      impersonatorSecret: 'member1-impersonator',
    });
  });

  it('references only the reported secrets', () => {
    expect(secretRefs({ credentials: true, impersonator: true }, names)).toEqual({
      secretRef: { namespace: 'karmada-cluster', name: 'member1' },
      impersonatorSecretRef: { namespace: 'karmada-cluster', name: 'member1-impersonator' },
    });
    expect(secretRefs({ credentials: false, impersonator: true }, names)).toEqual({
      impersonatorSecretRef: { namespace: 'karmada-cluster', name: 'member1-impersonator' },
    });
    expect(secretRefs({ credentials: false, impersonator: false }, names)).toEqual({});
  });
});
