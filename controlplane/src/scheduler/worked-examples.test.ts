/**
 * Worked examples of replica assignment and failover (static and dynamic weights, Aggregated,
 * Duplicated, scaling, an eviction and the reschedule after it, and the demo's `nginx`), run end to
 * end through scheduleBinding: clusters as API objects, capacity as free pod slots.
 */
import type { Taint } from '@kf/api';
import { describe, expect, it } from 'vitest';
import type { ClusterView } from './cluster-view.ts';
import { scheduleBinding } from './schedule.ts';
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

const EVEN_UID = 'uid-2'; // FNV-1a parity even: ties go to ascending names
const ODD_UID = 'uid-1'; // odd: descending names
const notReady: Taint = {
  key: 'cluster.karmada.io/not-ready',
  effect: 'NoExecute',
  timeAdded: '2026-01-01T00:00:00Z',
};

/** Clusters with the given free pod slots (= replicas they can take). */
const withRoom = (room: Readonly<Record<string, number>>): ClusterView[] =>
  Object.entries(room).map(([name, pods]) => cluster(name, { pods }));

function placed(o: BindingOptions, clusters: readonly ClusterView[]): Record<string, number | undefined> {
  const r = scheduleBinding(binding(o), clusters, 0);
  expect(r.condition).toMatchObject({ status: 'True', reason: 'Success' });
  return replicasOf(r.clusters);
}

describe('worked examples', () => {
  it.each<[string, BindingOptions, Record<string, number>, Record<string, number>]>([
    [
      'Static 1:2',
      { replicas: 9, placement: { replicaScheduling: staticWeights({ A: 1, B: 2 }) } },
      { A: 100, B: 100 },
      { A: 3, B: 6 },
    ],
    [
      'Static 1:3',
      { replicas: 9, placement: { replicaScheduling: staticWeights({ A: 1, B: 3 }) } },
      { A: 100, B: 100 },
      { A: 2, B: 7 },
    ],
    [
      'Static 2:1',
      { replicas: 7, placement: { replicaScheduling: staticWeights({ A: 2, B: 1 }) } },
      { A: 100, B: 100 },
      { A: 5, B: 2 },
    ],
    [
      'Static equal (default weights)',
      {
        replicas: 10,
        uid: EVEN_UID,
        placement: {
          replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted' },
        },
      },
      { A: 100, B: 100, C: 100 },
      { A: 4, B: 3, C: 3 },
    ],
    [
      'Static equal (default weights), odd-hash UID',
      {
        replicas: 10,
        uid: ODD_UID,
        placement: {
          replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted' },
        },
      },
      { A: 100, B: 100, C: 100 },
      { A: 3, B: 3, C: 4 },
    ],
    [
      'Dynamic first schedule 18/12/6',
      { replicas: 12, placement: { replicaScheduling: dynamicWeight } },
      { A: 18, B: 12, C: 6 },
      { A: 6, B: 4, C: 2 },
    ],
    [
      'Dynamic first schedule 20/12/6',
      { replicas: 12, placement: { replicaScheduling: dynamicWeight } },
      { A: 20, B: 12, C: 6 },
      { A: 6, B: 4, C: 2 },
    ],
    [
      'Dynamic first schedule 6/12/6',
      { replicas: 12, placement: { replicaScheduling: dynamicWeight } },
      { A: 6, B: 12, C: 6 },
      { A: 3, B: 6, C: 3 },
    ],
    [
      'Aggregated first schedule B=12, A=6, C=6',
      { replicas: 12, placement: { replicaScheduling: aggregated } },
      { A: 6, B: 12, C: 6 },
      { B: 12 },
    ],
    [
      'Aggregated first schedule 6/6/6',
      { replicas: 12, placement: { replicaScheduling: aggregated } },
      { A: 6, B: 6, C: 6 },
      { A: 6, B: 6 },
    ],
    [
      'Aggregated first schedule 8/6/3',
      { replicas: 10, placement: { replicaScheduling: aggregated } },
      { A: 8, B: 6, C: 3 },
      { A: 6, B: 4 },
    ],
    [
      'Scale down, DynamicWeight: A 6, B 4 → 5',
      { replicas: 5, clusters: { A: 6, B: 4 }, placement: { replicaScheduling: dynamicWeight } },
      { A: 10, B: 10 },
      { A: 3, B: 2 },
    ],
    [
      'Scale down, Aggregated: A 6, B 4 → 5',
      { replicas: 5, clusters: { A: 6, B: 4 }, placement: { replicaScheduling: aggregated } },
      { A: 10, B: 10 },
      { A: 5 },
    ],
    [
      'Scale up, Aggregated: B 4 → 10 with room A=10, B=3, C=8',
      { replicas: 10, clusters: { B: 4 }, placement: { replicaScheduling: aggregated } },
      { A: 10, B: 3, C: 8 },
      { A: 5, B: 5 },
    ],
    [
      'Tie on priority: 5 over B:7, C:3',
      { replicas: 5, placement: { replicaScheduling: dynamicWeight } },
      { B: 7, C: 3 },
      { B: 3, C: 2 },
    ],
  ])('%s', (_name, o, room, expected) => {
    expect(placed(o, withRoom(room))).toEqual(expected);
  });
});

