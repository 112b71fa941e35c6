import type { Placement, Taint } from '@kf/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterView } from './cluster-view.ts';
import { describeResult, scheduleBinding } from './schedule.ts';
import {
  aggregated,
  binding,
  cluster,
  duplicated,
  dynamicWeight,
  replicasOf,
  staticWeights,
  type BindingOptions,
} from './test-builders.ts';

const cordon: Taint = { key: 'cluster.karmada.io/unschedulable', effect: 'NoSchedule' };
const room = (r: Readonly<Record<string, number>>): ClusterView[] =>
  Object.entries(r).map(([name, pods]) => cluster(name, { pods }));

describe('scheduleBinding: outcomes and the Scheduled condition', () => {
  it('reports success with the placement to write', () => {
    const r = scheduleBinding(binding({ replicas: 2 }), room({ a: 5 }), 0);
    expect(r).toEqual({
      clusters: [{ name: 'a', replicas: 2 }],
      writeClusters: true,
      affinityName: undefined,
      rejected: [],
      condition: {
        type: 'Scheduled',
        status: 'True',
        reason: 'Success',
        message: 'Binding has been scheduled successfully.',
      },
      retry: 'none',
      attempts: [{ affinityName: '', failure: undefined }],
    });
  });

  it('reports no fitting cluster with every reason, and clears the placement as upstream does', () => {
    const clusters = [
      cluster('a', { taints: [cordon] }),
      cluster('b', { apis: [] }),
      cluster('c', { deleting: true }),
    ];
    const r = scheduleBinding(binding({ replicas: 2, clusters: { c: 2 } }), clusters, 0);
    expect(r.condition).toEqual({
      type: 'Scheduled',
      status: 'False',
      reason: 'NoClusterFit',
      message:
        '0/3 clusters are available: 1 cluster(s) did not have the API resource, ' +
        '1 cluster(s) had untolerated taint {cluster.karmada.io/unschedulable:NoSchedule}.',
    });
    expect(r.rejected.map((x) => x.cluster)).toEqual(['a', 'b']);
    expect(r).toMatchObject({ clusters: [], writeClusters: true, retry: 'none', affinityName: undefined });
  });

  it('keeps the placement on no fit when asked to', () => {
    const b = binding({ replicas: 2, clusters: { c: 2 } });
    const r = scheduleBinding(b, [cluster('c', { deleting: true })], 0, { onNoClusterFit: 'keep' });
    expect(r).toMatchObject({ clusters: [{ name: 'c', replicas: 2 }], writeClusters: false });
    expect(r.condition).toMatchObject({ status: 'False', reason: 'NoClusterFit' });
  });

  it('reports too little capacity as Unschedulable and keeps the placement', () => {
    const b = binding({ replicas: 10, clusters: { a: 2 }, placement: { replicaScheduling: dynamicWeight } });
    const r = scheduleBinding(b, room({ a: 3, b: 1 }), 0);
    expect(r).toMatchObject({
      clusters: [{ name: 'a', replicas: 2 }],
      writeClusters: false,
      retry: 'unschedulable',
    });
    expect(r.condition).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message: 'Clusters available replicas 4 are not enough to schedule.',
    });
  });

  it.each<[string, BindingOptions, string]>([
    [
      'a placement without a supported spread field',
      { replicas: 1, placement: { spreadConstraints: [{ spreadByField: 'zone' }] } },
      'just support cluster and region spread constraint',
    ],
    [
      'Divided without division preference',
      { replicas: 1, placement: { replicaScheduling: { replicaSchedulingType: 'Divided' } } },
      'unsupported replica scheduling strategy',
    ],
    ['a binding without placement', { replicas: 1, placement: null }, 'the binding has no placement'],
    [
      'maxGroups 0',
      { replicas: 1, placement: { spreadConstraints: [{ spreadByField: 'cluster', maxGroups: 0 }] } },
      'no clusters available to schedule',
    ],
  ])('reports other failures as SchedulerError: %s', (_name, o, message) => {
    const clusters = [cluster('a', { zones: ['z'] })];
    const r = scheduleBinding(binding({ ...o, clusters: { a: 1 } }), clusters, 0);
    expect(r).toMatchObject({
      clusters: [{ name: 'a', replicas: 1 }],
      writeClusters: false,
      retry: 'backoff',
    });
    expect(r.condition).toMatchObject({ status: 'False', reason: 'SchedulerError', message });
  });

  it('moves a Duplicated workload off a cluster being deleted', () => {
    const r = scheduleBinding(
      binding({ replicas: 2, clusters: { a: 2 } }),
      [cluster('a', { deleting: true }), cluster('b')],
      0,
    );
    expect(r.clusters).toEqual([{ name: 'b', replicas: 2 }]);
  });

  it('keeps a recently evicted cluster out until blockPredecessorSeconds have passed', () => {
    const evictedAt = Date.parse('2026-01-01T00:00:00Z');
    const o: BindingOptions = {
      replicas: 4,
      clusters: { b: 2 },
      placement: { replicaScheduling: dynamicWeight },
      history: [{ clusterName: 'a', creationTimestamp: '2026-01-01T00:00:00Z' }],
      blockPredecessorSeconds: 60,
    };
    const clusters = room({ a: 50, b: 1 });
    const blocked = scheduleBinding(binding(o), clusters, evictedAt + 59_000);
    expect(blocked.condition.reason).toBe('Unschedulable');
    expect(blocked.rejected).toEqual([
      {
        cluster: 'a',
        plugin: 'EvictionHistory',
        reason: 'cluster(s) evicted this workload less than blockPredecessorSeconds ago',
      },
    ]);
    expect(replicasOf(scheduleBinding(binding(o), clusters, evictedAt + 60_000).clusters)).toEqual({
      a: 2,
      b: 2,
    });
  });

  it('lists non-workloads on every cluster without replicas', () => {
    const r = scheduleBinding(
      binding({ replicas: 0, kind: 'ConfigMap', apiVersion: 'v1' }),
      [cluster('b', { apis: ['v1/ConfigMap'] }), cluster('a', { apis: ['v1/ConfigMap'] })],
      0,
    );
    expect(r.clusters).toEqual([{ name: 'a' }, { name: 'b' }]);
  });

  it('appends clusters left empty with empty workload propagation', () => {
    const o: BindingOptions = { replicas: 1, placement: { replicaScheduling: staticWeights({ a: 1 }) } };
    const r = scheduleBinding(binding(o), room({ a: 1, b: 1 }), 0, { emptyWorkloadPropagation: true });
    expect(r.clusters).toEqual([{ name: 'a', replicas: 1 }, { name: 'b' }]);
  });
});

