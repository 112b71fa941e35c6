import { backoffDelayMs, systemClock, type BackoffPolicy, type Clock } from '@kf/runtime';
import { isConflict } from './errors.ts';

/**
 * Conflicts come from a concurrent writer that has usually finished within milliseconds: retry
 * quickly (10 ms doubling, ±10 %) a few times, as client-go's DefaultRetry does.
 */
export const CONFLICT_BACKOFF: BackoffPolicy = { initialMs: 10, maxMs: 1_000, factor: 2, jitter: 0.1 };

export interface RetryOnConflictOptions {
  /** Attempts in all, the first one included (default 5). */
  readonly attempts?: number;
  readonly backoff?: BackoffPolicy;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly signal?: AbortSignal;
}

/**
 * Runs `fn` until it does not fail with Conflict, at most `attempts` times, sleeping with backoff
 * in between. Any other error, and the last Conflict, is rethrown. `fn` must re-read what it
 * writes: it gets the 0-based attempt number.
 */
export async function retryOnConflict<R>(
  fn: (attempt: number) => Promise<R>,
  opts: RetryOnConflictOptions = {},
): Promise<R> {
  const attempts = Math.max(1, opts.attempts ?? 5);
  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? Math.random;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!isConflict(err) || attempt + 1 >= attempts) throw err;
    }
    await clock.sleep(backoffDelayMs(opts.backoff ?? CONFLICT_BACKOFF, attempt, random()), opts.signal);
  }
}

/** Reading, changing and writing one object: the steps {@link updateWithRetry} repeats. */
export interface UpdateSteps<T> {
  /** Reads the current object from the API server (not from a cache that may lag). */
  read(): Promise<T>;
  /**
   * Returns the object to write, built from `current` without changing it, or undefined when
   * `current` is already as wanted (nothing is written).
   */
  mutate(current: T): T | undefined;
  /** Writes guarded by the resourceVersion that was read (PUT), so a race is a Conflict. */
  write(next: T): Promise<T>;
}

/**
 * Read, mutate, write; on Conflict start again from a fresh read. Returns what was written, or
 * the object read when no change was needed.
 */
export async function updateWithRetry<T>(
  steps: UpdateSteps<T>,
  opts: RetryOnConflictOptions = {},
): Promise<T> {
  return retryOnConflict(async () => {
    const current = await steps.read();
    const next = steps.mutate(current);
    return next === undefined ? current : steps.write(next);
  }, opts);
}
