/** Something that emits process signals; `process` in production, an EventEmitter in tests. */
export interface SignalSource {
  on(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

export interface ShutdownSignalOptions {
  /** Default `process`. */
  readonly source?: SignalSource;
  /** Default SIGTERM (what Kubernetes sends) and SIGINT (Ctrl-C). */
  readonly signals?: readonly NodeJS.Signals[];
}

/** A live subscription to shutdown signals. */
export interface ShutdownSubscription {
  /** Aborts on the first signal; its reason is an Error naming the signal. */
  readonly signal: AbortSignal;
  /** Removes the listeners (the default signal behaviour, exiting, comes back). */
  unsubscribe(): void;
}

/**
 * Turns SIGTERM/SIGINT into an AbortSignal to thread through the program. `handler`, if given,
 * runs for every signal with a running count, so that `main.ts` can decide what a second one
 * means (typically: exit now). While subscribed, Node no longer exits on these signals by itself;
 * this module never exits the process.
 */
export function onShutdownSignal(
  handler?: (signal: NodeJS.Signals, count: number) => void,
  options: ShutdownSignalOptions = {},
): ShutdownSubscription {
  const source = options.source ?? process;
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const controller = new AbortController();
  let count = 0;
  const listener = (signal: NodeJS.Signals): void => {
    count++;
    if (!controller.signal.aborted) controller.abort(new Error(`received ${signal}`));
    handler?.(signal, count);
  };
  for (const s of signals) source.on(s, listener);
  return {
    signal: controller.signal,
    unsubscribe: () => {
      for (const s of signals) source.off(s, listener);
    },
  };
}
