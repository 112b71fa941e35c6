import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Candidate } from '../candidate.ts';
import type { NameOrder } from '../name-order.ts';
import { candidate, replicasOf } from '../test-builders.ts';
import { assignDynamic, type DynamicInput } from './dynamic.ts';

/** Candidates in the given (selection) order with their allocatable replicas. */
const cands = (
  allocatable: Readonly<Record<string, number>>,
  previous: Readonly<Record<string, number>> = {},
) =>
  Object.entries(allocatable).map(([name, a]) =>
    candidate(name, { allocatable: a, available: a + (previous[name] ?? 0) }),
  );

function run(
  replicas: number,
  allocatable: Readonly<Record<string, number>>,
  o: { previous?: Record<string, number>; aggregated?: boolean; fresh?: boolean; order?: NameOrder } = {},
) {
  const previous = o.previous ?? {};
  return assignDynamic({
    replicas,
    candidates: cands(allocatable, previous),
    previous: new Map(Object.entries(previous)),
    fresh: o.fresh ?? false,
    aggregated: o.aggregated ?? false,
    order: o.order ?? 'ascending',
  });
}

const ok = (out: ReturnType<typeof run>) => {
  if (!out.ok) throw new Error(out.failure.message);
  return replicasOf(out.value);
};

describe('assignDynamic: worked examples', () => {
  it.each<[string, () => ReturnType<typeof run>, Record<string, number>]>([
    ['DynamicWeight first schedule 18/12/6', () => run(12, { A: 18, B: 12, C: 6 }), { A: 6, B: 4, C: 2 }],
    ['DynamicWeight first schedule 20/12/6', () => run(12, { A: 20, B: 12, C: 6 }), { A: 6, B: 4, C: 2 }],
    ['DynamicWeight first schedule 6/12/6', () => run(12, { B: 12, A: 6, C: 6 }), { A: 3, B: 6, C: 3 }],
    [
      'Aggregated first schedule B=12, A=6, C=6',
      () => run(12, { B: 12, A: 6, C: 6 }, { aggregated: true }),
      { B: 12 },
    ],
    [
      'Aggregated first schedule 6/6/6',
      () => run(12, { A: 6, B: 6, C: 6 }, { aggregated: true }),
      { A: 6, B: 6 },
    ],
    [
      'Aggregated first schedule 8/6/3',
      () => run(10, { A: 8, B: 6, C: 3 }, { aggregated: true }),
      { A: 6, B: 4 },
    ],
    [
      'scale down, DynamicWeight',
      () => run(5, { A: 50, B: 50 }, { previous: { A: 6, B: 4 } }),
      { A: 3, B: 2 },
    ],
    [
      'scale down, Aggregated',
      () => run(5, { A: 50, B: 50 }, { previous: { A: 6, B: 4 }, aggregated: true }),
      { A: 5 },
    ],
    [
      'scale up, Aggregated: clusters holding replicas first',
      () => run(10, { B: 3, A: 10, C: 8 }, { previous: { B: 4 }, aggregated: true }),
      { A: 5, B: 5 },
    ],
    ['tie on priority', () => run(5, { B: 7, C: 3 }), { B: 3, C: 2 }],
    ['failover first schedule', () => run(10, { A: 20, B: 10, C: 10 }), { A: 5, B: 3, C: 2 }],
    [
      'failover first schedule, odd UID',
      () => run(10, { A: 20, B: 10, C: 10 }, { order: 'descending' }),
      { A: 5, B: 2, C: 3 },
    ],
    [
      'failover refill after A was evicted',
      () => run(10, { B: 7, C: 8 }, { previous: { B: 3, C: 2 } }),
      { B: 5, C: 5 },
    ],
  ])('%s', (_name, act, expected) => {
    expect(ok(act())).toEqual(expected);
  });
});

