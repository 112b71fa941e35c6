import { describe, expect, it } from 'vitest';
import { systemClock } from './clock.ts';

describe('systemClock', () => {
  it('reads wall and monotonic time', () => {
    const before = Date.now();
    expect(systemClock.now()).toBeGreaterThanOrEqual(before);
    const a = systemClock.monotonic();
    expect(systemClock.monotonic()).toBeGreaterThanOrEqual(a);
  });

  it('sleeps', async () => {
    await expect(systemClock.sleep(1)).resolves.toBeUndefined();
  });

  it('rejects with the abort reason, at once when already aborted', async () => {
    const stop = new AbortController();
    stop.abort(new Error('stopping'));
    await expect(systemClock.sleep(60_000, stop.signal)).rejects.toThrow('stopping');
  });

  it('rejects when aborted while sleeping', async () => {
    const stop = new AbortController();
    const sleeping = systemClock.sleep(60_000, stop.signal);
    stop.abort();
    await expect(sleeping).rejects.toThrow();
  });
});
