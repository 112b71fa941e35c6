/** Cluster taint list helpers. Taints are identified by key and effect; the value is ignored. */
import type { TaintEffect } from './meta.ts';

/** What identifies a taint on a cluster. */
export interface TaintIdentity {
  readonly key: string;
  readonly effect: TaintEffect;
}

export function isSameTaint(a: TaintIdentity, b: TaintIdentity): boolean {
  return a.key === b.key && a.effect === b.effect;
}

export function findTaint<T extends TaintIdentity>(
  taints: readonly T[] | undefined,
  wanted: TaintIdentity,
): T | undefined {
  return taints?.find((t) => isSameTaint(t, wanted));
}

export function hasTaint(taints: readonly TaintIdentity[] | undefined, wanted: TaintIdentity): boolean {
  return findTaint(taints, wanted) !== undefined;
}

/**
 * Returns a new list with `taint` appended, unless a taint with the same key and effect is
 * already there (then the existing one, with its value and timeAdded, is kept).
 */
export function addTaint<T extends TaintIdentity>(taints: readonly T[] | undefined, taint: T): readonly T[] {
  const list = taints ?? [];
  return hasTaint(list, taint) ? [...list] : [...list, taint];
}

/** Returns a new list without taints of the same key and effect as `unwanted`. */
export function removeTaint<T extends TaintIdentity>(
  taints: readonly T[] | undefined,
  unwanted: TaintIdentity,
): readonly T[] {
  return (taints ?? []).filter((t) => !isSameTaint(t, unwanted));
}
