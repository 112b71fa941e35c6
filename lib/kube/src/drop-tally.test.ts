import { describe, expect, it } from 'vitest';
import { DropTally } from './drop-tally.ts';

describe('DropTally', () => {
  it('tells of the first drop at once', () => {
    expect(new DropTally(10_000).dropped(0)).toBe(1);
  });

  it('stays quiet within the interval, then tells how many went since', () => {
    const tally = new DropTally(10_000);
    expect(tally.dropped(0)).toBe(1);
    const quiet = [1, 2, 3, 9_999].map((t) => tally.dropped(t));
    expect(quiet).toEqual([undefined, undefined, undefined, undefined]);
    expect(tally.dropped(10_000)).toBe(5);
    expect(tally.dropped(10_001)).toBeUndefined();
    expect(tally.dropped(20_000)).toBe(2);
  });

  it('stays quiet while a full queue keeps and drops by turns, once per interval', () => {
    const tally = new DropTally(10_000);
    const told: number[] = [];
    for (let t = 0; t < 25_000; t += 100) {
      const d = tally.dropped(t);
      if (d !== undefined) told.push(d);
      const k = tally.kept(t + 50);
      if (k !== undefined) told.push(k);
    }
    // At 0, 10,000 and 20,000: the 250 drops in three words.
    expect(told).toEqual([1, 100, 100]);
    expect(tally.rest(25_000)).toBe(49);
  });

  it('tells what went untold with the first thing kept once the interval is over', () => {
    const tally = new DropTally(10_000);
    tally.dropped(0);
    tally.dropped(1);
    tally.dropped(2);
    expect(tally.kept(5_000)).toBeUndefined();
    expect(tally.kept(10_000)).toBe(2);
    expect(tally.kept(20_000)).toBeUndefined();
  });

  it('tells the rest when asked, and nothing when all was told', () => {
    const tally = new DropTally(10_000);
    expect(tally.rest(0)).toBeUndefined();
    tally.dropped(0);
    expect(tally.rest(1)).toBeUndefined();
    tally.dropped(2);
    tally.dropped(3);
    expect(tally.rest(4)).toBe(2);
    expect(tally.rest(5)).toBeUndefined();
  });

  it('tells the first drop after a quiet interval at once', () => {
    const tally = new DropTally(10_000);
    tally.dropped(0);
    expect(tally.dropped(30_000)).toBe(1);
  });
});
