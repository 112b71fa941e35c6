import { describe, expect, it } from 'vitest';
import type { Cluster, ClusterAffinity, LabelSelector } from '@kf/api';
import { isClusterTargeted, isLabelSelectorMatched } from './target-clusters.ts';

const cluster: Cluster = {
  metadata: { name: 'm1', labels: { env: 'prod', tier: 'gold' } },
  spec: { syncMode: 'Pull', provider: 'aws', region: 'eu-west-1', zones: ['eu-west-1a', 'eu-west-1b'] },
};
const bare: Cluster = { metadata: { name: 'm2' }, spec: { syncMode: 'Push' } };
const legacyZone: Cluster = { metadata: { name: 'm3' }, spec: { syncMode: 'Push', zone: 'z1' } };

describe('isClusterTargeted', () => {
  it.each<[string, Cluster, ClusterAffinity | undefined, boolean]>([
    ['unset targets every cluster', bare, undefined, true],
    ['empty affinity targets every cluster', bare, {}, true],
    ['listed name', cluster, { clusterNames: ['m0', 'm1'] }, true],
    ['unlisted name', cluster, { clusterNames: ['m0'] }, false],
    ['empty name list does not restrict', cluster, { clusterNames: [] }, true],
    ['excluded wins over listed', cluster, { clusterNames: ['m1'], exclude: ['m1'] }, false],
    ['matching labels', cluster, { labelSelector: { matchLabels: { env: 'prod' } } }, true],
    ['other labels', cluster, { labelSelector: { matchLabels: { env: 'dev' } } }, false],
    ['empty label selector matches', bare, { labelSelector: {} }, true],
    [
      'provider In',
      cluster,
      { fieldSelector: { matchExpressions: [{ key: 'provider', operator: 'In', values: ['aws'] }] } },
      true,
    ],
    [
      'provider In on a cluster without provider',
      bare,
      { fieldSelector: { matchExpressions: [{ key: 'provider', operator: 'In', values: ['aws'] }] } },
      false,
    ],
    [
      'region NotIn on a cluster without region',
      bare,
      { fieldSelector: { matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['x'] }] } },
      true,
    ],
    [
      'region NotIn listing its region',
      cluster,
      { fieldSelector: { matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['eu-west-1'] }] } },
      false,
    ],
    [
      'zone In: one of its zones',
      cluster,
      { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['eu-west-1b'] }] } },
      true,
    ],
    [
      'zone In without zones',
      bare,
      { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
      false,
    ],
    [
      'zone NotIn: none of its zones',
      cluster,
      { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['x'] }] } },
      true,
    ],
    [
      'zone NotIn: one of its zones',
      cluster,
      { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['eu-west-1a'] }] } },
      false,
    ],
    [
      'deprecated zone field still counts',
      legacyZone,
      { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] } },
      true,
    ],
    [
      'all parts must match',
      cluster,
      { clusterNames: ['m1'], labelSelector: { matchLabels: { env: 'dev' } } },
      false,
    ],
  ])('%s', (_name, c, affinity, expected) => {
    expect(isClusterTargeted(c, affinity)).toBe(expected);
  });
});

describe('isLabelSelectorMatched', () => {
  const labels = { a: '1', b: '2' };
  it.each<[string, LabelSelector, boolean]>([
    ['In with its value', { matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '3'] }] }, true],
    [
      'In without values matches nothing',
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      false,
    ],
    ['In on a missing key', { matchExpressions: [{ key: 'z', operator: 'In', values: ['1'] }] }, false],
    ['NotIn on a missing key', { matchExpressions: [{ key: 'z', operator: 'NotIn', values: ['1'] }] }, true],
    ['NotIn with its value', { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, false],
    ['Exists', { matchExpressions: [{ key: 'b', operator: 'Exists' }] }, true],
    [
      'Exists with values matches nothing',
      { matchExpressions: [{ key: 'b', operator: 'Exists', values: ['2'] }] },
      false,
    ],
    ['DoesNotExist', { matchExpressions: [{ key: 'z', operator: 'DoesNotExist' }] }, true],
    ['DoesNotExist on a present key', { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, false],
    [
      'matchLabels and expressions are ANDed',
      { matchLabels: { a: '1' }, matchExpressions: [{ key: 'b', operator: 'In', values: ['9'] }] },
      false,
    ],
  ])('%s', (_name, selector, expected) => {
    expect(isLabelSelectorMatched(labels, selector)).toBe(expected);
  });
});