describe('assignDynamic: modes', () => {
  it('keeps the placement when it already holds the replicas', () => {
    expect(ok(run(5, { A: 0, B: 0 }, { previous: { A: 2, B: 3 } }))).toEqual({ A: 2, B: 3 });
  });

  it('drops replicas on clusters that are no longer candidates and refills them', () => {
    expect(ok(run(6, { A: 10, B: 10 }, { previous: { A: 3, gone: 3 } }))).toEqual({ A: 5, B: 1 });
  });

  it('divides everything anew when a reschedule was asked for', () => {
    // Steady keeps A:9 and divides 1; Fresh weighs A 1+9=10 against B 10 and divides all 10.
    expect(ok(run(10, { A: 1, B: 10 }, { previous: { A: 9 } }))).toEqual({ A: 9, B: 1 });
    expect(ok(run(10, { A: 1, B: 10 }, { previous: { A: 9 }, fresh: true }))).toEqual({ A: 5, B: 5 });
  });

  it('is Unschedulable when the candidates cannot take the replicas to divide', () => {
    expect(run(10, { A: 3, B: 2 }, { previous: { A: 4 } })).toEqual({
      ok: false,
      failure: {
        kind: 'Unschedulable',
        message: 'Clusters available replicas 5 are not enough to schedule.',
      },
    });
  });

  it('lists divided clusters by name, then kept clusters that got nothing new', () => {
    const out = run(8, { Z: 0, B: 10, A: 10 }, { previous: { Z: 4 } });
    expect(out.ok && out.value.map((t) => t.name)).toEqual(['A', 'B', 'Z']);
  });

  it('starts the Aggregated prefix with clusters holding replicas, even with less room', () => {
    // 2 to divide: B (room 1) comes first and is not enough alone, so A joins; Webster 2 over B:1, A:100.
    expect(ok(run(4, { A: 100, B: 1 }, { previous: { B: 2 }, aggregated: true }))).toEqual({ A: 2, B: 2 });
    // 1 to divide: B alone suffices although A has more room.
    expect(ok(run(3, { A: 100, B: 1 }, { previous: { B: 2 }, aggregated: true }))).toEqual({ B: 3 });
  });
});

const scenario = fc
  .uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { minLength: 1, maxLength: 6 })
  .chain((names) =>
    fc.record({
      replicas: fc.integer({ min: 0, max: 200 }),
      allocatable: fc.tuple(...names.map(() => fc.integer({ min: 0, max: 100 }))),
      previous: fc.tuple(...names.map(() => fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }))),
      aggregated: fc.boolean(),
      fresh: fc.boolean(),
      order: fc.constantFrom<NameOrder>('ascending', 'descending'),
      names: fc.constant(names),
    }),
  );

function toInput(s: {
  replicas: number;
  allocatable: number[];
  previous: (number | undefined)[];
  aggregated: boolean;
  fresh: boolean;
  order: NameOrder;
  names: string[];
}): DynamicInput {
  const previous = new Map<string, number>();
  s.names.forEach((n, i) => {
    const p = s.previous[i];
    if (p !== undefined) previous.set(n, p);
  });
  const candidates: Candidate[] = s.names.map((n, i) => {
    const a = s.allocatable[i] ?? 0;
    return candidate(n, { allocatable: a, available: a + (previous.get(n) ?? 0) });
  });
  return {
    replicas: s.replicas,
    candidates,
    previous,
    fresh: s.fresh,
    aggregated: s.aggregated,
    order: s.order,
  };
}

describe('assignDynamic: properties', () => {
  it('places exactly the replicas, none negative, no cluster twice, only candidates', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const out = assignDynamic(toInput(s));
        if (!out.ok) return;
        const names = out.value.map((t) => t.name);
        expect(out.value.reduce((sum, t) => sum + (t.replicas ?? 0), 0)).toBe(s.replicas);
        expect(out.value.every((t) => (t.replicas ?? 0) > 0)).toBe(true);
        expect(new Set(names).size).toBe(names.length);
        expect(names.every((n) => (s.names as readonly string[]).includes(n))).toBe(true);
      }),
    );
  });

  it('never takes replicas away from a cluster when scaling up (Steady)', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const input = { ...toInput(s), fresh: false };
        const held = [...input.previous.values()].reduce((a, b) => a + b, 0);
        if (held >= input.replicas) return;
        const out = assignDynamic(input);
        if (!out.ok) return;
        const result = new Map(out.value.map((t) => [t.name, t.replicas ?? 0]));
        for (const [name, r] of input.previous) expect(result.get(name) ?? 0).toBeGreaterThanOrEqual(r);
      }),
    );
  });

  it('fails only as Unschedulable', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const out = assignDynamic(toInput(s));
        if (out.ok) return;
        expect(out.failure.kind).toBe('Unschedulable');
      }),
    );
  });

  it('is repeatable', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        expect(assignDynamic(toInput(s))).toEqual(assignDynamic(toInput(s)));
      }),
    );
  });
});
