import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import { systemClock, type Clock } from './clock.ts';

/**
 * Observations a work queue reports; the runner binds them to Prometheus metrics so that the queue
 * itself stays free of prom-client. Every method must be cheap and must not throw.
 */
export interface WorkQueueMetrics {
  /** Keys now waiting for a worker (called whenever the number changes). */
  depth(keys: number): void;
  /** A key was added that was not already waiting (deduplicated adds are not counted). */
  added(): void;
  /** A key was re-added with backoff after a failure. */
  retried(): void;
  /**
   * A key was handed to a worker from the background lane: a pass over every key (the first, a
   * periodic resync), not a change.
   */
  passKey(): void;
  /** Seconds a key waited between becoming ready and being handed to a worker. */
  waited(seconds: number): void;
  /** Seconds between handing a key out ({@link WorkQueue.get}) and {@link WorkQueue.done}. */
  worked(seconds: number): void;
}

export interface WorkQueueOptions {
  /** Time source for delays and latencies (default {@link systemClock}). */
  readonly clock?: Clock;
  /** Per-key retry backoff for {@link WorkQueue.addRateLimited} (default {@link DEFAULT_BACKOFF}). */
  readonly backoff?: BackoffPolicy;
  /** Source of jitter in [0, 1) (default `Math.random`). */
  readonly random?: () => number;
  readonly metrics?: WorkQueueMetrics;
  /**
   * Hold background keys ({@link WorkQueue.addBackground}) until {@link WorkQueue.releaseBackground}
   * (default false: handed out as soon as no foreground key waits).
   */
  readonly holdBackground?: boolean;
}

/**
 * A deduplicating queue of keys for level-triggered controllers, shaped like client-go's
 * rate-limited delaying work queue.
 *
 * Guarantees:
 * - a key waiting for a worker is held once, however often it is added;
 * - a key is handed to at most one worker at a time: added while being processed, it is marked
 *   dirty and handed out again after {@link done};
 * - every key added before {@link shutDown} is handed out at least once after its last add;
 * - {@link addAfter} keeps the earliest pending deadline per key, using one timer for all keys;
 * - two lanes: a key added with {@link addBackground} (a resync, the first pass over every key) is
 *   handed out only when no key added with {@link add} (a change) waits, and an {@link add} of a
 *   key waiting in the background lane moves it to the foreground. A change is then acted on
 *   within one reconcile of every worker, however many keys a resync queued before it.
 *
 * After {@link shutDown}, adds are ignored, waiting keys are dropped (level-triggered callers
 * re-list on the next start) and {@link get} resolves `undefined`.
 */
export class WorkQueue {
  readonly #clock: Clock;
  readonly #backoff: BackoffPolicy;
  readonly #random: () => number;
  readonly #metrics: WorkQueueMetrics | undefined;

