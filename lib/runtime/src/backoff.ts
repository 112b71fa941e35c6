/** Capped exponential backoff with jitter, as a pure function of the attempt number. */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /** Multiplier per attempt (2 doubles). */
  readonly factor: number;
  /** Share of the delay that is randomised, 0..1: 0.2 gives delay × [0.8, 1.2). */
  readonly jitter: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 30_000, factor: 2, jitter: 0.2 };

/**
 * Delay before retry number `attempt` (0-based). `random` is a value in [0, 1) supplied by the
 * caller so that the function stays deterministic under test.
 */
export function backoffDelayMs(policy: BackoffPolicy, attempt: number, random: number): number {
  const base = Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.max(0, attempt));
  const spread = base * policy.jitter * (2 * random - 1);
  return Math.max(0, Math.min(policy.maxMs, Math.round(base + spread)));
}

/** `policy` with no delay longer than `maxMs` (the first one included); unchanged without a cap. */
export function cappedBackoff(policy: BackoffPolicy, maxMs: number | undefined): BackoffPolicy {
  if (maxMs === undefined || maxMs >= policy.maxMs) return policy;
  return { ...policy, maxMs, initialMs: Math.min(policy.initialMs, maxMs) };
}
