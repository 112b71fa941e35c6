/**
 * Eviction pacing as a token bucket: up to `burst` evictions at once, then `ratePerSecond`.
 *
 * Upstream paces each taint-manager worker to `--resource-eviction-rate` (0.5/s) after every
 * eviction: 1,000 bindings on a failed cluster take over half an hour with one worker (about 11
 * minutes with its three), while their workloads are down. The pace exists to protect the
 * control plane, so it is sized from what an eviction costs there: one binding update, one
 * scheduler pass and its binding update, and two or three Work writes by the binding controller
 * — about five writes. At 50 evictions/s that is about 250 writes/s, which one kube-apiserver with
 * its default limits (400 read-only and 200 mutating requests in flight, a few ms per write)
 * absorbs with room to spare. A burst of 100 lets a typical cluster's bindings (tens to a few
 * hundred) start moving at once. 1,000 bindings then leave in 100 + 900/50 ≈ 18 seconds.
 */

export interface EvictionPacing {
  /** Tokens added per second; 0 or less adds none (only the burst is ever spent). */
  readonly ratePerSecond: number;
  /** Bucket capacity: evictions allowed at once after a quiet period (at least 1). */
  readonly burst: number;
}

/** Refill arithmetic in floating point: this far below a whole token is a whole token. */
const TOKEN_EPSILON = 1e-9;

export const DEFAULT_EVICTION_PACING: EvictionPacing = { ratePerSecond: 50, burst: 100 };

export interface TokenBucket {
  readonly tokens: number;
  readonly updatedAtMs: number;
}

/** A full bucket: what a process starts with. */
export function fillBucket(pacing: EvictionPacing, nowMs: number): TokenBucket {
  return { tokens: capacity(pacing), updatedAtMs: nowMs };
}

/** An eviction waiting for its turn; earlier `dueAtMs` goes first, then the smaller key. */
export interface PendingEviction {
  readonly key: string;
  /** When it became due (FIFO order, so a steady stream of new work cannot starve older work). */
  readonly dueAtMs: number;
}

export interface EvictionPlan {
  /** Keys to evict now, in order. */
  readonly evictNow: readonly string[];
  readonly bucket: TokenBucket;
  /** When work is left over and the bucket refills: ms until the next token. */
  readonly wakeInMs?: number;
}

/**
 * Refills the bucket for the time since it was last updated (a clock that went back refills
 * nothing), spends one whole token per eviction in due order, and says when the next token
 * arrives if anything is left waiting.
 */
export function planEvictions(
  pending: readonly PendingEviction[],
  bucket: TokenBucket,
  nowMs: number,
  pacing: EvictionPacing,
): EvictionPlan {
  const rate = Math.max(0, pacing.ratePerSecond);
  const elapsedMs = Math.max(0, nowMs - bucket.updatedAtMs);
  const available = Math.min(capacity(pacing), bucket.tokens + (elapsedMs * rate) / 1000);
  const ordered = [...pending].sort(
    (a, b) => a.dueAtMs - b.dueAtMs || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  // A token that is whole but for floating-point dust (refills add fractions) counts as whole.
  const take = Math.min(ordered.length, Math.floor(available + TOKEN_EPSILON));
  // Spending such a token leaves an empty bucket, not dust below zero.
  const tokens = Math.max(0, available - take);
  const next = { tokens, updatedAtMs: Math.max(nowMs, bucket.updatedAtMs) };
  const evictNow = ordered.slice(0, take).map((p) => p.key);
  if (take === ordered.length || rate === 0) return { evictNow, bucket: next };
  const wakeInMs = Math.max(1, Math.ceil(((1 - tokens) * 1000) / rate));
  return { evictNow, bucket: next, wakeInMs };
}

/**
 * How long the key at `position` in due order (1 = first) waits for its token when `plan` did not
 * reach it: until the tokens of every key ahead and its own have come in. Waking each waiting key
 * only then, rather than at every next token, keeps a long queue from being looked at again and
 * again while it drains. Undefined when no token ever comes (zero rate).
 */
export function turnInMs(position: number, plan: EvictionPlan, pacing: EvictionPacing): number | undefined {
  if (plan.wakeInMs === undefined) return undefined;
  const missing = position - (plan.bucket.tokens + plan.evictNow.length);
  return Math.max(plan.wakeInMs, Math.ceil((missing * 1000) / pacing.ratePerSecond));
}

function capacity(pacing: EvictionPacing): number {
  return Math.max(1, Math.floor(pacing.burst));
}
