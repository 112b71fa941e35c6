import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callDeadline } from './call-deadline.ts';

describe('callDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts with a TimeoutError at the deadline', () => {
    const d = callDeadline(1_000);
    vi.advanceTimersByTime(999);
    expect(d.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('rounds a fraction of a millisecond up, and never waits less than one', () => {
    const d = callDeadline(0.2);
    vi.advanceTimersByTime(0);
    expect(d.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.signal.aborted).toBe(true);
  });

  it("aborts with the caller's signal and its reason", () => {
    const caller = new AbortController();
    const d = callDeadline(1_000, caller.signal);
    caller.abort(new Error('stopping'));
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as Error).message).toBe('stopping');
  });

  it('holds no timer once released', () => {
    const d = callDeadline(1_000);
    expect(vi.getTimerCount()).toBe(1);
    d.release();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5_000);
    expect(d.signal.aborted).toBe(false);
  });
});