describe('scheduleBinding: ordered clusterAffinities', () => {
  const placement: Placement = {
    clusterAffinities: [
      { affinityName: 'primary', clusterNames: ['p1', 'p2'] },
      { affinityName: 'backup', clusterNames: ['b1'] },
      { affinityName: 'last', clusterNames: ['l1'] },
    ],
    replicaScheduling: duplicated,
  };
  const all = () => [cluster('p1'), cluster('p2'), cluster('b1'), cluster('l1')];
  const cordoned = (names: readonly string[]) =>
    all().map((c) => (names.includes(c.name) ? { ...c, taints: [cordon] } : c));

  it('starts with the first term', () => {
    const r = scheduleBinding(binding({ replicas: 1, placement }), all(), 0);
    expect(r).toMatchObject({ affinityName: 'primary', clusters: [{ name: 'p1' }, { name: 'p2' }] });
  });

  it('falls back to the next term when the observed one has no fitting cluster', () => {
    const r = scheduleBinding(
      binding({ replicas: 1, placement, observedAffinityName: 'primary' }),
      cordoned(['p1', 'p2']),
      0,
    );
    expect(r.affinityName).toBe('backup');
    expect(r.clusters).toEqual([{ name: 'b1', replicas: 1 }]);
    expect(r.attempts.map((a) => [a.affinityName, a.failure?.kind])).toEqual([
      ['primary', 'NoClusterFit'],
      ['backup', undefined],
    ]);
    expect(r.rejected.map((x) => x.cluster)).toEqual(['l1', 'p1', 'p2']);
  });

  it('never returns to an earlier term by itself', () => {
    const r = scheduleBinding(
      binding({ replicas: 1, placement, observedAffinityName: 'backup', clusters: { b1: 1 } }),
      all(),
      0,
    );
    expect(r).toMatchObject({ affinityName: 'backup', clusters: [{ name: 'b1', replicas: 1 }] });
  });

  it('restarts from the first term on an explicit reschedule', () => {
    const b = binding({
      replicas: 1,
      placement,
      observedAffinityName: 'backup',
      clusters: { b1: 1 },
      rescheduleTriggeredAt: '2026-01-02T00:00:00Z',
      lastScheduledTime: '2026-01-01T00:00:00Z',
    });
    expect(scheduleBinding(b, all(), 0).affinityName).toBe('primary');
  });

  it('starts from the first term when the observed name is unknown', () => {
    expect(
      scheduleBinding(binding({ replicas: 1, placement, observedAffinityName: 'gone' }), all(), 0)
        .affinityName,
    ).toBe('primary');
  });

  it('reports the first failure when every term fails, keeping the observed name', () => {
    const r = scheduleBinding(
      binding({ replicas: 1, placement, observedAffinityName: 'backup', clusters: { b1: 1 } }),
      cordoned(['b1', 'l1']).map((c) => (c.name === 'b1' ? { ...c, deleting: true } : c)),
      0,
    );
    expect(r.attempts.map((a) => a.affinityName)).toEqual(['backup', 'last']);
    expect(r).toMatchObject({ affinityName: undefined, clusters: [], writeClusters: true });
    expect(r.condition).toMatchObject({ reason: 'NoClusterFit' });
  });

  it('keeps the placement when the first failure is not a fit failure', () => {
    const divided: Placement = { ...placement, replicaScheduling: dynamicWeight };
    const clusters = [
      cluster('p1', { pods: 1 }),
      cluster('p2', { pods: 1 }),
      cluster('b1', { taints: [cordon] }),
      cluster('l1', { taints: [cordon] }),
    ];
    const r = scheduleBinding(binding({ replicas: 9, placement: divided, clusters: { p1: 1 } }), clusters, 0);
    expect(r.attempts.map((a) => a.failure?.kind)).toEqual(['Unschedulable', 'NoClusterFit', 'NoClusterFit']);
    expect(r).toMatchObject({
      clusters: [{ name: 'p1', replicas: 1 }],
      writeClusters: false,
      retry: 'unschedulable',
    });
  });

  it('fills overflow clusters only beyond what the term own clusters hold', () => {
    const tiered: Placement = {
      clusterAffinities: [
        {
          affinityName: 'home',
          clusterNames: ['p1'],
          overflowAffinities: [{ affinityName: 'cloud', clusterNames: ['b1'] }],
        },
      ],
      replicaScheduling: aggregated,
    };
    const clusters = [cluster('p1', { pods: 4 }), cluster('b1', { pods: 100 })];
    expect(
      replicasOf(scheduleBinding(binding({ replicas: 3, placement: tiered }), clusters, 0).clusters),
    ).toEqual({ p1: 3 });
    expect(
      replicasOf(scheduleBinding(binding({ replicas: 10, placement: tiered }), clusters, 0).clusters),
    ).toEqual({ p1: 4, b1: 6 });
  });
});

