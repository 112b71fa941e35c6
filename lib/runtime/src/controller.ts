import type { Logger } from './logger.ts';
import { timerDelayMs } from './timer-delay.ts';

/**
 * The controller contract. A controller maps changes to keys (`name` or `namespace/name`) and
 * reconciles one key at a time; the runner owns queueing, retries, log context and metrics.
 *
 * A reconcile re-reads the world for its key, converges it and is safe to run twice. It:
 * - returns {@link converged} when nothing more is due;
 * - returns {@link recheckIn} for time-based transitions (the exact time the next threshold is
 *   crossed);
 * - throws to be retried with per-key exponential backoff (conflicts, unavailable API…);
 * - throws `TerminalError` when only a change to the object can help.
 */
export interface ControllerSpec {
  /** kebab-case; also the `controller` log binding and metric label. */
  readonly name: string;
  /** Where keys come from. Workers start only once every source has synced. */
  readonly sources: readonly Source[];
  reconcile(key: string, ctx: ReconcileContext): Promise<Outcome>;
  /** Keys reconciled concurrently (never the same key twice at once). Default 1. */
  readonly workers?: number;
  /**
   * Period of the safety-net resync, in ms: a key of a source that no worker has taken for this
   * long is queued again (looked for every tenth of the period; default
   * {@link DEFAULT_RESYNC_PERIOD_MS}; 0 turns it off).
   */
  readonly resyncPeriodMs?: number;
  /**
   * Run the first pass over every key as soon as this controller's own sources have listed, not
   * once the whole process is warm (`RunnerDeps.warm`). For a controller with few keys that reads
   * only small caches (the members' health and taints): its verdicts need not wait for tens of
   * thousands of bindings to list.
   */
  readonly firstPassAtOnce?: boolean;
  /**
   * Longest wait before a failed reconcile is retried, in ms (default: the runner's backoff cap).
   * A controller that must act every period sets it to that period: once the cause of its failures
   * is gone (an API server back, a link restored), it acts within one period, not after a backoff
   * that grew while it was failing.
   */
  readonly maxRetryDelayMs?: number;
  /**
   * Called once when the controller stops (its workers drained): what it started for its keys
   * (a member's controllers, say) stops with it, as when this replica loses the leadership.
   */
  onStopped?(): Promise<void>;
}

/** What a reconcile gets besides its key. */
export interface ReconcileContext {
  /** Bound to `{ controller, key, reconcileId }`. */
  readonly log: Logger;
  /** Wall-clock ms from the injected clock; pure rules take this, never `Date.now()`. */
  readonly now: () => number;
  /** Aborts when the controller stops: pass it to API calls and sleeps. */
  readonly signal: AbortSignal;
}

/** How a reconcile ended when it did not throw; make it with {@link converged} or {@link recheckIn}. */
export interface Outcome {
  /** Reconcile the key again after this many ms, even if nothing changes. */
  readonly recheckInMs?: number;
}

/**
 * Ten minutes: resync only repairs missed events (a bug or a dropped watch), so it can be rare;
 * time-based work uses {@link recheckIn} instead.
 */
export const DEFAULT_RESYNC_PERIOD_MS = 10 * 60_000;

const CONVERGED: Outcome = Object.freeze({});

/** The key is as it should be; only a change (or the periodic resync) queues it again. */
export function converged(): Outcome {
  return CONVERGED;
}

/**
 * Reconcile the key again after `ms` (a deadline already passed gives 0: at once; one beyond a
 * timer's range, about 24.8 days, is shortened to it: an early recheck only finds nothing due
 * yet). Earlier requests for the same key win over later ones. Throws a RangeError for NaN or
 * infinite delays, which are bugs in the caller's arithmetic.
 */
export function recheckIn(ms: number): Outcome {
  if (!Number.isFinite(ms)) throw new RangeError(`recheckIn needs a finite delay, got ${ms}`);
  return Object.freeze({ recheckInMs: timerDelayMs(ms) });
}

/**
 * A stream of keys to reconcile, as the runner consumes it. Usually made by {@link keysFrom};
 * anything else that can name keys (a timer, another controller) may implement it directly.
 */
export interface Source {
  /** Calls `enqueue` for every key affected by a change; returns a function that unsubscribes. */
  onChange(enqueue: (key: string) => void): () => void;
  /** Every key known now, for the initial fill and the periodic resync. */
  keys(): readonly string[];
  /** Resolves once the source holds a complete view (initial list done). */
  synced(): Promise<void>;
}

