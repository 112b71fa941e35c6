import { describe, expect, it } from 'vitest';
import { paceWhile, startPace, takeToken, type EventPace, type PaceState } from './event-pace.ts';

/** Takes tokens at `nowMs` until one must wait; how many were taken and the wait. */
function drain(
  pace: EventPace,
  state: PaceState,
  nowMs: number,
): { taken: number; waitMs: number; state: PaceState } {
  let s = state;
  for (let taken = 0; ; taken++) {
    const r = takeToken(pace, s, nowMs);
    if (r.waitMs > 0) return { taken, waitMs: r.waitMs, state: r.state };
    s = r.state;
    if (taken > 10_000) throw new Error('never waits');
  }
}

describe('event pace', () => {
  const pace: EventPace = { ratePerSecond: 50, burst: 100 };

  it('allows the burst at once, then one write every 1/rate seconds', () => {
    const first = drain(pace, startPace(pace, 0), 0);
    expect(first.taken).toBe(100);
    expect(first.waitMs).toBe(20);
    const later = drain(pace, first.state, 20);
    expect(later.taken).toBe(1);
    expect(later.waitMs).toBe(20);
  });

  it('refills over time, never beyond the burst', () => {
    const spent = drain(pace, startPace(pace, 0), 0).state;
    expect(drain(pace, spent, 1_000).taken).toBe(50);
    expect(drain(pace, spent, 60_000).taken).toBe(100);
  });

  it('refills nothing when the clock goes back', () => {
    const spent = drain(pace, startPace(pace, 10_000), 10_000).state;
    expect(drain(pace, spent, 5_000).taken).toBe(0);
  });

  it('does not pace at a rate of 0 or less', () => {
    for (const ratePerSecond of [0, -1]) {
      const unpaced = { ratePerSecond, burst: 1 };
      let state = startPace(unpaced, 0);
      for (let i = 0; i < 1_000; i++) {
        const r = takeToken(unpaced, state, 0);
        expect(r.waitMs).toBe(0);
        state = r.state;
      }
    }
  });

  it('treats a burst below 1 as 1', () => {
    const tight = { ratePerSecond: 10, burst: 0 };
    const r = drain(tight, startPace(tight, 0), 0);
    expect(r.taken).toBe(1);
    expect(r.waitMs).toBe(100);
  });
});

describe('event pace while busy', () => {
  const pace: EventPace = { ratePerSecond: 50, burst: 100, busyRatePerSecond: 5 };

  it('is the pace itself when not busy', () => {
    expect(paceWhile(pace, false)).toBe(pace);
  });

  it('gives one write at once from a full bucket, then one every 1/busy rate seconds', () => {
    const busy = paceWhile(pace, true);
    expect(busy).toEqual({ ratePerSecond: 5, burst: 1 });
    const first = drain(busy, startPace(pace, 0), 0);
    expect(first.taken).toBe(1);
    expect(first.waitMs).toBe(200);
    expect(drain(busy, first.state, 10_000).taken).toBe(1);
  });

  it('refills toward the burst at the idle rate once the busy spell ends', () => {
    const spent = drain(paceWhile(pace, true), startPace(pace, 0), 0).state;
    expect(drain(pace, spent, 1_000).taken).toBe(50);
    expect(drain(pace, spent, 60_000).taken).toBe(100);
  });

  it('changes nothing without a busy rate, at a busy rate of 0 or less, or without a pace', () => {
    for (const p of [
      { ratePerSecond: 50, burst: 100 },
      { ratePerSecond: 50, burst: 100, busyRatePerSecond: 0 },
      { ratePerSecond: 50, burst: 100, busyRatePerSecond: -1 },
      { ratePerSecond: 0, burst: 100, busyRatePerSecond: 5 },
    ]) {
      expect(paceWhile(p, true)).toBe(p);
    }
  });
});
