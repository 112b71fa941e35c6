import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareCandidates, overflowOrderOf, UNMATCHED_OVERFLOW_ORDER } from './candidate.ts';
import type { AttemptTerm } from './framework.ts';
import { candidate, cluster } from './test-builders.ts';

describe('compareCandidates', () => {
  it('orders by overflow tier, score, available replicas, then name', () => {
    const list = [
      candidate('z', { overflowOrder: 1, score: 100, allocatable: 99 }),
      candidate('b', { score: 0, allocatable: 5 }),
      candidate('a', { score: 0, allocatable: 5 }),
      candidate('c', { score: 0, allocatable: 9 }),
      candidate('d', { score: 100, allocatable: 1 }),
    ];
    expect([...list].sort(compareCandidates).map((c) => c.name)).toEqual(['d', 'c', 'a', 'b', 'z']);
  });

  it('is a total order: any input order sorts the same', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const arb = fc.tuple(
      ...names.map((name) =>
        fc
          .record({
            score: fc.constantFrom(0, 100),
            allocatable: fc.integer({ min: 0, max: 3 }),
            overflowOrder: fc.constantFrom(0, 1),
          })
          .map((o) => candidate(name, o)),
      ),
    );
    fc.assert(
      fc.property(arb, (list) => {
        const once = [...list].sort(compareCandidates);
        expect([...list].reverse().sort(compareCandidates)).toEqual(once);
      }),
    );
  });
});

describe('overflowOrderOf', () => {
  const term: AttemptTerm = {
    name: 'primary',
    affinity: { clusterNames: ['own'] },
    overflow: [{ clusterNames: ['burst1'] }, { clusterNames: ['burst1', 'burst2'] }],
  };
  it.each([
    ['own', 0],
    ['burst1', 1],
    ['burst2', 2],
    ['other', UNMATCHED_OVERFLOW_ORDER],
  ])('%s → tier %d', (name, tier) => {
    expect(overflowOrderOf(term, cluster(name))).toBe(tier);
  });

  it('is 0 for a term without overflow that the cluster matches, and without clusterAffinities', () => {
    expect(overflowOrderOf({ ...term, overflow: [] }, cluster('own'))).toBe(0);
    expect(
      overflowOrderOf({ name: '', affinity: { clusterNames: ['own'] }, overflow: [] }, cluster('other')),
    ).toBe(0);
  });
});