/** Kind of change an {@link ObjectSource} reports. */
export type ObjectEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** Receives one change: the object as it is now (for DELETED, as last seen) and, for MODIFIED, before. */
export type ObjectEventHandler<T> = (type: ObjectEventType, obj: T, old?: T) => void;

/**
 * The minimal informer contract the runner needs; `@kf/kube`'s watch cache implements it (and may
 * offer more, such as `get(key)`). Implementations must:
 * - call handlers synchronously after the cache was updated, so `list()` inside a handler already
 *   reflects the change, and keep calling them across re-lists and watch restarts (after a re-list,
 *   report the differences as ADDED / MODIFIED / DELETED);
 * - hand out objects that callers must treat as read-only (controllers `structuredClone` first);
 * - resolve `synced()` once the first complete list is in the cache, and keep it resolved;
 * - return an unsubscribe function from `onEvent` that is safe to call more than once.
 */
export interface ObjectSource<T> {
  /** Every object in the cache now. */
  list(): readonly T[];
  onEvent(handler: ObjectEventHandler<T>): () => void;
  synced(): Promise<void>;
}

/** Tells whether an object, as an event delivers it, is what one of the controller's writes returned. */
export interface EchoRecord<T> {
  /** True consumes the record of that write. */
  isEcho(obj: T): boolean;
}

export interface KeysFromOptions<T> {
  /**
   * Whether a modification is one the controller reads (default: every one is). A controller that
   * reads nothing of what changed (an object's status, a Cluster's conditions) is not woken for it:
   * at 10,000 bindings, a Cluster's status change would queue every binding on the cluster.
   * Additions, deletions and the periodic resync are never filtered.
   */
  readonly changed?: (obj: T, old: T) => boolean;
  /**
   * The record of the controller's own writes (`OwnWrites` in `@kf/kube`, filled by a client made
   * with `withOwnWrites`): an addition or modification that reports nothing but one of them (the
   * object at the resourceVersion its write returned) does not wake the controller again, since
   * the reconcile that wrote it converged on it. Deletions and the periodic resync are never
   * filtered.
   */
  readonly ownWrites?: EchoRecord<T>;
  /**
   * Whether an event of any type wakes the controller (default: every one does). For a
   * controller that, unlike `changed` assumes, has nothing to do for some additions or deletions
   * (a scheduler has nothing to place for a deleted binding). Consulted after `ownWrites`, so an echo
   * is consumed either way.
   */
  readonly wakes?: (type: ObjectEventType, obj: T, old: T | undefined) => boolean;
  /**
   * Whether `keys()`, the initial fill and the periodic resync, names the keys of every object
   * (default true). False for a fan-out source (a Cluster to the bindings on it, a policy to the
   * templates it selects) of a controller whose own objects' source names every key already:
   * naming them again through each of N related objects makes N passes over them, for nothing
   * (1,000 Clusters and 30,000 bindings: thirty million keys built at once). Changes still
   * queue the keys they affect.
   */
  readonly listsKeys?: boolean;
}

/**
 * Adapts an {@link ObjectSource} to a {@link Source}: `keysOf` maps an object to the keys it
 * affects (itself, or its owner for related objects). A modification queues the keys of both the
 * new and the old object, so moving a reference also reconciles what it moved away from.
 */
export function keysFrom<T>(
  objects: ObjectSource<T>,
  keysOf: (obj: T) => readonly string[],
  options: KeysFromOptions<T> = {},
): Source {
  const { changed, ownWrites, wakes, listsKeys = true } = options;
  const ignored = (type: ObjectEventType, obj: T, old: T | undefined): boolean =>
    // The echo first: a recognised echo is consumed, so that its record does not linger.
    (type !== 'DELETED' && ownWrites?.isEcho(obj) === true) ||
    (type === 'MODIFIED' && old !== undefined && changed !== undefined && !changed(obj, old)) ||
    (wakes !== undefined && !wakes(type, obj, old));
  return {
    onChange: (enqueue) =>
      objects.onEvent((type, obj, old) => {
        if (ignored(type, obj, old)) return;
        const keys = new Set(keysOf(obj));
        if (old !== undefined) for (const key of keysOf(old)) keys.add(key);
        for (const key of keys) enqueue(key);
      }),
    keys: () => (listsKeys ? [...new Set(objects.list().flatMap((obj) => keysOf(obj)))] : []),
    synced: () => objects.synced(),
  };
}
