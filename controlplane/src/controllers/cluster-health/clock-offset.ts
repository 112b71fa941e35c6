/**
 * When a member's clock offset is worth telling an operator about. Liveness does not depend on it
 * (see observations.ts), but a member clock far off makes its own logs, Events and condition
 * times misleading, and usually means NTP is broken there, which other software minds.
 *
 * The offset is recorded on the Cluster (annotation `failover.karmada-failover.io/clock-offset-seconds`,
 * read by `explain`) once it reaches 5 s either way, with one Warning Event; updated without an
 * Event when it moves 5 s more; removed, with a Normal Event, once it is back under 4 s. The
 * second, lower bound keeps an offset hovering at 5 s from writing the Cluster at every renewal.
 */

/** An offset this large either way is recorded and warned about. */
export const CLOCK_OFFSET_WARN_MS = 5_000;
/** An offset recorded before is cleared once back under this. */
export const CLOCK_OFFSET_CLEAR_MS = 4_000;

export const clockOffsetEventReasons = {
  offset: 'ClusterClockOffset',
  resolved: 'ClusterClockOffsetResolved',
} as const;

export type ClockOffsetAction =
  | { readonly kind: 'none' }
  /** Write `value` (signed seconds, one decimal); `warn` when the offset has just passed the bound. */
  | { readonly kind: 'record'; readonly value: string; readonly warn: boolean; readonly message: string }
  | { readonly kind: 'clear'; readonly message: string };

/** What to do about a member's estimated offset (undefined: not known yet) given what is recorded. */
export function planClockOffset(
  offsetMs: number | undefined,
  recorded: string | undefined,
): ClockOffsetAction {
  if (offsetMs === undefined) return { kind: 'none' };
  const recordedMs = parseRecordedOffsetMs(recorded);
  if (Math.abs(offsetMs) >= CLOCK_OFFSET_WARN_MS) {
    if (recordedMs !== undefined && Math.abs(recordedMs - offsetMs) < CLOCK_OFFSET_WARN_MS) {
      return { kind: 'none' };
    }
    return {
      kind: 'record',
      value: (offsetMs / 1000).toFixed(1),
      warn: recordedMs === undefined,
      message: describeClockOffset(offsetMs),
    };
  }
  if (recorded === undefined || (recordedMs !== undefined && Math.abs(offsetMs) >= CLOCK_OFFSET_CLEAR_MS)) {
    return { kind: 'none' };
  }
  return {
    kind: 'clear',
    message: `The cluster's clock is within ${String(CLOCK_OFFSET_CLEAR_MS / 1000)} s of the control plane's again.`,
  };
}

/** The recorded offset in ms; undefined when absent or unreadable (an unreadable one is replaced). */
export function parseRecordedOffsetMs(recorded: string | undefined): number | undefined {
  if (recorded === undefined || !/^[+-]?\d+(\.\d+)?$/.test(recorded.trim())) return undefined;
  return Number(recorded) * 1000;
}

/** One sentence on an offset, for Events and `explain`. */
export function describeClockOffset(offsetMs: number): string {
  const direction = offsetMs >= 0 ? 'ahead of' : 'behind';
  return (
    `The cluster's clock runs ${(Math.abs(offsetMs) / 1000).toFixed(1)} s ${direction} the control plane's ` +
    `(estimated from its Lease renewals); liveness is judged on the control plane's clock, but ` +
    `times the member writes are off by as much.`
  );
}
