/**
 * One call's deadline, joined with the caller's signal, released as soon as the call ends.
 *
 * `AbortSignal.timeout` keeps its timer, and through it its signal, until the timer fires, however
 * early the call ended: at a few hundred API calls a second and a 30 s deadline, the control plane
 * held some ten thousand finished calls' timers and signals at any time. A timer cleared when
 * the call ends holds nothing past it.
 */
export interface CallDeadline {
  /** Aborts at the deadline (a `TimeoutError`, as `AbortSignal.timeout` reports it) or with `outer`. */
  readonly signal: AbortSignal;
  /** The call has ended: the deadline no longer runs. */
  release(): void;
}

export function callDeadline(timeoutMs: number, outer?: AbortSignal): CallDeadline {
  const deadline = new AbortController();
  const timer = setTimeout(
    () => {
      deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    },
    Math.max(1, Math.ceil(timeoutMs)),
  );
  // Like AbortSignal.timeout's, the timer alone does not keep the process running.
  timer.unref();
  return {
    signal: outer === undefined ? deadline.signal : AbortSignal.any([deadline.signal, outer]),
    release: () => {
      clearTimeout(timer);
    },
  };
}
