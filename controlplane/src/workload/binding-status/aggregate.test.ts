import { describe, expect, it } from 'vitest';
import type { ResourceBinding, Work } from '@kf/api';
import { aggregate, readyToAggregate } from './aggregate.ts';

const binding = (
  clusters: readonly string[],
  tasks: readonly { fromCluster: string; purgeMode: 'Directly' | 'Gracefully' }[] = [],
): ResourceBinding => ({
  metadata: { name: 'web-deployment', namespace: 'default' },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
    clusters: clusters.map((name) => ({ name, replicas: 1 })),
    gracefulEvictionTasks: tasks.map((t) => ({ ...t, reason: 'TaintUntolerated', producer: 'TaintManager' })),
  },
});
const reflected = {
  replicas: 1,
  readyReplicas: 1,
  observedGeneration: 1,
  generation: 1,
  resourceTemplateGeneration: 1,
};
const work = (
  cluster: string,
  state: 'none' | 'failed' | 'applied' | 'reported' | 'deleting' | 'other',
): Work => ({
  metadata: {
    name: 'web-x',
    namespace: `karmada-es-${cluster}`,
    ...(state === 'deleting' ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: {},
  status: {
    conditions:
      state === 'none'
        ? []
        : [
            {
              type: 'Applied',
              status: state === 'failed' ? 'False' : 'True',
              reason: 'x',
              message: 'boom',
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ],
    manifestStatuses:
      state === 'reported' || state === 'other'
        ? [
            {
              identifier: {
                ordinal: 0,
                group: 'apps',
                version: 'v1',
                kind: 'Deployment',
                resource: '',
                namespace: 'default',
                name: state === 'other' ? 'api' : 'web',
              },
              status: reflected,
              health: 'Healthy',
            },
          ]
        : [],
  },
});

describe('aggregate', () => {
  it.each([
    ['no Applied condition', 'none', { clusterName: 'm1', applied: false, health: 'Unknown' }],
    [
      'Applied=False',
      'failed',
      { clusterName: 'm1', applied: false, appliedMessage: 'boom', health: 'Unknown' },
    ],
    ['applied without manifest status', 'applied', { clusterName: 'm1', applied: true, health: 'Unknown' }],
    [
      'applied with the status of another object',
      'other',
      { clusterName: 'm1', applied: true, health: 'Unknown' },
    ],
    [
      'applied and reported',
      'reported',
      { clusterName: 'm1', applied: true, status: reflected, health: 'Healthy' },
    ],
  ] as const)('%s', (_n, state, item) => {
    expect(aggregate(binding(['m1']), [work('m1', state)]).items).toEqual([item]);
  });

  it('has no item for a Work its member has not reported on yet', () => {
    const unreported: Work = { metadata: work('m2', 'reported').metadata, spec: {} };
    const a = aggregate(binding(['m1', 'm2']), [work('m1', 'reported'), unreported]);
    expect(a.items.map((i) => i.clusterName)).toEqual(['m1']);
    expect(a.fullyApplied).toMatchObject({ status: 'False', reason: 'FullyAppliedFailed' });
  });

  it('sorts by cluster and skips deleting Works', () => {
    const a = aggregate(binding(['m2', 'm1']), [
      work('m2', 'reported'),
      work('m3', 'deleting'),
      work('m1', 'reported'),
    ]);
    expect(a.items.map((i) => i.clusterName)).toEqual(['m1', 'm2']);
    expect(a.fullyApplied).toMatchObject({ status: 'True', reason: 'FullyAppliedSuccess' });
  });

  it.each([
    ['a Work missing', ['m1', 'm2'], [], ['m1'], 'False'],
    ['a Work not applied', ['m1'], [], [], 'False'],
    ['nothing expected', [], [], [], 'False'],
    [
      'a Gracefully evicted cluster still counts',
      ['m2'],
      [{ fromCluster: 'm1', purgeMode: 'Gracefully' }],
      ['m1', 'm2'],
      'True',
    ],
    [
      'a Directly evicted cluster is unexpected',
      ['m2'],
      [{ fromCluster: 'm1', purgeMode: 'Directly' }],
      ['m1', 'm2'],
      'False',
    ],
  ] as const)('FullyApplied with %s: %s', (...[, clusters, tasks, applied, status]) => {
    const works = clusters.map((c) =>
      work(c, (applied as readonly string[]).includes(c) ? 'reported' : 'failed'),
    );
    for (const t of tasks) works.push(work(t.fromCluster, 'reported'));
    expect(aggregate(binding(clusters, tasks), works).fullyApplied.status).toBe(status);
  });
});

describe('readyToAggregate', () => {
  const scheduled = (b: ResourceBinding): ResourceBinding => ({
    ...b,
    status: { lastScheduledTime: '2026-01-01T00:00:00Z' },
  });
  const created = (cluster: string): Work => {
    const { metadata, spec } = work(cluster, 'none');
    return { metadata, spec };
  };

  it('waits for the scheduler while no Work has anything to report', () => {
    expect(readyToAggregate(binding(['m1']), [])).toBe(false);
    expect(readyToAggregate(binding(['m1', 'm2']), [created('m1'), created('m2')])).toBe(false);
  });

  it('starts once scheduled, Works or none', () => {
    expect(readyToAggregate(scheduled(binding(['m1'])), [])).toBe(true);
    expect(readyToAggregate(scheduled(binding(['m1'])), [created('m1')])).toBe(true);
  });

  it('starts without the scheduler once a Work reports', () => {
    expect(readyToAggregate(binding(['m1', 'm2']), [created('m1'), work('m2', 'failed')])).toBe(true);
  });
});
