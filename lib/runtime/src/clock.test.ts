import { describe, expect, it } from 'vitest';
import { MAX_TIMER_DELAY_MS } from './timer-delay.ts';
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

  it("waits out a delay beyond a Node timer's range instead of firing at once", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    const stop = new AbortController();
    try {
      let done = false;
      const sleeping = systemClock.sleep(MAX_TIMER_DELAY_MS + 60_000, stop.signal).then(() => {
        done = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(done).toBe(false);
      stop.abort();
      await sleeping.catch(() => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      stop.abort();
      process.off('warning', onWarning);
    }
  });
});
