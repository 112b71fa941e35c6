import type { CacheDelta } from './cache-store.ts';

/**
 * An index of a cache's objects by values computed from each (a label's value, an owner): the
 * objects holding a value in one lookup, where a scan of the whole cache would cost every
 * reconcile time in proportion to the fleet (at 20,000 Works, most of the binding controller's).
 * Kept up to date from the same deltas as the cache, before handlers run.
 */
export class CacheIndex<T> {
  readonly #valuesOf: (obj: T) => readonly string[];
  /** value → cache key → object. */
  readonly #byValue = new Map<string, Map<string, T>>();

  constructor(valuesOf: (obj: T) => readonly string[]) {
    this.#valuesOf = valuesOf;
  }

  /** The objects holding `value`, in no particular order. */
  get(value: string): readonly T[] {
    const objects = this.#byValue.get(value);
    return objects === undefined ? [] : [...objects.values()];
  }

  /** Indexes every object of a store (a cache's contents when the index is added). */
  addAll(store: ReadonlyMap<string, T>): void {
    for (const [key, obj] of store) this.#add(key, obj);
  }

  apply(deltas: readonly CacheDelta<T>[]): void {
    for (const d of deltas) {
      if (d.type !== 'ADDED') this.#remove(d.key, d.old);
      if (d.type !== 'DELETED') this.#add(d.key, d.obj);
    }
  }

  #add(key: string, obj: T): void {
    for (const value of this.#valuesOf(obj)) {
      let objects = this.#byValue.get(value);
      if (objects === undefined) {
        objects = new Map();
        this.#byValue.set(value, objects);
      }
      objects.set(key, obj);
    }
  }

  #remove(key: string, obj: T): void {
    for (const value of this.#valuesOf(obj)) {
      const objects = this.#byValue.get(value);
      objects?.delete(key);
      if (objects?.size === 0) this.#byValue.delete(value);
    }
  }
}
