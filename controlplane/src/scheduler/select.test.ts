import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SpreadView } from './binding-view.ts';
import { compareCandidates, type Candidate } from './candidate.ts';
import { selectByCluster, selectClusters, type SelectionPolicy } from './select.ts';
import { candidate } from './test-builders.ts';

const spread = (
  field: SpreadView['field'],
  minGroups: number,
  maxGroups: number,
  label?: string,
): SpreadView => ({
  field,
  label,
  minGroups,
  maxGroups,
});
const policy = (o: Partial<SelectionPolicy> = {}): SelectionPolicy => ({
  spreadConstraints: [],
  staticWeighting: false,
  needReplicas: -1,
  replicas: 0,
  duplicated: true,
  ...o,
});
const names = (out: ReturnType<typeof selectClusters>) =>
  out.ok ? out.value.map((c) => c.name) : out.failure.message;
const ranked = (avail: Readonly<Record<string, number>>): Candidate[] =>
  Object.entries(avail).map(([name, a]) => candidate(name, { allocatable: a }));

describe('selectClusters', () => {
  const abc = ranked({ a: 5, b: 4, c: 3 });
  it.each<[string, SelectionPolicy, string[] | string]>([
    ['no spread constraints: all, in order', policy(), ['a', 'b', 'c']],
    [
      'static weights ignore spread constraints',
      policy({ staticWeighting: true, spreadConstraints: [spread('cluster', 1, 1)] }),
      ['a', 'b', 'c'],
    ],
    ['cluster constraint', policy({ spreadConstraints: [spread('cluster', 1, 2)] }), ['a', 'b']],
    [
      'zone-only constraints are not supported',
      policy({ spreadConstraints: [spread('zone', 1, 2)] }),
      'just support cluster and region spread constraint',
    ],
    [
      'label constraints are not supported',
      policy({ spreadConstraints: [spread(undefined, 1, 2, 'team')] }),
      'just support cluster and region spread constraint',
    ],
    [
      'provider with cluster uses the cluster algorithm',
      policy({ spreadConstraints: [spread('provider', 1, 1), spread('cluster', 1, 1)] }),
      ['a'],
    ],
  ])('%s', (_name, p, expected) => {
    expect(names(selectClusters(abc, p))).toEqual(expected);
  });

  it('uses the region algorithm when a region constraint exists', () => {
    const cs = [
      candidate('a', { region: 'r1' }),
      candidate('b', { region: 'r1' }),
      candidate('c', { region: 'r2' }),
    ];
    const out = selectClusters(
      cs,
      policy({ spreadConstraints: [spread('region', 2, 2), spread('cluster', 2, 2)] }),
    );
    expect(names(out)).toEqual(['a', 'c']);
  });
});

describe('selectByCluster', () => {
  it.each<[string, Record<string, number>, SpreadView, number, string[] | string]>([
    [
      'fewer clusters than minGroups',
      { a: 1 },
      spread('cluster', 2, 3),
      -1,
      'the number of feasible clusters is less than spreadConstraint.MinGroups',
    ],
    ['takes the first maxGroups clusters', { a: 1, b: 1, c: 1 }, spread('cluster', 1, 2), -1, ['a', 'b']],
    ['maxGroups above the count takes all', { a: 1, b: 1 }, spread('cluster', 1, 5), -1, ['a', 'b']],
    ['maxGroups 0 selects nothing', { a: 1, b: 1 }, spread('cluster', 1, 0), -1, []],
    ['the first ones hold the replicas', { a: 50, b: 40, c: 60 }, spread('cluster', 1, 2), 80, ['a', 'b']],
    [
      'swaps the weakest for a roomier one',
      { m1: 40, m2: 30, m3: 60 },
      spread('cluster', 2, 2),
      80,
      ['m1', 'm3'],
    ],
    [
      'swaps from the last pick backwards',
      { a: 10, b: 10, c: 30, d: 40 },
      spread('cluster', 1, 2),
      70,
      ['c', 'd'],
    ],
    [
      'picks the first of equally roomy clusters',
      { a: 10, b: 5, c: 20, d: 20 },
      spread('cluster', 1, 2),
      30,
      ['a', 'c'],
    ],
    [
      'no swap can help',
      { a: 10, b: 5, c: 1 },
      spread('cluster', 1, 2),
      30,
      'no enough resource when selecting 2 clusters',
    ],
  ])('%s', (...[, avail, constraint, need, expected]) => {
    expect(names(selectByCluster(ranked(avail), constraint, need))).toEqual(expected);
  });
});

describe('selectClusters: properties', () => {
  const arb = fc.record({
    avail: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), { minLength: 1 }).chain((ns) =>
      fc.tuple(
        ...ns.map((n) =>
          fc.record({
            name: fc.constant(n),
            a: fc.integer({ min: 0, max: 50 }),
            score: fc.constantFrom(0, 100),
          }),
        ),
      ),
    ),
    maxGroups: fc.integer({ min: 0, max: 8 }),
    need: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 200 })),
  });

  it('selects distinct input clusters, at most maxGroups, holding the needed replicas', () => {
    fc.assert(
      fc.property(arb, ({ avail, maxGroups, need }) => {
        const input = avail
          .map((x) => candidate(x.name, { allocatable: x.a, score: x.score }))
          .sort(compareCandidates);
        const out = selectClusters(
          input,
          policy({ spreadConstraints: [spread('cluster', 1, maxGroups)], needReplicas: need }),
        );
        if (!out.ok) return;
        const picked = out.value.map((c) => c.name);
        expect(new Set(picked).size).toBe(picked.length);
        expect(picked.every((n) => avail.some((x) => x.name === n))).toBe(true);
        expect(picked.length).toBeLessThanOrEqual(maxGroups);
        if (need >= 0) expect(out.value.reduce((s, c) => s + c.available, 0)).toBeGreaterThanOrEqual(need);
      }),
    );
  });
});
