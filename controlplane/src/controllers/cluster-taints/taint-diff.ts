/** What changed between two versions of a cluster's taint list, by key and effect. */
import { hasTaint, type Taint } from '@kf/api';

/** A desired taint list and how it differs from the current one. */
export interface TaintPlan {
  /** The whole desired `spec.taints`, in order: retained taints first, then added ones. */
  readonly taints: readonly Taint[];
  /** Taints in `taints` whose key and effect were not on the cluster. */
  readonly added: readonly Taint[];
  /** Taints on the cluster whose key and effect are not in `taints`. */
  readonly removed: readonly Taint[];
  /** True when `taints` differs from the current list in any way (order included): write it. */
  readonly changed: boolean;
}

/** Builds a plan from the current list and the desired one; taints are identified by key and effect. */
export function planTaintChange(current: readonly Taint[] | undefined, desired: readonly Taint[]): TaintPlan {
  const before = current ?? [];
  return {
    taints: desired,
    added: desired.filter((t) => !hasTaint(before, t)),
    removed: before.filter((t) => !hasTaint(desired, t)),
    changed: before.length !== desired.length || before.some((t, i) => !isIdentical(t, desired[i])),
  };
}

function isIdentical(a: Taint, b: Taint | undefined): boolean {
  return (
    b !== undefined &&
    a.key === b.key &&
    a.effect === b.effect &&
    (a.value ?? '') === (b.value ?? '') &&
    a.timeAdded === b.timeAdded
  );
}

/**
 * Upstream's wording for the `TaintClusterSucceed` Event: `cluster now has
 * taints([{Key:k,Effect:e},{Key:k,Value:v,Effect:e}])` or `cluster now does not have taints`.
 */
export function describeTaints(taints: readonly Taint[]): string {
  if (taints.length === 0) return 'cluster now does not have taints';
  const items = taints.map((t) =>
    t.value === undefined || t.value === ''
      ? `{Key:${t.key},Effect:${t.effect}}`
      : `{Key:${t.key},Value:${t.value},Effect:${t.effect}}`,
  );
  return `cluster now has taints([${items.join(',')}])`;
}