  /** Foreground keys ready for a worker. */
  readonly #ready = new KeyFifo();
  /**
   * Background keys ready for a worker. A key moved to the foreground leaves its entry behind;
   * entries of keys not in #lowReadyAtMs are skipped.
   */
  readonly #low = new KeyFifo();
  /** Keys that need processing: waiting in either lane, or re-added while processing. */
  readonly #dirty = new Set<string>();
  /** Of the keys re-added while processing, those added only to the background lane. */
  readonly #dirtyLow = new Set<string>();
  /** Monotonic ms at which each key in #ready became ready (queue latency). */
  readonly #readyAtMs = new Map<string, number>();
  /** The same for each key waiting in the background lane. */
  readonly #lowReadyAtMs = new Map<string, number>();
  #backgroundHeld: boolean;
  /** Keys handed out and not yet done, with the monotonic ms they were handed out. */
  readonly #processing = new Map<string, number>();
  /** Workers parked in get(), served FIFO. */
  #getters: ((key: string | undefined) => void)[] = [];
  readonly #failures = new Map<string, number>();
  /** Earliest pending addAfter deadline per key (monotonic ms). */
  readonly #waiting = new Map<string, number>();
  readonly #deadlines = new DeadlineHeap();
  #timer: { readonly atMs: number; readonly abort: AbortController } | undefined;
  #dispatchScheduled = false;
  #shuttingDown = false;
  #drainWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#random = options.random ?? Math.random;
    this.#metrics = options.metrics;
    this.#backgroundHeld = options.holdBackground ?? false;
  }

  /**
   * Marks `key` as needing processing, in the foreground lane. A no-op if it already waits there or
   * the queue is shut down; a key waiting in the background lane moves to the foreground.
   */
  add(key: string): void {
    if (this.#shuttingDown) return;
    if (this.#dirty.has(key)) {
      this.#promote(key);
      return;
    }
    this.#dirty.add(key);
    this.#metrics?.added();
    if (this.#processing.has(key)) return; // handed out again by done()
    this.#makeReady(key);
  }

  /**
   * Marks `key` as needing processing, in the background lane: handed out only while no foreground
   * key waits (and not before {@link releaseBackground} when the queue holds the lane). A no-op if
   * the key already waits in either lane or the queue is shut down.
   */
  addBackground(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    this.#metrics?.added();
    if (this.#processing.has(key)) {
      this.#dirtyLow.add(key); // handed out again by done(), in the background lane
      return;
    }
    this.#makeReadyLow(key);
  }

  /** Lets background keys be handed out (a no-op unless the queue was made holding them). */
  releaseBackground(): void {
    if (!this.#backgroundHeld) return;
    this.#backgroundHeld = false;
    this.#scheduleDispatch();
  }

  /**
   * Adds `key` once `delayMs` has passed (at once when `delayMs <= 0`). When the key already has a
   * pending deadline, the earlier one wins: a controller asking to recheck in 10 s is not delayed by
   * an older request for 60 s.
   */
  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (!(delayMs > 0)) {
      this.add(key);
      return;
    }
    const atMs = this.#clock.monotonic() + delayMs;
    const pending = this.#waiting.get(key);
    if (pending !== undefined && pending <= atMs) return;
    this.#waiting.set(key, atMs);
    this.#deadlines.push({ key, atMs });
    this.#arm();
  }

  /**
   * Adds `key` after its next backoff delay: capped exponential in the number of failures since the
   * last {@link forget}, with jitter so that keys failing together do not retry in lockstep.
   */
  addRateLimited(key: string): void {
    if (this.#shuttingDown) return;
    const attempt = this.#failures.get(key) ?? 0;
    this.#failures.set(key, attempt + 1);
    this.#metrics?.retried();
    this.addAfter(key, backoffDelayMs(this.#backoff, attempt, this.#random()));
  }

  /** Resets the failure count of `key` (after a success, or when retrying is pointless). */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** Failures of `key` since the last {@link forget}. */
  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /**
   * Resolves with the next ready key, which the caller then owns until {@link done}; waits while
   * none is ready. Resolves `undefined` once the queue is shut down.
   */
  get(): Promise<string | undefined> {
    const key = this.#takeReady();
    if (key !== undefined) return Promise.resolve(this.#handOut(key));
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /**
   * Ends processing of `key`. If it was added meanwhile, it becomes ready again now. Calling it
   * for a key that is not being processed is a no-op.
   */
  done(key: string): void {
    const startedAtMs = this.#processing.get(key);
    if (startedAtMs === undefined) return;
    this.#processing.delete(key);
    this.#metrics?.worked(secondsSince(this.#clock, startedAtMs));
    if (this.#shuttingDown) {
      this.#dirty.delete(key);
      if (this.#processing.size === 0) this.#releaseDrainWaiters();
      return;
    }
    if (!this.#dirty.has(key)) return;
    if (this.#dirtyLow.delete(key)) this.#makeReadyLow(key);
    else this.#makeReady(key);
  }

  /** Keys ready and waiting for a worker, in either lane (not counting delayed or in-flight keys). */
  len(): number {
    return this.#ready.size + this.#lowReadyAtMs.size;
  }

  /** Keys handed out by {@link get} and not yet {@link done}. */
  inFlight(): number {
    return this.#processing.size;
  }

  /** True once {@link shutDown} was called. */
  isShuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Stops the queue: cancels the delay timer, drops waiting keys, wakes every parked
   * {@link get} with `undefined`. Keys being processed may still be passed to {@link done}.
   */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    this.#timer?.abort.abort();
    this.#timer = undefined;
    this.#waiting.clear();
    this.#deadlines.clear();
    this.#ready.clear();
    this.#readyAtMs.clear();
    this.#low.clear();
    this.#lowReadyAtMs.clear();
    this.#dirtyLow.clear();
    for (const key of this.#dirty) if (!this.#processing.has(key)) this.#dirty.delete(key);
    this.#metrics?.depth(0);
    const getters = this.#getters;
    this.#getters = [];
    for (const wake of getters) wake(undefined);
  }

  /** {@link shutDown}, then resolves once every in-flight key has been marked {@link done}. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  #makeReady(key: string): void {
    this.#ready.push(key);
    this.#readyAtMs.set(key, this.#clock.monotonic());
    this.#metrics?.depth(this.len());
    this.#scheduleDispatch();
  }

  #makeReadyLow(key: string): void {
    this.#low.push(key);
    this.#lowReadyAtMs.set(key, this.#clock.monotonic());
    this.#metrics?.depth(this.len());
    if (!this.#backgroundHeld) this.#scheduleDispatch();
  }

  /** A dirty key added to the foreground: out of the background lane, wherever it waits. */
  #promote(key: string): void {
    if (this.#dirtyLow.delete(key)) return; // being processed: done() hands it out in the foreground
    const readyAtMs = this.#lowReadyAtMs.get(key);
    if (readyAtMs === undefined) return; // already in the foreground
    this.#lowReadyAtMs.delete(key);
    this.#ready.push(key);
    this.#readyAtMs.set(key, readyAtMs);
    this.#scheduleDispatch();
  }

  #scheduleDispatch(): void {
    if (this.#getters.length === 0 || this.#dispatchScheduled) return;
    // Hand keys to parked workers in a microtask, not now: adds made in the same synchronous
    // burst (an event naming a key twice, a resync) then coalesce instead of running twice.
    this.#dispatchScheduled = true;
    queueMicrotask(() => {
      this.#dispatchScheduled = false;
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#getters.length > 0) {
      const key = this.#takeReady();
      if (key === undefined) return;
      const getter = this.#getters.shift();
      if (getter === undefined) return;
      getter(this.#handOut(key));
    }
  }

  /** The next key to hand out: the foreground first, then (unless held) the background. */
  #takeReady(): string | undefined {
    return this.#ready.shift() ?? (this.#backgroundHeld ? undefined : this.#takeBackground());
  }

  #takeBackground(): string | undefined {
    for (let key = this.#low.shift(); key !== undefined; key = this.#low.shift()) {
      if (this.#lowReadyAtMs.has(key)) return key; // else moved to the foreground since
    }
    return undefined;
  }

  /** Hands out a key just taken from either lane: no longer waiting, now processing. */
  #handOut(key: string): string {
    const nowMs = this.#clock.monotonic();
    this.#dirty.delete(key);
    this.#processing.set(key, nowMs);
    const foregroundAtMs = this.#readyAtMs.get(key);
    const readyAtMs = foregroundAtMs ?? this.#lowReadyAtMs.get(key) ?? nowMs;
    if (foregroundAtMs === undefined) this.#metrics?.passKey();
    this.#readyAtMs.delete(key);
    this.#lowReadyAtMs.delete(key);
    this.#metrics?.depth(this.len());
    this.#metrics?.waited(Math.max(0, nowMs - readyAtMs) / 1000);
    return key;
  }

  /** Keeps exactly one timer, set for the earliest pending deadline. */
  #arm(): void {
    const next = this.#deadlines.peek(this.#waiting);
    if (next === undefined) {
      this.#timer?.abort.abort();
      this.#timer = undefined;
      return;
    }
    if (this.#timer !== undefined && this.#timer.atMs <= next.atMs) return;
    this.#timer?.abort.abort();
    const abort = new AbortController();
    this.#timer = { atMs: next.atMs, abort };
    // A deadline already past fires at once (a negative delay only makes Node warn); the clock
    // itself sleeps out one beyond a timer's range.
    this.#clock.sleep(Math.max(0, next.atMs - this.#clock.monotonic()), abort.signal).then(
      () => {
        if (this.#timer?.abort !== abort) return;
        this.#timer = undefined;
        this.#fire();
      },
      () => undefined, // cancelled: a nearer deadline or shutdown replaced this timer
    );
  }

  #fire(): void {
    const nowMs = this.#clock.monotonic();
    for (let next = this.#deadlines.peek(this.#waiting); next !== undefined && next.atMs <= nowMs;) {
      this.#deadlines.pop();
      this.#waiting.delete(next.key);
      this.add(next.key);
      next = this.#deadlines.peek(this.#waiting);
    }
    this.#arm();
  }

  #releaseDrainWaiters(): void {
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const release of waiters) release();
  }
}

function secondsSince(clock: Clock, startMs: number): number {
  return Math.max(0, clock.monotonic() - startMs) / 1000;
}

/** A first-in first-out queue of keys with amortised O(1) shift. */
class KeyFifo {
  #items: string[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(key: string): void {
    this.#items.push(key);
  }

  shift(): string | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const key = this.#items[this.#head];
    this.#head++;
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return key;
  }

  clear(): void {
    this.#items = [];
    this.#head = 0;
  }
}

interface Deadline {
  readonly key: string;
  readonly atMs: number;
}

/**
 * Binary min-heap of deadlines. Entries superseded by an earlier deadline for the same key are
 * left in place and skipped lazily by {@link peek}, which keeps addAfter O(log n).
 */
class DeadlineHeap {
  #items: Deadline[] = [];

  push(item: Deadline): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (at(items, parent).atMs <= item.atMs) break;
      items[i] = at(items, parent);
      i = parent;
    }
    items[i] = item;
  }

  /** The earliest entry still current in `live` (key → deadline); drops stale ones on the way. */
  peek(live: ReadonlyMap<string, number>): Deadline | undefined {
    for (let top = this.#items[0]; top !== undefined; top = this.#items[0]) {
      if (live.get(top.key) === top.atMs) return top;
      this.pop();
    }
    return undefined;
  }

  pop(): void {
    const items = this.#items;
    const last = items.pop();
    if (last === undefined || items.length === 0) return;
    let i = 0;
    for (;;) {
      const smallest = this.#smallerChild(i, last);
      if (smallest === undefined) break;
      items[i] = at(items, smallest);
      i = smallest;
    }
    items[i] = last;
  }

  clear(): void {
    this.#items = [];
  }

  /** Index of the child of `i` that must move up above `item`, if any. */
  #smallerChild(i: number, item: Deadline): number | undefined {
    const items = this.#items;
    const left = 2 * i + 1;
    if (left >= items.length) return undefined;
    const right = left + 1;
    const child = right < items.length && at(items, right).atMs < at(items, left).atMs ? right : left;
    return at(items, child).atMs < item.atMs ? child : undefined;
  }
}

function at(items: readonly Deadline[], i: number): Deadline {
  const item = items[i];
  if (item === undefined) throw new RangeError(`heap index ${i} out of bounds`);
  return item;
}
