/** What a node reports about service name resolution, before staleness is considered. */
export type Observed = 'True' | 'False';

/**
 * The debounced node verdict: `reported` is what the node publishes; `pending` is an opposite
 * streak that has not lasted its hold time yet.
 */
export interface Hysteresis {
  readonly reported: Observed;
  readonly pending?: { readonly value: Observed; readonly sinceMs: number };
}

/**
 * How long the opposite of the reported value must be seen without interruption before the
 * report flips: `toFalseMs` is the failure threshold, `toTrueMs` the success threshold.
 */
export interface HoldTimes {
  readonly toTrueMs: number;
  readonly toFalseMs: number;
}

/**
 * Folds one observation in. Without a previous state the observation is reported at once:
 * nothing was published that it could contradict. Otherwise the reported value flips only after
 * the opposite value has been seen without interruption for its hold time, measured from the
 * first observation of the streak; any observation equal to the reported value ends the streak.
 * `nowMs` is monotonic.
 */
export function observe(
  s: Hysteresis | undefined,
  seen: Observed,
  nowMs: number,
  hold: HoldTimes,
): Hysteresis {
  if (s === undefined || seen === s.reported) return { reported: seen };
  const sinceMs = s.pending?.value === seen ? s.pending.sinceMs : nowMs;
  if (nowMs - sinceMs >= holdFor(seen, hold)) return { reported: seen };
  return { reported: s.reported, pending: { value: seen, sinceMs } };
}

/**
 * Milliseconds from `nowMs` until the pending streak, if it goes on, reaches its hold time;
 * undefined without one. The probe looks again exactly then, so that a flip is never late by
 * more than one lookup.
 */
export function untilFlipMs(s: Hysteresis, nowMs: number, hold: HoldTimes): number | undefined {
  if (s.pending === undefined) return undefined;
  return Math.max(0, s.pending.sinceMs + holdFor(s.pending.value, hold) - nowMs);
}

function holdFor(value: Observed, hold: HoldTimes): number {
  return value === 'True' ? hold.toTrueMs : hold.toFalseMs;
}
