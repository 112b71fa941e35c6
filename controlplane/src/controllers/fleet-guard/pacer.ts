/**
 * Pacing of evictions across every binding of the process: the token bucket of pacing.ts plus the
 * set of bindings waiting for a token, oldest first. Keys are reserved in due order, so a key
 * asking early cannot jump ahead of an older one still waiting for its reconcile.
 */
import { fillBucket, planEvictions, turnInMs, type EvictionPacing, type TokenBucket } from './pacing.ts';

export type Turn = { readonly ok: true } | { readonly ok: false; readonly waitMs: number };

/** With a zero rate no token ever comes back; look again after this long anyway. */
const NO_REFILL_WAIT_MS = 60_000;

export class EvictionPacer {
  readonly #pacing: EvictionPacing;
  readonly #onDepth: (depth: number) => void;
  readonly #pending = new Map<string, number>();
  #bucket: TokenBucket;

  constructor(pacing: EvictionPacing, nowMs: number, onDepth: (depth: number) => void) {
    this.#pacing = pacing;
    this.#bucket = fillBucket(pacing, nowMs);
    this.#onDepth = onDepth;
  }

  /**
   * The key is due but may not go yet (e.g. paused): remember since when it waits. True when it
   * was not waiting before (worth telling people once, not on every look).
   */
  hold(key: string, nowMs: number): boolean {
    if (this.#pending.has(key)) return false;
    this.#pending.set(key, nowMs);
    this.#onDepth(this.#pending.size);
    return true;
  }

  /** The key is due: it may evict now (a token is spent), or must wait `waitMs`. */
  request(key: string, nowMs: number): Turn {
    this.hold(key, nowMs);
    const mine = this.#pending.get(key) ?? nowMs;
    const ahead = [...this.#pending]
      .filter(([k, due]) => due < mine || (due === mine && k <= key))
      .map(([k, dueAtMs]) => ({ key: k, dueAtMs }));
    const plan = planEvictions(ahead, this.#bucket, nowMs, this.#pacing);
    // Not our turn: the bucket is left as it was (refills are computed from its timestamp), and
    // the key comes back when the tokens of the keys ahead of it and its own are in.
    if (!plan.evictNow.includes(key)) {
      return { ok: false, waitMs: turnInMs(ahead.length, plan, this.#pacing) ?? NO_REFILL_WAIT_MS };
    }
    // Tokens of the keys ahead stay reserved for them; only this key's token is spent.
    this.#bucket = { ...plan.bucket, tokens: plan.bucket.tokens + plan.evictNow.length - 1 };
    this.release(key);
    return { ok: true };
  }

  /** The key no longer waits (evicted, no longer due, or gone). */
  release(key: string): void {
    if (this.#pending.delete(key)) this.#onDepth(this.#pending.size);
  }
}
