import { timerDelayMs } from '@kf/runtime';

/** Waits for a promise, but not longer than a deadline, and not after an abort. */
export async function withDeadline<T>(
  work: Promise<T>,
  timeoutMs: number,
  signal: AbortSignal,
  onTimeout: () => Error,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_resolve, reject) => {
    // A deadline beyond a timer's range (about 24.8 days) would otherwise fire at once.
    timer = setTimeout(() => {
      reject(onTimeout());
    }, timerDelayMs(timeoutMs));
    onAbort = () => {
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}
