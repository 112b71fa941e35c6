import { describe, expect, it } from 'vitest';
import { ResyncLedger } from './resync-ledger.ts';

describe('ResyncLedger', () => {
  it('holds a key never handed out as due', () => {
    expect(new ResyncLedger(60_000).isDue('a', 0)).toBe(true);
  });

  it('holds a key due exactly one period after a worker took it, not before', () => {
    const ledger = new ResyncLedger(60_000);
    ledger.handedOut('a', 1_000);
    expect(ledger.isDue('a', 1_000)).toBe(false);
    expect(ledger.isDue('a', 60_999)).toBe(false);
    expect(ledger.isDue('a', 61_000)).toBe(true);
    expect(ledger.isDue('b', 1_000)).toBe(true);
  });

  it('counts from the latest hand-out', () => {
    const ledger = new ResyncLedger(10_000);
    ledger.handedOut('a', 0);
    ledger.handedOut('a', 9_000);
    expect(ledger.isDue('a', 10_000)).toBe(false);
    expect(ledger.isDue('a', 19_000)).toBe(true);
  });

  it('is never due early by more than its tenth-of-a-second grain', () => {
    const ledger = new ResyncLedger(5_000);
    ledger.handedOut('a', 1_099);
    expect(ledger.isDue('a', 6_000)).toBe(true); // 4.901 s after, within the grain
    expect(ledger.isDue('a', 5_999)).toBe(false);
  });

  it('forgets the keys no source names any more', () => {
    const ledger = new ResyncLedger(60_000);
    for (const key of ['a', 'b', 'c']) ledger.handedOut(key, 0);
    expect(ledger.prune((key) => key !== 'b')).toBe(1);
    expect(ledger.size).toBe(2);
    expect(ledger.isDue('b', 1)).toBe(true);
    expect(ledger.isDue('a', 1)).toBe(false);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('rejects a period of %s ms', (period) => {
    expect(() => new ResyncLedger(period)).toThrow(/resync period must be a positive number of ms/);
  });
});
