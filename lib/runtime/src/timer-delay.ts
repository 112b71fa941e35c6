/**
 * Node's timers hold their delay in a signed 32-bit number of milliseconds: a longer delay (or a
 * negative or non-numeric one) makes `setTimeout` warn (TimeoutOverflowWarning) and fire after
 * 1 ms, so a loop waiting "a month" would spin instead. Every delay computed at run time goes
 * through {@link timerDelayMs} before it reaches a timer.
 */

/** The longest delay a Node timer keeps: 2^31 - 1 ms, about 24.8 days. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * `ms` as a delay a Node timer honours: clamped to [0, {@link MAX_TIMER_DELAY_MS}]; NaN counts as
 * 0 (due now). A clamped timer fires early, never at once: callers that wait longer re-arm.
 */
export function timerDelayMs(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_DELAY_MS);
}
