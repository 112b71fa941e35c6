/**
 * Works this process has just written whose write its cache does not show yet. The binding
 * controller plans each Work from its cache; a binding event that arrives between a write and the
 * watch event of that write would plan from the older copy and send the same write again, a
 * write that changes nothing. So a written Work is left alone until the cache shows any newer
 * copy of it (whatever the change: the watch delivers in order, so the first copy after the one
 * planned from includes the write or comes after it), or until a deadline passes, so that a
 * watch that never delivers cannot hold a Work back.
 */
export interface WrittenWorksOptions {
  /** How long a write holds its Work back at most (default 10 s). */
  readonly holdMs?: number;
}

interface Written {
  /** The resourceVersion of the copy the write was planned from (undefined: a create). */
  readonly plannedFrom: string | undefined;
  readonly untilMs: number;
}

export class WrittenWorks {
  readonly #holdMs: number;
  readonly #byKey = new Map<string, Written>();

  constructor(opts: WrittenWorksOptions = {}) {
    this.#holdMs = opts.holdMs ?? 10_000;
  }

  /** A write of `key`, planned from the cached copy at `plannedFrom`, has succeeded. */
  wrote(key: string, plannedFrom: string | undefined, nowMs: number): void {
    this.#byKey.set(key, { plannedFrom, untilMs: nowMs + this.#holdMs });
  }

  /** The cache has a copy of `key` at `resourceVersion` (undefined: the Work is gone). */
  observed(key: string, resourceVersion: string | undefined): void {
    const w = this.#byKey.get(key);
    if (w !== undefined && resourceVersion !== w.plannedFrom) this.#byKey.delete(key);
  }

  /** Milliseconds `key` is still held back (0: plan it from the cache). */
  heldForMs(key: string, nowMs: number): number {
    const w = this.#byKey.get(key);
    if (w === undefined) return 0;
    if (nowMs >= w.untilMs) {
      this.#byKey.delete(key);
      return 0;
    }
    return w.untilMs - nowMs;
  }

  get size(): number {
    return this.#byKey.size;
  }
}
