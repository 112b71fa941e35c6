import { describe, expect, it } from 'vitest';
import { livenessDeadlineMs, livenessMarginMs, type LastSuccess } from './liveness-deadline.ts';

/** The defaults: Lease 40 s renewed every 10 s (fraction 0.25). */
const DEFAULTS = { leaseDurationMs: 40_000, intervalMs: 10_000 };
/** The test federation's: Lease 5 s renewed every 1 s. */
const FAST = { leaseDurationMs: 5_000, intervalMs: 1_000 };

const success = (endedAtMs: number, tookMs = 50): LastSuccess => ({ endedAtMs, tookMs });

interface Row {
  readonly name: string;
  readonly timings: { readonly leaseDurationMs: number; readonly intervalMs: number };
  readonly startMs: number;
  readonly lastSuccess: LastSuccess | undefined;
  readonly deadline: number;
}

describe('livenessMarginMs', () => {
  it('is one interval', () => {
    expect(livenessMarginMs(10_000)).toBe(10_000);
    expect(livenessMarginMs(1_000)).toBe(1_000);
  });
});

describe('livenessDeadlineMs', () => {
  it.each<Row>([
    {
      name: 'the first attempt: the Lease duration − one interval from its start',
      timings: DEFAULTS,
      startMs: 100_000,
      lastSuccess: undefined,
      deadline: 130_000,
    },
    {
      name: 'the first attempt, test timings',
      timings: FAST,
      startMs: 7_000,
      lastSuccess: undefined,
      deadline: 11_000,
    },
    {
      name: 'one interval after a success: until the success + the Lease duration − one interval',
      timings: DEFAULTS,
      startMs: 110_400,
      lastSuccess: success(100_000),
      deadline: 130_000,
    },
    {
      name: 'one interval after a success, test timings',
      timings: FAST,
      startMs: 11_040,
      lastSuccess: success(10_000),
      deadline: 14_000,
    },
    {
      name: 'after a failure within the Lease: still until the success + duration − interval',
      timings: DEFAULTS,
      startMs: 115_000,
      lastSuccess: success(100_000),
      deadline: 130_000,
    },
    {
      name: 'after a renewal that ran long: counted from when it ended, not when it started',
      timings: FAST,
      startMs: 13_540,
      lastSuccess: success(12_500, 1_200),
      deadline: 16_500,
    },
    {
      name: 'on a slow link: at least twice what the last success took, even before the lapse',
      timings: FAST,
      startMs: 13_540,
      lastSuccess: success(12_500, 2_500),
      deadline: 17_540,
    },
    {
      name: 'after failures past the lapse: one interval (a fast link)',
      timings: DEFAULTS,
      startMs: 135_000,
      lastSuccess: success(100_000),
      deadline: 145_000,
    },
    {
      name: 'after failures past the lapse on a slow link: twice what the last success took',
      timings: FAST,
      startMs: 20_000,
      lastSuccess: success(10_000, 1_300),
      deadline: 22_600,
    },
    {
      name: 'twice the last success capped at the Lease duration − one interval',
      timings: FAST,
      startMs: 20_000,
      lastSuccess: success(10_000, 3_000),
      deadline: 24_000,
    },
    {
      name: 'the lapse so close that less than one interval is left: one interval',
      timings: DEFAULTS,
      startMs: 125_000,
      lastSuccess: success(100_000),
      deadline: 135_000,
    },
    {
      name: 'a renew fraction above one half: never below one interval, even for the first attempt',
      timings: { leaseDurationMs: 10_000, intervalMs: 8_000 },
      startMs: 50_000,
      lastSuccess: undefined,
      deadline: 58_000,
    },
  ])('$name', ({ timings, startMs, lastSuccess, deadline }) => {
    expect(livenessDeadlineMs({ ...timings, startMs, lastSuccess })).toBe(deadline);
  });

  it('leaves an attempt one interval (+4 % jitter) after a success half the Lease duration, less the jitter', () => {
    // With an interval of at most a quarter of the Lease duration, that is a round trip of half the
    // control plane's grace when the grace is the Lease duration (as by default).
    for (const t of [DEFAULTS, FAST]) {
      const start = 1_000 + t.intervalMs * 1.04;
      const left = livenessDeadlineMs({ ...t, startMs: start, lastSuccess: success(1_000) }) - start;
      expect(left).toBeGreaterThanOrEqual(t.leaseDurationMs / 2 - 0.04 * t.intervalMs - 1);
    }
  });

  it('never ends an attempt less than one interval, nor as much as the Lease duration, after its start', () => {
    const timings = [
      DEFAULTS,
      FAST,
      { leaseDurationMs: 4_000, intervalMs: 1_000 },
      { leaseDurationMs: 10_000, intervalMs: 8_000 },
      { leaseDurationMs: 60_000, intervalMs: 1_000 },
    ];
    const lasts = [0, 10, 1_000, 5_000, 100_000].map((tookMs) => success(0, tookMs));
    const cases = timings.flatMap((t) =>
      [0, 1, 500, 1_000, 3_000, 9_999, 30_000, 1_000_000].flatMap((startMs) =>
        [...lasts, undefined].map((lastSuccess) => ({ ...t, startMs, lastSuccess })),
      ),
    );
    for (const input of cases) {
      const took = livenessDeadlineMs(input) - input.startMs;
      expect(took).toBeGreaterThanOrEqual(input.intervalMs);
      expect(took).toBeLessThan(input.leaseDurationMs);
    }
  });

  it('moves no later as an attempt starts later after the same success, until the floor', () => {
    let previous = Number.NEGATIVE_INFINITY;
    for (let startMs = 10_000; startMs <= 40_000; startMs += 500) {
      const deadline = livenessDeadlineMs({ ...DEFAULTS, startMs, lastSuccess: success(10_000) });
      if (startMs + DEFAULTS.intervalMs <= 40_000) expect(deadline).toBe(40_000);
      else expect(deadline).toBe(startMs + DEFAULTS.intervalMs);
      expect(deadline).toBeGreaterThanOrEqual(previous);
      previous = deadline;
    }
  });
});
