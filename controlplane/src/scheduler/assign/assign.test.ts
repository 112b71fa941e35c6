import type { Placement } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { candidate, binding, replicasOf, dynamicWeight, staticWeights } from '../test-builders.ts';
import type { BindingOptions } from '../test-builders.ts';
import { assignReplicas, type AssignOptions } from './assign.ts';

const selected = [candidate('b', { allocatable: 10 }), candidate('a', { allocatable: 10 })];
const plain: AssignOptions = { emptyWorkloadPropagation: false, tiered: false };

function assign(o: BindingOptions, options: AssignOptions = plain, cs = selected) {
  const b = binding(o);
  return assignReplicas(b, (b.placement ?? { strategy: { kind: 'Duplicated' } }).strategy, cs, options);
}

describe('assignReplicas', () => {
  it('refuses an empty selection', () => {
    expect(assign({ replicas: 3 }, plain, [])).toEqual({
      ok: false,
      failure: { kind: 'SchedulerError', message: 'no clusters available to schedule' },
    });
  });

  it.each<[string, Placement, Record<string, number | undefined>]>([
    ['Duplicated gives every cluster all replicas', {}, { b: 4, a: 4 }],
    ['static weights', { replicaScheduling: staticWeights({ a: 1, b: 3 }) }, { a: 1, b: 3 }],
    ['dynamic weights', { replicaScheduling: dynamicWeight }, { a: 2, b: 2 }],
  ])('workloads: %s', (_name, placement, expected) => {
    const out = assign({ replicas: 4, placement });
    expect(out.ok && replicasOf(out.value)).toEqual(expected);
  });

  it('drops clusters left without replicas', () => {
    const out = assign({ replicas: 1, placement: { replicaScheduling: staticWeights({ a: 1, b: 1 }) } });
    expect(out.ok && out.value).toEqual([{ name: 'a', replicas: 1 }]);
  });

  it('keeps selection order for Duplicated', () => {
    const out = assign({ replicas: 2 });
    expect(out.ok && out.value.map((t) => t.name)).toEqual(['b', 'a']);
  });

  it('lists every cluster without replicas for non-workloads', () => {
    expect(assign({ replicas: 0, placement: { replicaScheduling: dynamicWeight } })).toEqual({
      ok: true,
      value: [{ name: 'b' }, { name: 'a' }],
    });
  });

  it('lists every cluster without replicas for multi-template workloads', () => {
    expect(assign({ replicas: 4, components: 2 })).toEqual({
      ok: true,
      value: [{ name: 'b' }, { name: 'a' }],
    });
  });

  it('treats a workload with requirements but no replicas as a workload (nothing placed)', () => {
    expect(assign({ replicas: 0, requests: { cpu: '1' } })).toEqual({ ok: true, value: [] });
  });

  it('appends selected clusters without replicas with empty workload propagation', () => {
    const out = assign(
      { replicas: 1, placement: { replicaScheduling: staticWeights({ a: 1, b: 1 }) } },
      { ...plain, emptyWorkloadPropagation: true },
    );
    expect(out.ok && out.value).toEqual([{ name: 'a', replicas: 1 }, { name: 'b' }]);
  });

  it('refuses Divided without a division preference', () => {
    const out = assign({
      replicas: 2,
      placement: { replicaScheduling: { replicaSchedulingType: 'Divided' } },
    });
    expect(out).toEqual({
      ok: false,
      failure: { kind: 'SchedulerError', message: 'unsupported replica scheduling strategy' },
    });
  });

  it('fills overflow tiers in order when tiered', () => {
    const cs = [
      candidate('own', { allocatable: 2 }),
      candidate('burst', { overflowOrder: 1, allocatable: 10 }),
    ];
    const out = assign(
      { replicas: 5, placement: { replicaScheduling: dynamicWeight } },
      { ...plain, tiered: true },
      cs,
    );
    expect(out.ok && replicasOf(out.value)).toEqual({ own: 2, burst: 3 });
  });
});
