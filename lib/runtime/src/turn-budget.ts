import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long promise callbacks may run back to back before the event loop gets a turn. */
export const DEFAULT_TURN_SLICE_MS = 10;

export interface TurnBudgetOptions {
  /** Milliseconds of back-to-back work per turn of the event loop (default {@link DEFAULT_TURN_SLICE_MS}). */
  readonly sliceMs?: number;
  /** Monotonic milliseconds (default `performance.now`). */
  readonly now?: () => number;
}

/**
 * One budget of time, shared by every worker of a process, for work that never waits on I/O.
 *
 * A reconcile that reads only caches resolves at once, and so does the work queue when keys wait:
 * a worker's loop then runs as one unbroken chain of promise callbacks, and Node reads no socket
 * (no watch event, no /readyz, no Lease renewal's answer) until every queue is empty. A pass over
 * tens of thousands of keys holds the process deaf for seconds. Workers ask {@link pause} before
 * each key: once the chain has run for a slice, it returns a promise settled on the event loop's
 * next check phase (`setImmediate`). Work resumed there ends its next slice on the check phase of
 * the loop's next iteration, after a poll: past the first slice, a read of the sockets separates
 * any two slices.
 *
 * The budget is one for the whole process, not one per worker: dozens of workers each taking their
 * own 10 ms would run hundreds of milliseconds between two reads of the sockets.
 */
export class TurnBudget {
  readonly #sliceMs: number;
  readonly #now: () => number;
  #turnStartedAtMs = 0;
  /** Settles on the next check phase; defined from the first {@link pause} of a turn until then. */
  #turnEnd: Promise<void> | undefined;

  constructor(options: TurnBudgetOptions = {}) {
    const sliceMs = options.sliceMs ?? DEFAULT_TURN_SLICE_MS;
    if (!(sliceMs >= 0 && Number.isFinite(sliceMs))) {
      throw new RangeError(`turn slice must be a non-negative number of milliseconds, got ${sliceMs}`);
    }
    this.#sliceMs = sliceMs;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * Undefined while this turn's slice lasts (the first call of a turn starts it); once it is spent,
   * a promise, the same for every caller, that resolves on the event loop's next check phase.
   * Whoever calls next starts the next slice.
   */
  pause(): Promise<void> | undefined {
    if (this.#turnEnd === undefined) {
      this.#turnStartedAtMs = this.#now();
      this.#turnEnd = nextTurn().then(() => {
        this.#turnEnd = undefined;
      });
      return undefined;
    }
    return this.#now() - this.#turnStartedAtMs < this.#sliceMs ? undefined : this.#turnEnd;
  }
}

/** The process's budget: the one every controller runner shares unless told otherwise. */
export const processTurnBudget = new TurnBudget();
