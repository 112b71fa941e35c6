import { keyOf, type KubeObject } from './resource.ts';

/** A change to the cache, as handlers see it. */
export type CacheDelta<T> =
  | { readonly type: 'ADDED'; readonly key: string; readonly obj: T }
  | { readonly type: 'MODIFIED'; readonly key: string; readonly obj: T; readonly old: T }
  /** `obj` is the last state known (the watch event's, or the cached one after a relist). */
  | { readonly type: 'DELETED'; readonly key: string; readonly obj: T; readonly old: T };

function rvOf(obj: KubeObject): string | undefined {
  return obj.metadata?.resourceVersion;
}

/** Same object at the same resourceVersion: nothing changed. Versions are compared only for equality. */
function unchanged(a: KubeObject, b: KubeObject): boolean {
  const rv = rvOf(a);
  return rv !== undefined && rv === rvOf(b);
}

/**
 * The change one watch event makes to the cache, or undefined when it makes none (a repeat of
 * what is cached, or the deletion of something never seen). ADDED for a cached key becomes
 * MODIFIED and MODIFIED for an unknown key becomes ADDED, so handlers always see the truth.
 */
export function planWatchEvent<T extends KubeObject>(
  store: ReadonlyMap<string, T>,
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  obj: T,
): CacheDelta<T> | undefined {
  const key = keyOf(obj);
  const old = store.get(key);
  if (type === 'DELETED') return old === undefined ? undefined : { type, key, obj, old };
  if (old === undefined) return { type: 'ADDED', key, obj };
  if (unchanged(old, obj)) return undefined;
  return { type: 'MODIFIED', key, obj, old };
}

/**
 * What a fresh list changes compared with the cache: ADDED for new keys, MODIFIED for a
 * different resourceVersion, DELETED for keys no longer listed. Listed objects come first in
 * list order, then deletions by key, so the result is deterministic.
 */
export function diffRelist<T extends KubeObject>(
  store: ReadonlyMap<string, T>,
  items: readonly T[],
): CacheDelta<T>[] {
  const out: CacheDelta<T>[] = [];
  const seen = new Set<string>();
  for (const obj of items) {
    const key = keyOf(obj);
    seen.add(key);
    const old = store.get(key);
    if (old === undefined) out.push({ type: 'ADDED', key, obj });
    else if (!unchanged(old, obj)) out.push({ type: 'MODIFIED', key, obj, old });
  }
  const gone = [...store.keys()].filter((k) => !seen.has(k)).sort();
  for (const key of gone) {
    const old = store.get(key);
    if (old !== undefined) out.push({ type: 'DELETED', key, obj: old, old });
  }
  return out;
}

/** Applies deltas made by {@link planWatchEvent} or {@link diffRelist} to the store. */
export function applyDeltas<T>(store: Map<string, T>, deltas: readonly CacheDelta<T>[]): void {
  for (const d of deltas) {
    if (d.type === 'DELETED') store.delete(d.key);
    else store.set(d.key, d.obj);
  }
}

/** Freezes a plain JSON value in depth, so that a cached object cannot be changed by a consumer. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
