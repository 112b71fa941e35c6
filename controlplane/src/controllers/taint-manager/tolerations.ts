/**
 * Kubernetes toleration matching for cluster taints. Comparison operators (`Lt`, `Gt`) are
 * disabled for clusters, as upstream: they tolerate nothing.
 */
import type { Taint, Toleration } from '@kf/api';

/**
 * True when `toleration` tolerates `taint`: its effect is empty or the taint's, its key is empty
 * or the taint's, and its operator agrees (`Exists`: any value; `Equal` or empty: the same value,
 * an absent value being the empty one; anything else: no). An empty key with `Exists` and no
 * effect therefore tolerates every taint.
 */
export function isToleratedBy(taint: Taint, toleration: Toleration): boolean {
  if (!isEmptyOr(toleration.effect, taint.effect) || !isEmptyOr(toleration.key, taint.key)) return false;
  switch ((toleration.operator ?? '') as string) {
    case 'Exists':
      return true;
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/** An absent or empty toleration field matches anything; otherwise it must be equal. */
function isEmptyOr(field: string | undefined, wanted: string): boolean {
  return field === undefined || field === '' || field === wanted;
}

/** A taint and the toleration that tolerates it, if any. */
export interface TaintToleration {
  readonly taint: Taint;
  readonly toleration: Toleration | undefined;
}

/** Pairs each taint with the first toleration that tolerates it (Kubernetes' rule: first wins). */
export function pairTolerations(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
): readonly TaintToleration[] {
  return taints.map((taint) => ({ taint, toleration: tolerations.find((t) => isToleratedBy(taint, t)) }));
}
