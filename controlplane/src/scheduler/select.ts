/**
 * Cluster selection under spread constraints: which of the ranked feasible clusters the
 * replicas may go to. Without constraints, or with static weights, every feasible cluster.
 */
import type { SpreadView } from './binding-view.ts';
import type { Candidate } from './candidate.ts';
import { fail, succeed, type Outcome } from './outcome.ts';
import { selectByRegion } from './select-region.ts';

export interface SelectionPolicy {
  readonly spreadConstraints: readonly SpreadView[];
  /** Static weights ignore spread constraints upstream. */
  readonly staticWeighting: boolean;
  /** Replicas the selection must be able to hold; -1 ignores capacity (Duplicated). */
  readonly needReplicas: number;
  /** The binding's replicas and whether each cluster gets all of them (for region scores). */
  readonly replicas: number;
  readonly duplicated: boolean;
}

/** Picks clusters from `ranked` (sorted by {@link compareCandidates}). */
export function selectClusters(
  ranked: readonly Candidate[],
  policy: SelectionPolicy,
): Outcome<readonly Candidate[]> {
  if (policy.spreadConstraints.length === 0 || policy.staticWeighting) return succeed(ranked);
  const region = policy.spreadConstraints.find((s) => s.field === 'region');
  const cluster = policy.spreadConstraints.find((s) => s.field === 'cluster');
  if (region !== undefined) return selectByRegion(ranked, region, cluster, policy);
  if (cluster !== undefined) return selectByCluster(ranked, cluster, policy.needReplicas);
  return fail('SchedulerError', 'just support cluster and region spread constraint');
}

/**
 * The best `min(#clusters, maxGroups)` clusters; when they cannot hold `needReplicas`, weaker
 * picks are swapped, from the last one backwards, for the roomiest remaining cluster that has
 * more room than they do.
 */
export function selectByCluster(
  ranked: readonly Candidate[],
  constraint: SpreadView,
  needReplicas: number,
): Outcome<readonly Candidate[]> {
  if (ranked.length < constraint.minGroups) {
    return fail('SchedulerError', 'the number of feasible clusters is less than spreadConstraint.MinGroups');
  }
  const need = Math.min(ranked.length, constraint.maxGroups);
  const selected = ranked.slice(0, need);
  if (needReplicas === -1) return succeed(selected);
  const rest = ranked.slice(need);
  let sum = sumAvailable(selected);
  for (let i = need - 1; i >= 0 && sum < needReplicas; i--) {
    const weak = selected[i];
    if (weak === undefined) continue;
    const j = roomiestAbove(rest, weak.available);
    const strong = rest[j];
    if (strong === undefined) continue;
    selected[i] = strong;
    rest[j] = weak;
    sum += strong.available - weak.available;
  }
  if (sum < needReplicas) return fail('SchedulerError', `no enough resource when selecting ${need} clusters`);
  return succeed(selected);
}

/** Index of the first cluster with the most available replicas above `floor`; -1 if none. */
function roomiestAbove(clusters: readonly Candidate[], floor: number): number {
  let best = -1;
  let bestAvailable = floor;
  clusters.forEach((c, i) => {
    if (c.available > bestAvailable) {
      best = i;
      bestAvailable = c.available;
    }
  });
  return best;
}

export function sumAvailable(clusters: readonly Candidate[]): number {
  let sum = 0;
  for (const c of clusters) sum += c.available;
  return sum;
}
