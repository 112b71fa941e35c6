import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareNames, type NameOrder } from '../name-order.ts';
import { apportion, type Party } from './webster.ts';

const seatsOf = (seats: number, parties: readonly Party[], order: NameOrder = 'ascending') =>
  Object.fromEntries(apportion(seats, parties, order).map((s) => [s.name, s.seats]));
const weights = (w: Readonly<Record<string, number>>): Party[] =>
  Object.entries(w).map(([name, votes]) => ({ name, votes }));

/** The definition, one seat at a time over every party: the reference the fast path must equal. */
function naive(seats: number, parties: readonly Party[], order: NameOrder): Record<string, number> {
  const s = new Map(parties.map((p) => [p.name, 0]));
  for (let n = 0; n < seats; n++) {
    let best: Party | undefined;
    for (const p of parties) {
      if (best === undefined) {
        best = p;
        continue;
      }
      const bp = best.votes / (2 * s.get(best.name)! + 1);
      const pp = p.votes / (2 * s.get(p.name)! + 1);
      const nameWins = order === 'ascending' ? p.name < best.name : p.name > best.name;
      const seatsP = s.get(p.name)!;
      const seatsB = s.get(best.name)!;
      if (pp > bp || (pp === bp && (seatsP < seatsB || (seatsP === seatsB && nameWins)))) best = p;
    }
    if (best !== undefined) s.set(best.name, s.get(best.name)! + 1);
  }
  return Object.fromEntries(s);
}

describe('apportion: worked examples', () => {
  it.each<[string, number, Record<string, number>, NameOrder, Record<string, number>]>([
    ['static 1:2', 9, { A: 1, B: 2 }, 'ascending', { A: 3, B: 6 }],
    ['static 1:3', 9, { A: 1, B: 3 }, 'ascending', { A: 2, B: 7 }],
    ['static 2:1', 7, { A: 2, B: 1 }, 'ascending', { A: 5, B: 2 }],
    ['equal weights, ascending names', 10, { A: 1, B: 1, C: 1 }, 'ascending', { A: 4, B: 3, C: 3 }],
    [
      'equal weights, descending names (odd UID hash)',
      10,
      { A: 1, B: 1, C: 1 },
      'descending',
      { A: 3, B: 3, C: 4 },
    ],
    ['dynamic 18/12/6', 12, { A: 18, B: 12, C: 6 }, 'ascending', { A: 6, B: 4, C: 2 }],
    ['dynamic 20/12/6', 12, { A: 20, B: 12, C: 6 }, 'ascending', { A: 6, B: 4, C: 2 }],
    ['dynamic 6/12/6', 12, { A: 6, B: 12, C: 6 }, 'ascending', { A: 3, B: 6, C: 3 }],
    ['aggregated prefix 8:6', 10, { A: 8, B: 6 }, 'ascending', { A: 6, B: 4 }],
    ['scale down 6:4', 5, { A: 6, B: 4 }, 'ascending', { A: 3, B: 2 }],
    ['scale up over B:3, A:10', 6, { B: 3, A: 10 }, 'ascending', { A: 5, B: 1 }],
    ['tie on priority: fewer seats wins', 5, { B: 7, C: 3 }, 'ascending', { B: 3, C: 2 }],
    ['failover first schedule 20/10/10', 10, { A: 20, B: 10, C: 10 }, 'ascending', { A: 5, B: 3, C: 2 }],
    ['failover first schedule, odd UID', 10, { A: 20, B: 10, C: 10 }, 'descending', { A: 5, B: 2, C: 3 }],
    ['failover refill 8:7', 5, { C: 8, B: 7 }, 'ascending', { B: 2, C: 3 }],
  ])('%s', (...[, seats, w, order, expected]) => {
    expect(seatsOf(seats, weights(w), order)).toEqual(expected);
  });
});

describe('apportion: edges', () => {
  it('lists zero-seat parties, sorted by name', () => {
    expect(apportion(1, weights({ c: 1, a: 5, b: 1 }), 'ascending')).toEqual([
      { name: 'a', seats: 1 },
      { name: 'b', seats: 0 },
      { name: 'c', seats: 0 },
    ]);
  });

  it('gives zero-vote parties nothing while others have votes', () => {
    expect(seatsOf(50, weights({ a: 0, b: 1, c: 0 }))).toEqual({ a: 0, b: 50, c: 0 });
  });

  it('hands out no seats for zero seats or no parties', () => {
    expect(seatsOf(0, weights({ a: 1 }))).toEqual({ a: 0 });
    expect(apportion(5, [], 'ascending')).toEqual([]);
  });

  it('handles int32-sized seat counts quickly', () => {
    const parties = weights({ a: 2_000_000_000, b: 3, c: 1_234_567 });
    const out = seatsOf(2_147_483_647, parties);
    expect(out['a']! + out['b']! + out['c']!).toBe(2_147_483_647);
    expect(out['b']).toBe(3);
  });
});

const partyList = fc
  .uniqueArray(fc.stringMatching(/^[a-e]{1,3}$/), { minLength: 1, maxLength: 8 })
  .chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc
          .oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 2_000_000 }))
          .map((votes) => ({ name, votes })),
      ),
    ),
  );
const order = fc.constantFrom<NameOrder>('ascending', 'descending');

describe('apportion: properties', () => {
  it('equals the seat-by-seat definition, including after the jump start', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3000 }), partyList, order, (seats, parties, o) => {
        expect(seatsOf(seats, parties, o)).toEqual(naive(seats, parties, o));
      }),
      { numRuns: 300 },
    );
  });

  it('hands out every seat, none negative, to parties with votes when any has votes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), partyList, order, (seats, parties, o) => {
        const out = apportion(seats, parties, o);
        expect(out.reduce((sum, s) => sum + s.seats, 0)).toBe(seats);
        expect(out.every((s) => s.seats >= 0)).toBe(true);
        const voted = new Set(parties.filter((p) => p.votes > 0).map((p) => p.name));
        if (voted.size > 0) expect(out.every((s) => s.seats === 0 || voted.has(s.name))).toBe(true);
      }),
    );
  });

  it('does not depend on the order of the parties and is repeatable', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), partyList, order, (seats, parties, o) => {
        const reversed = [...parties].reverse();
        const sorted = [...parties].sort((a, b) => compareNames(a.name, b.name));
        const first = apportion(seats, parties, o);
        expect(apportion(seats, reversed, o)).toEqual(first);
        expect(apportion(seats, sorted, o)).toEqual(first);
        expect(apportion(seats, parties, o)).toEqual(first);
      }),
    );
  });

  it('never takes a seat away when one more seat is handed out (house monotone)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), partyList, order, (seats, parties, o) => {
        const before = apportion(seats, parties, o);
        const after = apportion(seats + 1, parties, o);
        before.forEach((s, i) => {
          expect(after[i]!.seats).toBeGreaterThanOrEqual(s.seats);
        });
      }),
    );
  });
});
