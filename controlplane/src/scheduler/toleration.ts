/** Kubernetes toleration matching for cluster taints (comparison operators never tolerate). */
import type { Taint, TaintEffect, Toleration } from '@kf/api';

/**
 * True when `t` tolerates `taint`: its effect is empty or equal, its key is empty or equal, and
 * its operator matches (`Exists` any value, `Equal` or empty the same value; anything else no).
 */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (!isEmptyOr(t.effect, taint.effect) || !isEmptyOr(t.key, taint.key)) return false;
  const operator = (t.operator ?? '') as string;
  if (operator === 'Exists') return true;
  if (operator === '' || operator === 'Equal') return (t.value ?? '') === (taint.value ?? '');
  return false;
}

function isEmptyOr(wanted: string | undefined, actual: string): boolean {
  return wanted === undefined || wanted === '' || wanted === actual;
}

/** The first taint with one of `effects` that no toleration tolerates. */
export function findUntoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  effects: readonly TaintEffect[],
): Taint | undefined {
  return taints.find((x) => effects.includes(x.effect) && !tolerations.some((t) => tolerates(t, x)));
}

/** `key=value:effect`, or `key:effect` without a value (how Kubernetes prints a taint). */
export function formatTaint(taint: Taint): string {
  const value = taint.value ?? '';
  return value === '' ? `${taint.key}:${taint.effect}` : `${taint.key}=${value}:${taint.effect}`;
}
