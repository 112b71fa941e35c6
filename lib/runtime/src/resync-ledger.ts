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
 * Times are kept in tenths of a second, small integers V8 stores without allocating.
 */
export class ResyncLedger {
  readonly #periodTenths: number;
  readonly #lastTenths = new Map<string, number>();

  constructor(periodMs: number) {
    if (!(periodMs > 0 && Number.isFinite(periodMs))) {
      throw new RangeError(`resync period must be a positive number of ms, got ${periodMs}`);
    }
    this.#periodTenths = Math.ceil(periodMs / 100);
  }

  /** Records that a worker took `key` at monotonic `nowMs`. */
  handedOut(key: string, nowMs: number): void {
    this.#lastTenths.set(key, Math.floor(nowMs / 100));
  }

  /** Whether `key` has gone a whole period without a worker (or never had one) at `nowMs`. */
  isDue(key: string, nowMs: number): boolean {
    const last = this.#lastTenths.get(key);
    return last === undefined || Math.floor(nowMs / 100) - last >= this.#periodTenths;
  }

  /** Forgets the keys `isNamed` rejects (objects gone): the ledger holds only live keys. */
  prune(isNamed: (key: string) => boolean): number {
    let dropped = 0;
    for (const key of this.#lastTenths.keys()) {
      if (isNamed(key)) continue;
      this.#lastTenths.delete(key);
      dropped++;
    }
    return dropped;
  }

  /** Keys remembered. */
  get size(): number {
    return this.#lastTenths.size;
  }
}
