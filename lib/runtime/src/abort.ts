/**
 * Resolves once `signal` aborts (at once when it already has): how a runnable that only owns
 * background work waits for the end of the process. `forget`, when it aborts, drops the
 * listener so that a wait raced against other events leaves nothing behind (the promise then
 * stays pending).
 */
export function whenAborted(signal: AbortSignal, forget?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    signal.addEventListener(
      'abort',
      () => {
        resolve();
      },
      { once: true, ...(forget === undefined ? {} : { signal: forget }) },
    );
  });
}
