import type { Cluster } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { apiKey, cachedClusterView, toClusterView } from './cluster-view.ts';

const full: Cluster = {
  metadata: { name: 'm1', labels: { env: 'prod' }, deletionTimestamp: '2026-01-01T00:00:00Z' },
  spec: {
    syncMode: 'Pull',
    provider: 'aws',
    region: 'us-east',
    zones: ['a', 'b'],
    taints: [{ key: 'k', effect: 'NoSchedule' }],
  },
  status: {
    apiEnablements: [
      { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] },
      { groupVersion: 'v1', resources: [{ name: 'pods', kind: 'Pod' }] },
      { groupVersion: 'batch/v1' },
    ],
    resourceSummary: {
      allocatable: { pods: '110', cpu: '4', memory: '8Gi' },
      allocated: { pods: 10, cpu: '1500m' },
      allocating: { pods: '5', memory: '1Gi' },
    },
  },
};

describe('toClusterView', () => {
  it('reads identity, topology, taints, APIs and deletion', () => {
    const v = toClusterView(full);
    expect(v).toMatchObject({
      name: 'm1',
      labels: { env: 'prod' },
      provider: 'aws',
      region: 'us-east',
      zones: ['a', 'b'],
      taints: [{ key: 'k', effect: 'NoSchedule' }],
      deleting: true,
    });
    expect([...v.apis].sort()).toEqual([apiKey('apps/v1', 'Deployment'), apiKey('v1', 'Pod')]);
  });

  it('computes free capacity per allocatable resource', () => {
    const capacity = toClusterView(full).capacity;
    expect(capacity?.allowedPods).toBe(95);
    expect(Object.fromEntries(capacity?.freeMilli ?? [])).toEqual({
      pods: 95_000,
      cpu: 2500,
      memory: 7 * 1024 ** 3 * 1000,
    });
  });

  it('never reports negative pod slots', () => {
    const v = toClusterView({
      ...full,
      status: {
        resourceSummary: { allocatable: { pods: 10 }, allocated: { pods: 8 }, allocating: { pods: 5 } },
      },
    });
    expect(v.capacity?.allowedPods).toBe(0);
  });

  it.each<[string, Cluster['spec'], readonly string[]]>([
    ['zones win', { syncMode: 'Push', zones: ['a'], zone: 'old' }, ['a']],
    ['deprecated zone when zones is empty', { syncMode: 'Push', zones: [], zone: 'old' }, ['old']],
    ['deprecated zone alone', { syncMode: 'Push', zone: 'old' }, ['old']],
    ['no zone', { syncMode: 'Push' }, []],
  ])('zones: %s', (_name, spec, zones) => {
    expect(toClusterView({ metadata: { name: 'x' }, spec }).zones).toEqual(zones);
  });

  it('defaults everything absent', () => {
    expect(toClusterView({ metadata: {}, spec: { syncMode: 'Push' } })).toEqual({
      name: '',
      labels: {},
      provider: '',
      region: '',
      zones: [],
      taints: [],
      apis: new Set(),
      apiListComplete: false,
      deleting: false,
      capacity: undefined,
    });
  });
});

describe('cachedClusterView', () => {
  const cluster = (cpu: string): Cluster => ({
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name: 'm1', labels: { tier: 'a' } },
    spec: { syncMode: 'Pull' },
    status: {
      apiEnablements: [{ groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] }],
      resourceSummary: { allocatable: { cpu, pods: '110' } },
    },
  });

  it('makes the view of one object once, and the view of a changed copy afresh', () => {
    const first = cluster('4');
    const view = cachedClusterView(first);
    expect(view).toEqual(toClusterView(first));
    expect(cachedClusterView(first)).toBe(view);
    const changed = cluster('8');
    expect(cachedClusterView(changed)).not.toBe(view);
    expect(cachedClusterView(changed)).toEqual(toClusterView(changed));
    expect(cachedClusterView(changed)).not.toEqual(view);
  });
});