describe('failover example (Divided, DynamicWeight, 10 replicas)', () => {
  const placement = { replicaScheduling: dynamicWeight };

  it.each([
    ['even UID', EVEN_UID, { A: 5, B: 3, C: 2 }],
    ['odd UID', ODD_UID, { A: 5, B: 2, C: 3 }],
  ])('first schedule over room A=20, B=10, C=10 (%s)', (_name, uid, expected) => {
    expect(placed({ replicas: 10, uid, placement }, withRoom({ A: 20, B: 10, C: 10 }))).toEqual(expected);
  });

  it('after the taint manager evicted A, refills B and C from their remaining room', () => {
    const clusters = [
      cluster('A', { pods: 20, taints: [notReady] }),
      cluster('B', { pods: 7 }),
      cluster('C', { pods: 8 }),
    ];
    const b = binding({ replicas: 10, uid: EVEN_UID, placement, clusters: { B: 3, C: 2 }, evicting: ['A'] });
    const r = scheduleBinding(b, clusters, 0);
    expect(replicasOf(r.clusters)).toEqual({ B: 5, C: 5 });
    expect(r.rejected).toEqual([
      {
        cluster: 'A',
        plugin: 'TaintToleration',
        reason: 'cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoExecute}',
      },
    ]);
  });

  it('keeps A out through ClusterEviction alone once the taint is gone, B and C running healthy copies', () => {
    const b = binding({
      replicas: 10,
      placement,
      clusters: { B: 3, C: 2 },
      evicting: ['A'],
      health: { A: 'Healthy', B: 'Healthy', C: 'Healthy' },
    });
    const r = scheduleBinding(b, withRoom({ A: 20, B: 7, C: 8 }), 0);
    expect(replicasOf(r.clusters)).toEqual({ B: 5, C: 5 });
    expect(r.rejected).toEqual([
      { cluster: 'A', plugin: 'ClusterEviction', reason: 'cluster(s) is in the process of eviction' },
    ]);
  });
});

describe('Duplicated example', () => {
  const placement = { clusterAffinity: { clusterNames: ['A', 'B', 'C'] }, replicaScheduling: duplicated };

  it('places all replicas on every matching cluster', () => {
    expect(placed({ replicas: 10, placement }, withRoom({ A: 1, B: 1, C: 1, D: 1 }))).toEqual({
      A: 10,
      B: 10,
      C: 10,
    });
  });

  it('drops an evicted cluster without replacement when no other cluster matches', () => {
    const clusters = [cluster('A', { taints: [notReady] }), cluster('B'), cluster('C'), cluster('D')];
    const b = binding({ replicas: 10, placement, clusters: { B: 10, C: 10 }, evicting: ['A'] });
    expect(replicasOf(scheduleBinding(b, clusters, 0).clusters)).toEqual({ B: 10, C: 10 });
  });
});

describe('a Duplicated workload on its only cluster (differs from upstream)', () => {
  const placement = { clusterAffinity: { clusterNames: ['member1'] }, replicaScheduling: duplicated };
  const evicted = binding({ replicas: 1, placement, clusters: [], evicting: ['member1'] });

  it('is not placed while member1 keeps its NoExecute taint', () => {
    const r = scheduleBinding(evicted, [cluster('member1', { taints: [notReady] }), cluster('member2')], 0);
    expect(r.clusters).toEqual([]);
    expect(r.rejected.map((x) => [x.cluster, x.plugin])).toEqual([
      ['member1', 'TaintToleration'],
      ['member2', 'ClusterAffinity'],
    ]);
  });

  it('goes back to member1 as soon as the taint is gone: its copy there is the only one', () => {
    const r = scheduleBinding(evicted, [cluster('member1'), cluster('member2')], 0);
    expect(replicasOf(r.clusters)).toEqual({ member1: 1 });
  });
});

