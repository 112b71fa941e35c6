import { MAX_TIMER_DELAY_MS, timerDelayMs } from './timer-delay.ts';

/** Time as the rest of the code sees it: injected so that tests can drive it. */
export interface Clock {
  /** Wall-clock milliseconds since the epoch (for timestamps written to the API). */
  now(): number;
  /** Monotonic milliseconds, for measuring intervals; never goes back. */
  monotonic(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(abortReason(signal));
        return;
      }
      // A delay beyond a Node timer's range is slept in slices, so that it ends late, not at once.
      const untilMs = performance.now() + ms;
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal));
      };
      const arm = (leftMs: number): void => {
        const rearm = (): void => {
          arm(untilMs - performance.now());
        };
        timer = setTimeout(leftMs > MAX_TIMER_DELAY_MS ? rearm : done, timerDelayMs(leftMs));
      };
      const done = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      arm(ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}
