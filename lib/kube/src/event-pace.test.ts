import { describe, expect, it } from 'vitest';
import { startPace, takeToken, type EventPace, type PaceState } from './event-pace.ts';

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
