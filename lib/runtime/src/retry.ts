import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import { systemClock, type Clock } from './clock.ts';
import { TerminalError } from './errors.ts';

/** What {@link RetryOptions.onRetry} is told before each wait. */
export interface RetryInfo {
  readonly err: unknown;
  /** Failed attempts so far (1 after the first failure). */
  readonly attempt: number;
  readonly delayMs: number;
}

export interface RetryOptions {
  /** Delays between attempts (default {@link DEFAULT_BACKOFF}: 0.5 s doubling to 30 s, ±20 %). */
  readonly policy?: BackoffPolicy;
  /** Stops retrying: the pending wait rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Whether an error is worth another attempt (default: anything but a `TerminalError`). */
  readonly isRetryable?: (err: unknown) => boolean;
  /** Attempts in total, the first included (default unlimited: retry until aborted). */
  readonly maxAttempts?: number;
  /** Called before each wait, typically to log at warn: transient, will retry. */
  readonly onRetry?: (info: RetryInfo) => void;
  readonly clock?: Clock;
  /** Jitter source in [0, 1) (default `Math.random`). */
  readonly random?: () => number;
}

/**
 * Calls `fn` until it resolves, waiting with capped exponential backoff and jitter between
 * failures: for "the API server is down, keep trying, it is not fatal" situations (startup
 * lists, lease release, status writes outside a controller). Rejects with the last error when it
 * is not retryable or attempts run out, and with the signal's reason when aborted.
 * `fn` gets the 0-based attempt number.
 */
export async function retryWithBackoff<T>(
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const o = withDefaults(options);
  for (let attempt = 0; ; attempt++) {
    o.signal?.throwIfAborted();
    try {
      return await fn(attempt);
    } catch (err: unknown) {
      if (attempt + 1 >= o.maxAttempts || !o.isRetryable(err)) throw err;
      const delayMs = backoffDelayMs(o.policy, attempt, o.random());
      o.onRetry?.({ err, attempt: attempt + 1, delayMs });
      await o.clock.sleep(delayMs, o.signal);
    }
  }
}

type ResolvedRetryOptions = Required<Omit<RetryOptions, 'signal' | 'onRetry'>> &
  Pick<RetryOptions, 'signal' | 'onRetry'>;

function withDefaults(options: RetryOptions): ResolvedRetryOptions {
  return {
    ...options,
    policy: options.policy ?? DEFAULT_BACKOFF,
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
    isRetryable: options.isRetryable ?? ((err: unknown) => !(err instanceof TerminalError)),
    maxAttempts: options.maxAttempts ?? Number.POSITIVE_INFINITY,
  };
}
