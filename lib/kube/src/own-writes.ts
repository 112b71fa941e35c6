import { keyOf, type KubeObject } from './resource.ts';

/** Writes remembered per object: a few pending echoes are enough (a reconcile writes an object once or twice). */
const PER_OBJECT = 4;

/**
 * The writes a controller made itself, so that the watch events reporting only them do not wake it
 * again. A reconcile that wrote an object converged on what it wrote; the event of that write
 * (an addition or modification at the very resourceVersion the write returned) tells it nothing
 * new. Any other event, and every deletion, still wakes it: a change made by someone else always
 * comes with a resourceVersion of its own, because the API server gives each write its own.
 *
 * Forgetting is always safe (the echo then wakes the controller once more, as with no record), so
 * the record is bounded: a few writes per object, and it starts afresh beyond `maxObjects`.
 */
export class OwnWrites {
  readonly #byKey = new Map<string, string[]>();
  readonly #maxObjects: number;
  readonly #identify: (obj: KubeObject) => string;

  /**
   * `identify` names an object (default namespace/name; objects of several kinds in one record
   * need their kind in it too).
   */
  constructor(opts: { readonly maxObjects?: number; readonly identify?: (obj: KubeObject) => string } = {}) {
    this.#maxObjects = opts.maxObjects ?? 100_000;
    this.#identify = opts.identify ?? keyOf;
  }

  /** The API server answered a write with `written` (nothing recorded without a resourceVersion). */
  wrote(written: KubeObject | undefined): void {
    const rv = written?.metadata?.resourceVersion;
    if (written === undefined || rv === undefined || rv === '') return;
    const key = this.#identify(written);
    let rvs = this.#byKey.get(key);
    if (rvs === undefined) {
      if (this.#byKey.size >= this.#maxObjects) this.#byKey.clear();
      rvs = [];
      this.#byKey.set(key, rvs);
    }
    rvs.push(rv);
    if (rvs.length > PER_OBJECT) rvs.shift();
  }

  /**
   * Whether `obj`, as an event delivers it, is one of the recorded writes. A match is consumed,
   * with every write recorded before it (their events came before this one, or never will).
   */
  isEcho(obj: KubeObject): boolean {
    const key = this.#identify(obj);
    const rvs = this.#byKey.get(key);
    const rv = obj.metadata?.resourceVersion;
    if (rvs === undefined || rv === undefined) return false;
    const i = rvs.indexOf(rv);
    if (i < 0) return false;
    rvs.splice(0, i + 1);
    if (rvs.length === 0) this.#byKey.delete(key);
    return true;
  }

  /** Lets the next event of `key` (as `identify` names it) wake the controller, whatever it reports. */
  forget(key: string): void {
    this.#byKey.delete(key);
  }

  /** Objects with a recorded write (for tests and metrics). */
  get size(): number {
    return this.#byKey.size;
  }
}
