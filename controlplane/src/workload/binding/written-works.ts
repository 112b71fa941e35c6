/**
 * The Works this process has just written, for two uses of the same record.
 *
 * Holding back: the binding controller plans each Work from its cache; a binding event that
 * arrives between a write and the watch event of that write would plan from the older copy and
 * send the same write again, a write that changes nothing. So a written Work is left alone until
 * the cache shows any newer copy of it (whatever the change: the watch delivers in order, so the
 * first copy after the one planned from includes the write or comes after it), or until a deadline
 * passes, so that a watch that never delivers cannot hold a Work back.
 *
 * Echoes: the watch event carrying exactly the resourceVersion a write was answered with tells the
 * controller nothing new (the reconcile that wrote it converged on it), so it need not wake the
 * binding, unless a reconcile found the Work held back meanwhile and waits for that very event.
 * Any other event wakes it: the API server gives each write its own resourceVersion.
 *
 * Forgetting a write is always safe (its event then wakes the binding once more), so the record is
 * bounded: it starts afresh beyond `maxWorks`.
 */
export interface WrittenWorksOptions {
  /** How long a write holds its Work back at most (default 10 s). */
  readonly holdMs?: number;
  /** Works remembered at most before the record starts afresh (default 100,000). */
  readonly maxWorks?: number;
}

interface Written {
  /** The resourceVersion of the copy the write was planned from (undefined: a create). */
  readonly plannedFrom: string | undefined;
  /** The resourceVersion the API server answered the write with (undefined: not given). */
  readonly writtenAs: string | undefined;
  readonly untilMs: number;
  /** The cache has shown a copy other than the one planned from: nothing is held back. */
  shown: boolean;
  /** A reconcile found the Work held back: the write's event must wake the binding. */
  awaited: boolean;
}

/** A Work as a watch event delivers it: its key and resourceVersion. */
export interface WorkCopy {
  readonly key: string;
  readonly resourceVersion: string | undefined;
}

export class WrittenWorks {
  readonly #holdMs: number;
  readonly #maxWorks: number;
  readonly #byKey = new Map<string, Written>();

  constructor(opts: WrittenWorksOptions = {}) {
    this.#holdMs = opts.holdMs ?? 10_000;
    this.#maxWorks = opts.maxWorks ?? 100_000;
  }

  /**
   * A write of `key`, planned from the cached copy at `plannedFrom`, succeeded and was answered
   * with `writtenAs`.
   */
  wrote(key: string, plannedFrom: string | undefined, writtenAs: string | undefined, nowMs: number): void {
    if (!this.#byKey.has(key) && this.#byKey.size >= this.#maxWorks) this.#byKey.clear();
    this.#byKey.set(key, {
      plannedFrom,
      writtenAs,
      untilMs: nowMs + this.#holdMs,
      shown: false,
      awaited: false,
    });
  }

  /**
   * The cache has a copy of `key` at `resourceVersion` (undefined: the Work is gone). The copy the
   * write was answered with is kept on record until `isEcho` has looked at it (the two may be
   * called in either order for one event); any other newer copy ends the record.
   */
  observed(key: string, resourceVersion: string | undefined): void {
    const w = this.#byKey.get(key);
    if (w === undefined || resourceVersion === w.plannedFrom) return;
    if (resourceVersion !== undefined && resourceVersion === w.writtenAs) w.shown = true;
    else this.#byKey.delete(key);
  }

  /**
   * Whether an event delivering `copy` only reports this process's own write, which nobody
   * waits for. Consumes the record of that write either way.
   */
  isEcho(copy: WorkCopy): boolean {
    const w = this.#byKey.get(copy.key);
    if (w === undefined || w.writtenAs === undefined || copy.resourceVersion !== w.writtenAs) return false;
    this.#byKey.delete(copy.key);
    return !w.awaited;
  }

  /** Milliseconds `key` is still held back (0: plan it from the cache). */
  heldForMs(key: string, nowMs: number): number {
    const w = this.#byKey.get(key);
    if (w === undefined || w.shown) return 0;
    if (nowMs >= w.untilMs) {
      this.#byKey.delete(key);
      return 0;
    }
    // The event of that write is still to come: it is to wake the binding.
    w.awaited = true;
    return w.untilMs - nowMs;
  }

  get size(): number {
    return this.#byKey.size;
  }
}
