import { describe, expect, it } from 'vitest';
import { livenessDeadlineMs, livenessSignal, type LivenessDeadlineInput } from './liveness-deadline.ts';

/** The defaults: Lease 40 s renewed every 10 s (fraction 0.25). */
const DEFAULTS = { leaseDurationMs: 40_000, intervalMs: 10_000 };
/** The slow-link test's: Lease 5 s renewed every 1 s. */
const FAST = { leaseDurationMs: 5_000, intervalMs: 1_000 };

interface Row {
  readonly name: string;
  readonly input: LivenessDeadlineInput;
  readonly deadline: number;
}

/** An attempt at `startMs`; the last success ended at `lastEnd` after `took` ms (50: a sound link). */
const at = (
  timings: { readonly leaseDurationMs: number; readonly intervalMs: number },
  startMs: number,
  lastEnd: number | undefined,
  took = 50,
): LivenessDeadlineInput => ({
  ...timings,
  startMs,
  lastSuccess: lastEnd === undefined ? undefined : { endedAtMs: lastEnd, tookMs: took },
});

describe('livenessDeadlineMs', () => {
  it.each<Row>([
    {
      name: 'the first attempt: the Lease duration − one interval from its start',
      input: at(DEFAULTS, 100_000, undefined),
      deadline: 130_000,
    },
    { name: 'the first attempt, test timings', input: at(FAST, 7_000, undefined), deadline: 11_000 },
    {
      name: 'one interval (+4 %) after a success: until the success + the Lease duration',
      input: at(DEFAULTS, 110_400, 100_000),
      deadline: 140_000,
    },
    { name: 'one interval after a success, test timings', input: at(FAST, 11_040, 10_000), deadline: 15_000 },
    {
      name: 'after failures within the Lease: still until the success + the Lease duration',
      input: at(DEFAULTS, 125_000, 100_000),
      deadline: 140_000,
    },
    {
      name: 'a renewal that ran long: counted from when it ended, not when it started',
      // It started at 11.3 s and took 1.2 s: the next one (at 13.54 s) may run until 17.5 s, not 16.3 s.
      input: at(FAST, 13_540, 12_500, 1_200),
      deadline: 17_500,
    },
    {
      name: 'over a slow link: at least twice what the last success took',
      input: at(FAST, 13_540, 12_500, 2_000),
      deadline: 17_540,
    },
    {
      name: 'twice the last success, capped at the Lease duration − one interval',
      input: at(FAST, 13_540, 12_500, 3_000),
      deadline: 17_540,
    },
    {
      name: 'the lapse so close that less than one interval is left: one interval',
      input: at(DEFAULTS, 135_000, 100_000),
      deadline: 145_000,
    },
    {
      name: 'after failures past the lapse over a sound link: one interval',
      input: at(DEFAULTS, 170_000, 100_000),
      deadline: 180_000,
    },
    {
      name: 'after failures past the lapse over a slow link: twice what the last success took',
      input: at(FAST, 20_000, 10_000, 1_300),
      deadline: 22_600,
    },
    {
      name: 'a tick that starts at once after a success: no longer than the Lease duration − one interval',
      input: at(DEFAULTS, 100_000, 100_000),
      deadline: 130_000,
    },
    {
      name: 'a renew fraction above one half: never below one interval, even for the first attempt',
      input: at({ leaseDurationMs: 10_000, intervalMs: 8_000 }, 50_000, undefined),
      deadline: 58_000,
    },
    {
      name: 'a renew fraction above one half, after a slow success: one interval, the longer',
      input: at({ leaseDurationMs: 10_000, intervalMs: 8_000 }, 70_000, 50_000, 6_000),
      deadline: 78_000,
    },
  ])('$name', ({ input, deadline }) => {
    expect(livenessDeadlineMs(input)).toBe(deadline);
  });

  it('leaves an attempt one interval (+4 % jitter) after a success the Lease duration less that', () => {
    // With an interval of at most a quarter of the Lease duration, that is a round trip of up to
    // three quarters of it; the control plane's grace allows less (see the agent's README).
    for (const t of [DEFAULTS, FAST]) {
      const start = 1_000 + t.intervalMs * 1.04;
      const left = livenessDeadlineMs(at(t, start, 1_000)) - start;
      expect(left).toBeGreaterThanOrEqual(t.leaseDurationMs - 1.04 * t.intervalMs - 1);
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
    const cases = timings.flatMap((t) =>
      [0, 1, 500, 1_000, 3_000, 9_999, 30_000, 1_000_000].flatMap((startMs) =>
        [0, 10, 1_000, 5_000, 100_000].flatMap((took) =>
          [0, undefined].map((lastEnd) => at(t, startMs, lastEnd, took)),
        ),
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
    for (let startMs = 20_000; startMs <= 60_000; startMs += 500) {
      const deadline = livenessDeadlineMs(at(DEFAULTS, startMs, 10_000));
      if (startMs + DEFAULTS.intervalMs <= 50_000) expect(deadline).toBe(50_000);
      else expect(deadline).toBe(startMs + DEFAULTS.intervalMs);
      expect(deadline).toBeGreaterThanOrEqual(previous);
      previous = deadline;
    }
  });

  it('counts failures over a sound link gone dead once per interval and a quarter, past the lapse', () => {
    // Attempts back to back (a failed tick waits a quarter interval, +25 % at most): how many fail
    // in a minute of a link that answers nothing, after successes that took 50 ms.
    for (const t of [FAST, DEFAULTS, { leaseDurationMs: 4_000, intervalMs: 1_000 }]) {
      let now = 0;
      let failed = 0;
      const endMs = 60 * t.intervalMs;
      while (now < endMs) {
        now = livenessDeadlineMs(at(t, now, 0)) + (t.intervalMs / 4) * 1.25;
        failed++;
      }
      expect(failed).toBeGreaterThanOrEqual(
        Math.floor((60 * t.intervalMs - t.leaseDurationMs) / (1.3125 * t.intervalMs)),
      );
    }
  });
});

describe('livenessSignal', () => {
  // A first attempt with a Lease of 200 ms renewed every 50 ms ends 150 ms after its start.
  const first = { startMs: 0, lastSuccess: undefined, leaseDurationMs: 200, intervalMs: 50 };

  it('aborts at the attempt’s deadline', async () => {
    const signal = livenessSignal(first, new AbortController().signal);
    await new Promise((r) => setTimeout(r, 100));
    expect(signal.aborted).toBe(false);
    await new Promise((r) => setTimeout(r, 150));
    expect(signal.aborted).toBe(true);
  });

  it('aborts at once when the process stops', () => {
    const stop = new AbortController();
    const signal = livenessSignal(first, stop.signal);
    stop.abort();
    expect(signal.aborted).toBe(true);
  });
});
