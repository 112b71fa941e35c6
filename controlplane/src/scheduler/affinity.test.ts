import type { ClusterAffinity } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { matchesAffinity } from './affinity.ts';
import { cluster } from './test-builders.ts';

const m1 = cluster('m1', {
  labels: { env: 'prod', tier: 'gold' },
  provider: 'aws',
  region: 'us-east',
  zones: ['us-east-1a', 'us-east-1b'],
});
const bare = cluster('bare');

describe('matchesAffinity', () => {
  it.each<[string, ClusterAffinity, boolean, boolean]>([
    // [name, affinity, matches m1, matches bare]
    ['empty affinity matches all', {}, true, true],
    ['clusterNames lists it', { clusterNames: ['m1', 'm2'] }, true, false],
    ['empty clusterNames matches all', { clusterNames: [] }, true, true],
    ['exclude wins over clusterNames', { clusterNames: ['m1'], exclude: ['m1'] }, false, false],
    ['exclude alone', { exclude: ['bare'] }, true, false],
    ['labelSelector', { labelSelector: { matchLabels: { env: 'prod' } } }, true, false],
    ['empty labelSelector matches all', { labelSelector: {} }, true, true],
    [
      'provider In',
      { fieldSelector: { matchExpressions: [{ key: 'provider', operator: 'In', values: ['aws'] }] } },
      true,
      false,
    ],
    [
      'provider NotIn matches clusters lacking a provider',
      { fieldSelector: { matchExpressions: [{ key: 'provider', operator: 'NotIn', values: ['aws'] }] } },
      false,
      true,
    ],
    [
      'region In',
      { fieldSelector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['us-east', 'eu'] }] } },
      true,
      false,
    ],
    [
      'region NotIn',
      { fieldSelector: { matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['eu'] }] } },
      true,
      true,
    ],
    [
      'zone In (any zone)',
      { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['us-east-1b'] }] } },
      true,
      false,
    ],
    [
      'zone In other zone',
      { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['eu-1a'] }] } },
      false,
      false,
    ],
    [
      'zone NotIn (no zone listed)',
      { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['us-east-1a'] }] } },
      false,
      true,
    ],
    [
      'zone Exists',
      { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'Exists' as never }] } },
      true,
      false,
    ],
    [
      'zone DoesNotExist',
      { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' as never }] } },
      false,
      true,
    ],
    [
      'zone with an unknown operator',
      { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'Gt' as never }] } },
      false,
      false,
    ],
    [
      'every part must match',
      {
        clusterNames: ['m1', 'bare'],
        labelSelector: { matchLabels: { tier: 'gold' } },
        fieldSelector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['us-east'] }] },
      },
      true,
      false,
    ],
    [
      'one failing part fails',
      {
        clusterNames: ['m1'],
        fieldSelector: { matchExpressions: [{ key: 'provider', operator: 'In', values: ['gcp'] }] },
      },
      false,
      false,
    ],
  ])('%s', (_name, affinity, forM1, forBare) => {
    expect(matchesAffinity(m1, affinity)).toBe(forM1);
    expect(matchesAffinity(bare, affinity)).toBe(forBare);
  });
});
