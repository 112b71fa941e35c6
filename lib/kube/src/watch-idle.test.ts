import { describe, expect, it } from 'vitest';
import { DEFAULT_WATCH_IDLE_MS, watchIdleTimeoutMs } from './watch-cache.ts';

describe('watchIdleTimeoutMs', () => {
  it('gives up a watch silent for 2.5 minutes: over twice the API server bookmark period', () => {
    expect(DEFAULT_WATCH_IDLE_MS).toBe(150_000);
    expect(watchIdleTimeoutMs(undefined, 300)).toBe(150_000);
    expect(watchIdleTimeoutMs(undefined, 600)).toBe(150_000);
  });

  it("takes the watch's own timeout + 30 s when that is shorter, and a given timeout as it is", () => {
    expect(watchIdleTimeoutMs(undefined, 60)).toBe(90_000);
    expect(watchIdleTimeoutMs(300, 600)).toBe(300);
  });
});
