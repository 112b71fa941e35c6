import { describe, expect, it } from 'vitest';
import { ResyncLedger } from './resync-ledger.ts';

describe('ResyncLedger', () => {
  it('takes a key due exactly one period after a worker took it, not before', () => {
    const ledger = new ResyncLedger(60_000);
    ledger.handedOut('a', 1_000);
    expect(ledger.takeDue(1_000)).toEqual([]);
    expect(ledger.takeDue(60_999)).toEqual([]);
    expect(ledger.takeDue(61_000)).toEqual(['a']);
  });

  it('counts from the latest hand-out', () => {
    const ledger = new ResyncLedger(10_000);
    ledger.handedOut('a', 0);
    ledger.handedOut('b', 1_000);
    ledger.handedOut('a', 9_000);
    expect(ledger.takeDue(11_000)).toEqual(['b']);
    expect(ledger.takeDue(19_000)).toEqual(['a']);
  });

  it('returns every due key and stamps it, so it is not due again for a period', () => {
    const ledger = new ResyncLedger(10_000);
    ledger.handedOut('c', 0);
    ledger.handedOut('a', 2_000);
    ledger.handedOut('d', 9_000);
    ledger.handedOut('b', 4_000);
    ledger.handedOut('c', 5_000); // taken again: due later than a and b
    expect([...ledger.takeDue(14_000)].sort()).toEqual(['a', 'b']);
    expect([...ledger.takeDue(19_000)].sort()).toEqual(['c', 'd']);
    expect(ledger.takeDue(23_999)).toEqual([]);
    expect([...ledger.takeDue(24_000)].sort()).toEqual(['a', 'b']);
    expect([...ledger.takeDue(29_000)].sort()).toEqual(['c', 'd']);
  });

  it('is never due early by more than its tenth-of-a-second grain', () => {
    const ledger = new ResyncLedger(5_000);
    ledger.handedOut('a', 1_099);
    expect(ledger.takeDue(5_999)).toEqual([]);
    expect(ledger.takeDue(6_000)).toEqual(['a']); // 4.901 s after, within the grain
  });

  it('sweeps: forgets the keys no longer named and returns, stamped, those never taken', () => {
    const ledger = new ResyncLedger(10_000);
    for (const key of ['a', 'b', 'c']) ledger.handedOut(key, 0);
    expect(ledger.sweep(['a', 'c', 'n'], 5_000)).toEqual(['n']);
    expect([...ledger.takeDue(10_000)].sort()).toEqual(['a', 'c']); // b forgotten
    expect(ledger.takeDue(15_000)).toEqual(['n']);
    expect(ledger.sweep(['a', 'c', 'n'], 16_000)).toEqual([]);
  });

  it('keeps the period it was given', () => {
    expect(new ResyncLedger(60_000).periodMs).toBe(60_000);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('rejects a period of %s ms', (period) => {
    expect(() => new ResyncLedger(period)).toThrow(/resync period must be a positive number of ms/);
  });
});
