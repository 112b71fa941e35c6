/**
 * Which registration failures are worth another attempt. Transient ones (API server unreachable,
 * 5xx, timeouts, conflicts) always are. A 403 usually is a configuration error that retrying
 * cannot fix, but a kube-apiserver that has just started answers 403 to every non-admin user for
 * the moment before its authorization caches are loaded: an agent (re)started during a control
 * plane outage meets exactly that window when the server returns. So 403s are retried for
 * `forbiddenWindowMs` after the first one of a row; past that, registration gives up and says so.
 */
import { isForbidden, isRetryable } from '@kf/kube';
import { TerminalError } from '@kf/runtime';

/** How long a row of 403s is taken for an API server still warming up. */
export const FORBIDDEN_RETRY_WINDOW_MS = 30_000;

export function registrationRetryable(
  forbiddenWindowMs: number,
  monotonic: () => number,
  refused: (err: unknown) => boolean,
): (err: unknown) => boolean {
  let forbiddenSinceMs: number | undefined;
  return (err) => {
    if (refused(err) || err instanceof TerminalError) return false;
    if (isForbidden(err)) {
      forbiddenSinceMs ??= monotonic();
      return monotonic() - forbiddenSinceMs < forbiddenWindowMs;
    }
    forbiddenSinceMs = undefined;
    return isRetryable(err);
  };
}
