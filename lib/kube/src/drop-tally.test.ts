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

  it('tells what went untold once something is kept again, and nothing when all was told', () => {
    const tally = new DropTally(10_000);
    tally.dropped(0);
    tally.dropped(1);
    tally.dropped(2);
    expect(tally.kept()).toBe(2);
    expect(tally.kept()).toBeUndefined();
    tally.dropped(3);
    expect(tally.kept()).toBeUndefined();
  });

  it('tells the first drop after a kept one at once, however soon', () => {
    const tally = new DropTally(10_000);
    tally.dropped(0);
    tally.dropped(1);
    tally.kept();
    expect(tally.dropped(2)).toBe(1);
  });

  it('says nothing when nothing was ever dropped', () => {
    const tally = new DropTally(10_000);
    expect(tally.kept()).toBeUndefined();
    expect(tally.kept()).toBeUndefined();
  });
});
