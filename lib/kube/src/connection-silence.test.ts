import { describe, expect, it } from 'vitest';
import { silenceLimitMs, silenceVerdict, type PoolHearing } from './connection-silence.ts';

const rule = { pingIntervalMs: 1_000, connectTimeoutMs: 3_000 };
const quiet: PoolHearing = {
  nowMs: 100_000,
  lastHeardMs: 0,
  unansweredSinceMs: undefined,
  oldestWaitingSinceMs: undefined,
  roundTripMs: 0,
};

describe('silenceLimitMs', () => {
  it('is three PING intervals and two round trips', () => {
    expect(silenceLimitMs(rule, 0)).toBe(3_000);
    expect(silenceLimitMs(rule, 2_500)).toBe(8_000);
    expect(silenceLimitMs({ ...rule, pingIntervalMs: 5_000 }, 100)).toBe(15_200);
    expect(silenceLimitMs(rule, -5)).toBe(3_000);
  });
});

describe('silenceVerdict', () => {
  it('says nothing of a connection that was not asked anything, however long it was quiet', () => {
    expect(silenceVerdict(quiet, rule)).toBeUndefined();
  });

  it('gives up a connection asked something and silent past the limit, not at it', () => {
    const asked = { ...quiet, unansweredSinceMs: 100_000 - 3_000 };
    expect(silenceVerdict(asked, rule)).toBeUndefined();
    expect(silenceVerdict({ ...asked, nowMs: 100_001 }, rule)).toBe('silent');
  });

  it('allows two round trips more over a slow link', () => {
    const asked = { ...quiet, unansweredSinceMs: 100_000 - 7_000, roundTripMs: 2_500 };
    expect(silenceVerdict(asked, rule)).toBeUndefined();
    expect(silenceVerdict({ ...asked, nowMs: 101_001 }, rule)).toBe('silent');
  });

  it('gives up a request that never got onto a connection only past the connect timeout too', () => {
    const waiting = { ...quiet, oldestWaitingSinceMs: 100_000 - 6_000 };
    expect(silenceVerdict(waiting, rule)).toBeUndefined();
    expect(silenceVerdict({ ...waiting, nowMs: 100_001 }, rule)).toBe('stuck');
  });

  it('does not count a request waiting behind others on a connection that is heard from', () => {
    const waiting = { ...quiet, oldestWaitingSinceMs: 50_000, lastHeardMs: 99_000 };
    expect(silenceVerdict(waiting, rule)).toBeUndefined();
    expect(silenceVerdict({ ...waiting, lastHeardMs: 49_999 }, rule)).toBe('stuck');
  });
});
