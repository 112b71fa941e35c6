/**
 * Which remedy actions apply to a cluster (`Cluster.status.remedyActions`), from the Remedies that
 * name it and whose decision matches hold on its conditions.
 *
 * Deliberate difference from upstream: an explicit empty `decisionMatches: []` acts at once, like
 * an absent one. Upstream's Go decodes `[]` into a non-nil empty slice and then finds no match, so
 * the Remedy never acts; its API documentation says the opposite ("if empty, the actions are
 * performed immediately"), and a Remedy nobody can make fire is never what its author meant. A
 * Remedy meant to act on nothing should not list the cluster, or should list no actions.
 */
import type { Cluster, ClusterCondition, DecisionMatch, Remedy } from '@kf/api';

/**
 * True when the Remedy concerns `clusterName`: no `clusterAffinity` concerns every cluster; an
 * affinity concerns exactly the clusters it names (none when the list is empty or absent).
 */
export function isRemedyForCluster(remedy: Remedy, clusterName: string): boolean {
  const affinity = remedy.spec.clusterAffinity;
  if (affinity === undefined) return true;
  return affinity.clusterNames?.includes(clusterName) === true;
}

/**
 * True when the Remedy's decision matches hold on the conditions: none (absent or empty) always
 * hold; otherwise any one holding is enough. A match holds when the cluster has a condition of its
 * type whose status is (`Equal`) or is not (`NotEqual`) the given one; a missing condition, a match
 * without `clusterConditionMatch` and an unknown operator never hold.
 */
export function areDecisionMatchesMet(
  conditions: readonly ClusterCondition[],
  matches: readonly DecisionMatch[] | undefined,
): boolean {
  if (matches === undefined || matches.length === 0) return true;
  return matches.some((m) => isDecisionMatchMet(conditions, m));
}

function isDecisionMatchMet(conditions: readonly ClusterCondition[], m: DecisionMatch): boolean {
  const requirement = m.clusterConditionMatch;
  if (requirement === undefined) return false;
  const condition = conditions.find((c) => c.type === requirement.conditionType);
  if (condition === undefined) return false;
  switch (requirement.operator as string) {
    case 'Equal':
      return condition.status === requirement.conditionStatus;
    case 'NotEqual':
      return condition.status !== requirement.conditionStatus;
    default:
      return false;
  }
}

/**
 * The cluster's `status.remedyActions`: the sorted, de-duplicated union of the actions of every
 * Remedy for the cluster whose decision matches hold. Empty means the field is removed, which is
 * also how actions go away when conditions clear or Remedies are deleted.
 */
export function decideRemedyActions(cluster: Cluster, remedies: readonly Remedy[]): readonly string[] {
  const name = cluster.metadata.name ?? '';
  const conditions = cluster.status?.conditions ?? [];
  const actions = new Set<string>();
  for (const remedy of remedies) {
    if (!isRemedyForCluster(remedy, name)) continue;
    if (!areDecisionMatchesMet(conditions, remedy.spec.decisionMatches)) continue;
    for (const action of remedy.spec.actions ?? []) actions.add(action);
  }
  return [...actions].sort();
}