describe('describeResult', () => {
  it('prints name:replicas pairs', () => {
    expect(describeResult([{ name: 'm1', replicas: 2 }, { name: 'm2', replicas: 3 }, { name: 'm3' }])).toBe(
      '{m1:2, m2:3, m3:0}',
    );
  });
});

describe('scheduleBinding: properties', () => {
  const names = ['a', 'b', 'c', 'd', 'e', 'f'];
  const clusterArb = fc.record({
    pods: fc.integer({ min: 0, max: 40 }),
    cordoned: fc.boolean(),
    deleting: fc.boolean(),
    region: fc.constantFrom('r1', 'r2', 'r3'),
  });
  const strategyArb = fc.constantFrom<Placement['replicaScheduling']>(
    undefined,
    duplicated,
    aggregated,
    dynamicWeight,
    staticWeights({ a: 1, b: 2, c: 3 }),
    { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted' },
  );
  const spreadArb = fc.constantFrom<Placement['spreadConstraints']>(
    undefined,
    [{ spreadByField: 'cluster', minGroups: 1, maxGroups: 2 }],
    [
      { spreadByField: 'cluster', minGroups: 2, maxGroups: 3 },
      { spreadByField: 'region', minGroups: 1, maxGroups: 2 },
    ],
  );
  const scenario = fc.record({
    clusters: fc.tuple(...names.map(() => clusterArb)),
    replicas: fc.integer({ min: 0, max: 60 }),
    current: fc.dictionary(fc.constantFrom(...names), fc.integer({ min: 0, max: 10 })),
    strategy: strategyArb,
    spread: spreadArb,
    uid: fc.constantFrom('', 'uid-1', 'uid-2'),
    fresh: fc.boolean(),
  });

  type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;
  const views = (s: Scenario) =>
    s.clusters.map((c, i) =>
      cluster(names[i]!, {
        pods: c.pods,
        region: c.region,
        deleting: c.deleting,
        ...(c.cordoned ? { taints: [cordon] } : {}),
      }),
    );
  const bindingOf = (s: Scenario) =>
    binding({
      replicas: s.replicas,
      uid: s.uid,
      clusters: s.current,
      placement: {
        ...(s.strategy === undefined ? {} : { replicaScheduling: s.strategy }),
        ...(s.spread === undefined ? {} : { spreadConstraints: s.spread }),
      },
      ...(s.fresh
        ? { rescheduleTriggeredAt: '2026-01-02T00:00:00Z', lastScheduledTime: '2026-01-01T00:00:00Z' }
        : {}),
    });

  it('keeps the replica sum, never goes negative, never lists a cluster twice or a refused one', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const r = scheduleBinding(bindingOf(s), views(s), 0);
        if (r.condition.status !== 'True') return;
        const placed = r.clusters.map((t) => t.name);
        expect(new Set(placed).size).toBe(placed.length);
        expect(r.clusters.every((t) => (t.replicas ?? 0) >= 0)).toBe(true);
        const refused = new Set(r.rejected.map((x) => x.cluster));
        expect(placed.some((n) => refused.has(n))).toBe(false);
        const duplicatedKind = s.strategy === undefined || s.strategy.replicaSchedulingType === 'Duplicated';
        if (duplicatedKind) expect(r.clusters.every((t) => (t.replicas ?? 0) === s.replicas)).toBe(true);
        else expect(r.clusters.reduce((sum, t) => sum + (t.replicas ?? 0), 0)).toBe(s.replicas);
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same answer for the same input, whatever the order of the clusters', () => {
    fc.assert(
      fc.property(scenario, fc.infiniteStream(fc.nat()), (s, noise) => {
        const clusters = views(s);
        const shuffled = clusters
          .map((c) => ({ c, k: noise.next().value as number }))
          .sort((x, y) => x.k - y.k)
          .map((x) => x.c);
        const first = scheduleBinding(bindingOf(s), clusters, 0);
        expect(scheduleBinding(bindingOf(s), clusters, 0)).toEqual(first);
        expect(scheduleBinding(bindingOf(s), shuffled, 0)).toEqual(first);
        expect(scheduleBinding(bindingOf(s), [...clusters].reverse(), 0)).toEqual(first);
      }),
      { numRuns: 300 },
    );
  });

  it('always sets a Scheduled condition with a reason and a message', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const r = scheduleBinding(bindingOf(s), views(s), 0);
        expect(r.condition.type).toBe('Scheduled');
        expect(['Success', 'NoClusterFit', 'Unschedulable', 'SchedulerError']).toContain(r.condition.reason);
        expect(r.condition.message).not.toBe('');
        // No fit without a filter reason only happens when every cluster is being deleted.
        if (r.condition.reason === 'NoClusterFit' && r.rejected.length === 0) {
          expect(s.clusters.every((c) => c.deleting)).toBe(true);
          expect(r.condition.message).toBe('0/6 clusters are available: no cluster exists.');
        }
      }),
    );
  });
});
