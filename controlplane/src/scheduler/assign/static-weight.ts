/**
 * Static weights: each cluster weighs the largest weight among the rules whose
 * `targetCluster` selects it; clusters no rule selects get nothing, unless no rule selects any
 * cluster, when all weigh 1. Recomputed from scratch on every schedule.
 */
import type { StaticClusterWeight, TargetCluster } from '@kf/api';
import { matchesAffinity } from '../affinity.ts';
import type { Candidate } from '../candidate.ts';
import type { ClusterView } from '../cluster-view.ts';
import type { NameOrder } from '../name-order.ts';
import { apportion, type Party } from './webster.ts';

/** Replicas by weight, sorted by name; clusters with 0 replicas are listed too. */
export function assignStaticWeight(
  replicas: number,
  candidates: readonly Candidate[],
  rules: readonly StaticClusterWeight[] | undefined,
  order: NameOrder,
): readonly TargetCluster[] {
  let parties: Party[] = candidates
    .map((c) => ({ name: c.name, votes: rules === undefined ? 1 : weightOf(c.cluster, rules) }))
    .filter((p) => p.votes > 0);
  if (parties.length === 0) parties = candidates.map((c) => ({ name: c.name, votes: 1 }));
  return apportion(replicas, parties, order).map((s) => ({ name: s.name, replicas: s.seats }));
}

/** The largest weight of a rule selecting the cluster; 0 when none does. */
export function weightOf(cluster: ClusterView, rules: readonly StaticClusterWeight[]): number {
  let weight = 0;
  for (const r of rules) {
    if (r.weight > weight && matchesAffinity(cluster, r.targetCluster)) weight = r.weight;
  }
  return weight;
}
