/**
 * Whether a binding must leave a cluster because of the cluster's NoExecute taints, and when.
 *
 * As upstream: only NoExecute taints count; a taint no toleration tolerates evicts now; a
 * tolerated taint is tolerated for the `tolerationSeconds` of its toleration counted from the
 * taint's `timeAdded` (no seconds: forever; zero or negative: not at all); the binding leaves at
 * the earliest such deadline, and a deadline already reached evicts now.
 *
 * Deliberate difference: each taint is timed by the toleration that tolerates it (the first one
 * in the list, Kubernetes' rule). Upstream also applies a used toleration's seconds to every other
 * taint it happens to match, so a taint another toleration tolerates forever could still start a
 * timer; here it cannot.
 *
 * A tolerated NoExecute taint without `timeAdded` starts no timer (as upstream). The API server
 * stamps `timeAdded` on every NoExecute taint, so this only happens to objects written around it.
 */
import { parseTime, taintEffects, type Taint, type TargetCluster, type Toleration } from '@kf/api';
import { pairTolerations, type TaintToleration } from './tolerations.ts';

export interface EvictionInput {
  /** The tainted cluster. */
  readonly clusterName: string;
  /** The binding's `spec.clusters`. */
  readonly boundClusters: readonly TargetCluster[] | undefined;
  /** The cluster's `spec.taints`. */
  readonly taints: readonly Taint[] | undefined;
  /** `clusterTolerations` of the binding's applied placement. */
  readonly tolerations: readonly Toleration[];
  readonly nowMs: number;
}

export type KeepReason =
  /** The binding does not (or no longer) place anything on the cluster. */
  | 'NotBound'
  /** The cluster has no NoExecute taint. */
  | 'NoNoExecuteTaint'
  /** Every NoExecute taint is tolerated without a time limit. */
  | 'ToleratedForever';

export type EvictionVerdict =
  | { readonly kind: 'keep'; readonly reason: KeepReason }
  /**
   * Evict now. `untolerated` lists the NoExecute taints nothing tolerates; it is empty when the
   * eviction comes from a toleration that ran out.
   */
  | { readonly kind: 'evictNow'; readonly untolerated: readonly Taint[] }
  /** Tolerated until `atMs` (in `inMs`, always > 0); recheck then. */
  | { readonly kind: 'evictAt'; readonly atMs: number; readonly inMs: number; readonly taint: Taint };

export function judgeEviction(input: EvictionInput): EvictionVerdict {
  if (input.boundClusters?.some((c) => c.name === input.clusterName) !== true) {
    return { kind: 'keep', reason: 'NotBound' };
  }
  const noExecute = (input.taints ?? []).filter((t) => t.effect === taintEffects.noExecute);
  if (noExecute.length === 0) return { kind: 'keep', reason: 'NoNoExecuteTaint' };
  const pairs = pairTolerations(noExecute, input.tolerations);
  const untolerated = pairs.filter((p) => p.toleration === undefined).map((p) => p.taint);
  if (untolerated.length > 0) return { kind: 'evictNow', untolerated };
  const earliest = earliestDeadline(pairs);
  if (earliest === undefined) return { kind: 'keep', reason: 'ToleratedForever' };
  if (earliest.atMs <= input.nowMs) return { kind: 'evictNow', untolerated: [] };
  return { kind: 'evictAt', atMs: earliest.atMs, inMs: earliest.atMs - input.nowMs, taint: earliest.taint };
}

function earliestDeadline(
  pairs: readonly TaintToleration[],
): { readonly atMs: number; readonly taint: Taint } | undefined {
  let earliest: { atMs: number; taint: Taint } | undefined;
  for (const { taint, toleration } of pairs) {
    const seconds = toleration?.tolerationSeconds;
    const addedAtMs = parseTime(taint.timeAdded);
    if (seconds === undefined || addedAtMs === undefined) continue;
    const atMs = addedAtMs + seconds * 1000;
    if (earliest === undefined || atMs < earliest.atMs) earliest = { atMs, taint };
  }
  return earliest;
}
