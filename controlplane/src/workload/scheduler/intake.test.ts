import { describe, expect, it } from 'vitest';
import { labels, type Cluster, type ResourceBinding } from '@kf/api';
import { clustersToMatch, isAffectedBy, isForScheduler, isSchedulingEvent } from './intake.ts';

const binding = (
  extra: Partial<ResourceBinding['spec']> = {},
  labelSet: Record<string, string> = { [labels.propagationPolicyPermanentId]: 'p' },
): ResourceBinding => ({
  metadata: { name: 'web-deployment', namespace: 'default', generation: 2, labels: labelSet },
  spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, placement: {}, ...extra },
});
const cluster = (
  name: string,
  extra: { labels?: Record<string, string>; generation?: number; deleting?: boolean } = {},
): Cluster => ({
  metadata: {
    name,
    generation: extra.generation ?? 1,
    labels: extra.labels ?? {},
    ...(extra.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: { syncMode: 'Pull' },
});

const attached: ResourceBinding = {
  metadata: {
    name: 'config-configmap',
    namespace: 'default',
    labels: { 'resourcebinding.karmada.io/depended-by-5bdc5c4dcf': 'id' },
  },
  spec: {
    resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'config' },
    requiredBy: [{ namespace: 'default', name: 'web-deployment', clusters: [{ name: 'member1' }] }],
  },
};

describe('isForScheduler', () => {
  it.each([
    ['a policy binding for the default scheduler', binding(), true],
    ['another scheduler', binding({ schedulerName: 'other' }), false],
    ['suspended scheduling', binding({ suspension: { scheduling: true } }), false],
    ['no policy or manager label', binding({}, {}), false],
    ['a managed-by binding', binding({}, { [labels.bindingManagedBy]: 'x' }), true],
    ['an attached binding of a dependency (requiredBy, no placement, no policy)', attached, false],
  ] as const)('%s → %s', (_n, b, expected) => {
    expect(isForScheduler(b, 'default-scheduler')).toBe(expected);
  });
});

describe('isSchedulingEvent', () => {
  const b = binding();
  const bumped = { ...b, metadata: { ...b.metadata, generation: 3 } };
  it.each([
    { name: 'added', type: 'ADDED', now: b, old: undefined, expected: true },
    { name: 'status-only update', type: 'MODIFIED', now: b, old: b, expected: false },
    { name: 'spec update', type: 'MODIFIED', now: bumped, old: b, expected: true },
    { name: 'deleted', type: 'DELETED', now: b, old: undefined, expected: false },
  ])('$name → $expected', ({ type, now, old, expected }) => {
    expect(isSchedulingEvent(type, now, old)).toBe(expected);
  });

  describe('health changes count while the binding has eviction tasks', () => {
    const task = {
      fromCluster: 'm1',
      reason: 'ApplicationFailure',
      producer: 'resource-binding-application-failover-controller',
    };
    const withStatus = (
      x: ResourceBinding,
      items: { clusterName: string; health: 'Healthy' | 'Unhealthy' }[],
    ): ResourceBinding => ({ ...x, status: { aggregatedStatus: items } });
    const evicting = binding({ gracefulEvictionTasks: [task] });
    const sick = withStatus(evicting, [{ clusterName: 'm1', health: 'Unhealthy' }]);
    const well = withStatus(evicting, [{ clusterName: 'm1', health: 'Healthy' }]);
    const wellBeside = withStatus(evicting, [
      { clusterName: 'm1', health: 'Healthy' },
      { clusterName: 'm2', health: 'Healthy' },
    ]);
    it.each([
      { name: 'healthy again where it was evicted from', now: well, old: sick, expected: true },
      { name: 'a cluster reports for the first time', now: wellBeside, old: well, expected: true },
      { name: 'the same health (another status write)', now: well, old: well, expected: false },
      {
        name: 'no eviction task: health alone does not count',
        now: withStatus(b, [{ clusterName: 'm1', health: 'Healthy' }]),
        old: withStatus(b, [{ clusterName: 'm1', health: 'Unhealthy' }]),
        expected: false,
      },
    ])('$name → $expected', ({ now, old, expected }) => {
      expect(isSchedulingEvent('MODIFIED', now, old)).toBe(expected);
    });
  });
});

describe('clustersToMatch', () => {
  const c = cluster('m1');
  it.each([
    ['status-only change', cluster('m1'), 0],
    ['taint added (generation)', cluster('m1', { generation: 2 }), 2],
    ['labels changed', cluster('m1', { labels: { a: 'b' } }), 2],
    ['deletion started', cluster('m1', { deleting: true }), 1],
  ] as const)('%s → %d versions', (_n, now, n) => {
    expect(clustersToMatch('MODIFIED', now, c)).toHaveLength(n);
  });

  it('ignores additions', () => {
    expect(clustersToMatch('ADDED', c, undefined)).toEqual([]);
  });
});

describe('isAffectedBy', () => {
  it.each([
    ['no affinity', binding(), true],
    ['matching names', binding({ placement: { clusterAffinity: { clusterNames: ['m1'] } } }), true],
    ['other names', binding({ placement: { clusterAffinity: { clusterNames: ['m2'] } } }), false],
    [
      'affinity terms not yet observed',
      binding({ placement: { clusterAffinities: [{ affinityName: 'a', clusterNames: ['m2'] }] } }),
      true,
    ],
  ] as const)('%s → %s', (_n, b, expected) => {
    expect(isAffectedBy(b, cluster('m1'))).toBe(expected);
  });
});
