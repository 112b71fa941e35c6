/**
 * Overflow tiers: the term's own clusters are filled first, up to what they can hold,
 * then the first overflow affinity's clusters, and so on.
 */
import type { TargetCluster } from '@kf/api';
import type { Candidate } from '../candidate.ts';
import { fail, succeed, type Outcome } from '../outcome.ts';
import { sumAvailable } from '../select.ts';

/** Divides `replicas` of one tier over its clusters. */
export type TierAssigner = (
  replicas: number,
  tier: readonly Candidate[],
) => Outcome<readonly TargetCluster[]>;

/**
 * Runs `assignTier` per overflow tier in ascending order, giving each at most what its clusters
 * can hold, until the replicas are placed; tiers after that get nothing (so replicas move back
 * from overflow clusters once the term's own clusters can hold them).
 */
export function assignByTiers(
  replicas: number,
  candidates: readonly Candidate[],
  assignTier: TierAssigner,
): Outcome<readonly TargetCluster[]> {
  const tiers = new Map<number, Candidate[]>();
  for (const c of candidates) {
    const tier = tiers.get(c.overflowOrder);
    if (tier === undefined) tiers.set(c.overflowOrder, [c]);
    else tier.push(c);
  }
  const result: TargetCluster[] = [];
  let remaining = replicas;
  for (const order of [...tiers.keys()].sort((a, b) => a - b)) {
    const tier = tiers.get(order) ?? [];
    const tierReplicas = Math.min(remaining, sumAvailable(tier));
    const out = assignTier(tierReplicas, tier);
    if (!out.ok) return out;
    result.push(...out.value);
    remaining -= tierReplicas;
    if (remaining <= 0) break;
  }
  if (remaining > 0) return fail('Unschedulable', 'Clusters available replicas are not enough to schedule.');
  return succeed(result);
}
