import type { Placement, ResourceBinding } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { areReplicasChanged, decideScheduling, isPlacementChanged, type ScheduleTrigger } from './trigger.ts';
import { bindingObject, dynamicWeight, duplicated, type BindingOptions } from './test-builders.ts';

const divided: Placement = { replicaScheduling: dynamicWeight };

/** A binding whose placement was applied as is and whose status caught up. */
function settled(
  o: BindingOptions,
  extra: { applied?: Placement | string; generation?: number; observed?: number } = {},
): ResourceBinding {
  const b = bindingObject(o);
  const placement = b.spec.placement ?? {};
  const applied = extra.applied ?? placement;
  return {
    ...b,
    metadata: {
      ...b.metadata,
      generation: extra.generation ?? 3,
      annotations: {
        'policy.karmada.io/applied-placement':
          typeof applied === 'string' ? applied : JSON.stringify(applied),
      },
    },
    status: { ...b.status, schedulerObservedGeneration: extra.observed ?? 3 },
  };
}

describe('decideScheduling', () => {
  const none = new Set<string>();
  it.each<[string, ResourceBinding, ReadonlySet<string>, ScheduleTrigger]>([
    [
      'being deleted',
      {
        ...settled({ replicas: 2, placement: divided }),
        metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' },
      },
      none,
      { kind: 'Deleting' },
    ],
    ['no placement', settled({ replicas: 2, placement: null }), none, { kind: 'NoPlacement' }],
    [
      'never applied',
      { ...bindingObject({ replicas: 2, placement: divided, clusters: { a: 2 } }) },
      none,
      { kind: 'Schedule', reason: 'ReconcileSchedule' },
    ],
    [
      'placement changed',
      settled(
        { replicas: 2, placement: divided, clusters: { a: 2 } },
        { applied: { replicaScheduling: duplicated } },
      ),
      none,
      { kind: 'Schedule', reason: 'ReconcileSchedule' },
    ],
    [
      'Divided replicas no longer add up (failover removed a cluster)',
      settled({ replicas: 5, placement: divided, clusters: { b: 3 } }),
      none,
      { kind: 'Schedule', reason: 'ScaleSchedule' },
    ],
    [
      'Duplicated replicas differ',
      settled({ replicas: 5, placement: { replicaScheduling: duplicated }, clusters: { a: 5, b: 4 } }),
      none,
      { kind: 'Schedule', reason: 'ScaleSchedule' },
    ],
    [
      'explicit reschedule',
      settled({
        replicas: 2,
        placement: divided,
        clusters: { a: 2 },
        rescheduleTriggeredAt: '2026-01-02T00:00:00Z',
        lastScheduledTime: '2026-01-01T00:00:00Z',
      }),
      none,
      { kind: 'Schedule', reason: 'Reschedule' },
    ],
    [
      'Duplicated is always scheduled',
      settled({ replicas: 2, placement: {}, clusters: { a: 2 } }),
      none,
      { kind: 'Schedule', reason: 'AlwaysSchedule' },
    ],
    [
      'non-workloads are always scheduled',
      settled({ replicas: 0, placement: divided, clusters: [{ name: 'a' }] }),
      none,
      { kind: 'Schedule', reason: 'AlwaysSchedule' },
    ],
    [
      'a target cluster is being deleted',
      settled({ replicas: 2, placement: divided, clusters: { a: 2 } }),
      new Set(['a']),
      { kind: 'Schedule', reason: 'TerminatingTargets' },
    ],
    [
      'settled',
      settled({ replicas: 2, placement: divided, clusters: { a: 2 } }),
      new Set(['x']),
      { kind: 'Skip', observedGeneration: undefined },
    ],
    [
      'settled but the observed generation lags',
      settled({ replicas: 2, placement: divided, clusters: { a: 2 } }, { generation: 4, observed: 3 }),
      none,
      { kind: 'Skip', observedGeneration: 4 },
    ],
  ])('%s', (_name, binding, terminating, expected) => {
    expect(decideScheduling(binding, terminating)).toEqual(expected);
  });
});

describe('isPlacementChanged', () => {
  const terms: Placement = {
    clusterAffinities: [
      { affinityName: 'primary', clusterNames: ['a'] },
      { affinityName: 'backup', clusterNames: ['b'] },
    ],
  };
  const withTerm = (name: string, names: string[]): Placement => ({
    clusterAffinities: (terms.clusterAffinities ?? []).map((t) =>
      t.affinityName === name ? { ...t, clusterNames: names } : t,
    ),
  });
  it.each<[string, Placement, string | undefined, string, boolean]>([
    ['no annotation', divided, undefined, '', true],
    ['empty annotation', divided, '', '', true],
    ['unreadable annotation', divided, '{not json', '', false],
    ['identical', divided, JSON.stringify(divided), '', false],
    [
      'empty lists read as absent',
      { ...divided, clusterTolerations: [] },
      JSON.stringify(divided),
      '',
      false,
    ],
    [
      'tolerations changed',
      { ...divided, clusterTolerations: [{ operator: 'Exists' }] },
      JSON.stringify(divided),
      '',
      true,
    ],
    [
      'spread changed',
      { ...divided, spreadConstraints: [{ maxGroups: 1 }] },
      JSON.stringify(divided),
      '',
      true,
    ],
    [
      'any other difference counts when no term is observed',
      { ...divided, workloadAffinity: { affinity: { groupByLabelKey: 'k' } } },
      JSON.stringify(divided),
      '',
      true,
    ],
    [
      'workload affinity does not count when a term is observed',
      { ...terms, workloadAffinity: { affinity: { groupByLabelKey: 'k' } } },
      JSON.stringify(terms),
      'primary',
      false,
    ],
    ['terms differ and no term is observed', withTerm('backup', ['c']), JSON.stringify(terms), '', true],
    [
      'a term other than the observed one changed',
      withTerm('backup', ['c']),
      JSON.stringify(terms),
      'primary',
      false,
    ],
    ['the observed term changed', withTerm('primary', ['c']), JSON.stringify(terms), 'primary', true],
    [
      'the observed term is gone',
      { clusterAffinities: [{ affinityName: 'backup', clusterNames: ['b'] }] },
      JSON.stringify(terms),
      'primary',
      true,
    ],
  ])('%s → %s', (...[, placement, applied, observed, changed]) => {
    expect(isPlacementChanged(placement, applied, observed)).toBe(changed);
  });
});

describe('areReplicasChanged', () => {
  it.each<[string, BindingOptions, boolean]>([
    ['no replica scheduling', { replicas: 3, clusters: { a: 1 } }, false],
    ['Divided adding up', { replicas: 3, clusters: { a: 1, b: 2 }, placement: divided }, false],
    ['Divided short', { replicas: 3, clusters: { a: 1 }, placement: divided }, true],
    ['Divided over', { replicas: 3, clusters: { a: 4 }, placement: divided }, true],
    [
      'Duplicated all equal',
      { replicas: 3, clusters: { a: 3, b: 3 }, placement: { replicaScheduling: duplicated } },
      false,
    ],
    [
      'Duplicated one differs',
      { replicas: 3, clusters: { a: 3, b: 2 }, placement: { replicaScheduling: duplicated } },
      true,
    ],
  ])('%s → %s', (_name, o, changed) => {
    const b = bindingObject(o);
    expect(areReplicasChanged(b.spec, b.spec.placement?.replicaScheduling)).toBe(changed);
  });
});