describe('StaticWeight example', () => {
  const placement = { replicaScheduling: staticWeights({ A: 1, B: 2 }) };

  it('divides 9 replicas 1:2', () => {
    expect(placed({ replicas: 9, placement }, withRoom({ A: 1, B: 1 }))).toEqual({ A: 3, B: 6 });
  });

  it('gives everything to B once A is evicted', () => {
    const clusters = [cluster('A', { taints: [notReady] }), cluster('B')];
    const b = binding({ replicas: 9, placement, clusters: { B: 6 }, evicting: ['A'] });
    expect(replicasOf(scheduleBinding(b, clusters, 0).clusters)).toEqual({ B: 9 });
  });
});

describe('failover over member1 to member5', () => {
  describe('Duplicated with a cluster spread constraint of exactly 2', () => {
    const placement = {
      clusterAffinity: { clusterNames: ['member1', 'member2', 'member3', 'member5'] },
      spreadConstraints: [{ maxGroups: 2, minGroups: 2 }],
      replicaScheduling: duplicated,
    };
    const five = ['member1', 'member2', 'member3', 'member4', 'member5'];

    it('first lands on member1 and member2', () => {
      expect(
        placed(
          { replicas: 2, placement },
          five.map((n) => cluster(n)),
        ),
      ).toEqual({ member1: 2, member2: 2 });
    });

    it('keeps member1 and replaces a failed member2 with another matching cluster', () => {
      const clusters = five.map((n) => cluster(n, n === 'member2' ? { taints: [notReady] } : {}));
      const b = binding({ replicas: 2, placement, clusters: { member1: 2 }, evicting: ['member2'] });
      const r = scheduleBinding(b, clusters, 0);
      expect(replicasOf(r.clusters)).toEqual({ member1: 2, member3: 2 });
      expect(r.rejected.map((x) => [x.cluster, x.plugin])).toEqual([
        ['member2', 'TaintToleration'],
        ['member4', 'ClusterAffinity'],
      ]);
    });

    it('does not move away from a cluster that is only NoSchedule-tainted (no eviction yet)', () => {
      const noSchedule: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' };
      const clusters = five.map((n) => cluster(n, n === 'member2' ? { taints: [noSchedule] } : {}));
      const b = binding({ replicas: 2, placement, clusters: { member1: 2, member2: 2 } });
      expect(replicasOf(scheduleBinding(b, clusters, 0).clusters)).toEqual({ member1: 2, member2: 2 });
    });
  });

  describe('Divided with static weights 1:2', () => {
    const placement = {
      clusterAffinity: { clusterNames: ['member1', 'member2'] },
      replicaScheduling: staticWeights({ member1: 1, member2: 2 }),
    };

    it('first places 1 and 2 replicas', () => {
      expect(placed({ replicas: 3, placement }, withRoom({ member1: 10, member2: 10 }))).toEqual({
        member1: 1,
        member2: 2,
      });
    });

    it('moves everything to member2 when member1 fails', () => {
      const clusters = [cluster('member1', { taints: [notReady] }), cluster('member2')];
      const b = binding({ replicas: 3, placement, clusters: { member2: 2 }, evicting: ['member1'] });
      expect(replicasOf(scheduleBinding(b, clusters, 0).clusters)).toEqual({ member2: 3 });
    });
  });
});

describe("the demo's nginx: divided member1:1, member2:2 of three members", () => {
  const placement = {
    clusterAffinity: { clusterNames: ['member1', 'member2'] },
    replicaScheduling: staticWeights({ member1: 1, member2: 2 }),
  };

  it('schedules 3 replicas 1:2 over member1 and member2, leaving member3 out', () => {
    const r = scheduleBinding(
      binding({ replicas: 3, placement }),
      withRoom({ member1: 9, member2: 9, member3: 9 }),
      0,
    );
    expect(replicasOf(r.clusters)).toEqual({ member1: 1, member2: 2 });
  });

  it('after member1 is lost, rejects member1 (taint) and member3 (affinity) and puts 3 on member2', () => {
    const clusters = [cluster('member1', { taints: [notReady] }), cluster('member2'), cluster('member3')];
    const b = binding({ replicas: 3, placement, clusters: { member2: 2 }, evicting: ['member1'] });
    const r = scheduleBinding(b, clusters, 0);
    expect(r.clusters).toEqual([{ name: 'member2', replicas: 3 }]);
    expect(r.rejected).toEqual([
      {
        cluster: 'member1',
        plugin: 'TaintToleration',
        reason: 'cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoExecute}',
      },
      {
        cluster: 'member3',
        plugin: 'ClusterAffinity',
        reason: 'cluster(s) did not match the placement cluster affinity constraint',
      },
    ]);
    expect(r.condition).toMatchObject({
      status: 'True',
      reason: 'Success',
      message: 'Binding has been scheduled successfully.',
    });
  });
});
