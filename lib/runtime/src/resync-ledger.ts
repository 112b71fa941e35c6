/**
 * When each key of a controller was last handed to a worker, so that the periodic resync queues
 * only the keys no worker has looked at for a whole period.
 *
 * The resync is a safety net for missed events: a key reconciled at time t read the caches as
 * they were at t or later, so it needs the net again at t + period, not at the next tick of a
 * timer shared by every key. Queueing every key at once would redo, in the middle of a burst of
 * changes, the reconciles the burst has just made; per-key due times spread the net's work over
 * the period and keep its bound: no key goes longer than one period (and one tick) without a
 * reconcile.
 *
 * Finding the keys due walks the ledger, not the sources: a comparison per key, where naming every
 * key from the caches' objects (what a walk over the sources costs) took seconds a minute at 30,000
 * bindings. A key stamped again keeps its place, so the map leaves no deleted entries behind it
 * (moving keys to the end doubled its memory). Times are kept in tenths of a second, small integers
 * V8 stores without allocating.
 */
export class ResyncLedger {
  /** How long a key may go without a worker before it is due. */
  readonly periodMs: number;
  readonly #periodTenths: number;
  readonly #stamps = new Map<string, number>();

  constructor(periodMs: number) {
    if (!(periodMs > 0 && Number.isFinite(periodMs))) {
      throw new RangeError(`resync period must be a positive number of ms, got ${periodMs}`);
    }
    this.periodMs = periodMs;
    this.#periodTenths = Math.ceil(periodMs / 100);
  }

  /** Records that a worker took `key` at monotonic `nowMs` (times never go back). */
  handedOut(key: string, nowMs: number): void {
    this.#stamps.set(key, tenths(nowMs));
  }

  /**
   * The keys that have gone a whole period without a worker at `nowMs`. Each is stamped `nowMs`
   * as it is returned: queued now, it is not due again for a period, however long it waits for a
   * worker.
   */
  takeDue(nowMs: number): readonly string[] {
    const now = tenths(nowMs);
    const due: string[] = [];
    for (const [key, at] of this.#stamps) {
      if (now - at < this.#periodTenths) continue;
      due.push(key);
      this.#stamps.set(key, now); // an existing key: the map does not grow while walked
    }
    return due;
  }

  /**
   * Compares the ledger with every key the sources name now: forgets the keys no longer named
   * (objects gone) and returns, stamped `nowMs`, the named keys no worker ever took (a change
   * that was never seen).
   */
  sweep(named: Iterable<string>, nowMs: number): readonly string[] {
    const seen = new Set<string>();
    const unknown: string[] = [];
    for (const key of named) {
      seen.add(key);
      if (!this.#stamps.has(key)) unknown.push(key);
    }
    for (const key of this.#stamps.keys()) if (!seen.has(key)) this.#stamps.delete(key);
    for (const key of unknown) this.handedOut(key, nowMs);
    return unknown;
  }
}

function tenths(ms: number): number {
  return Math.floor(ms / 100);
}
