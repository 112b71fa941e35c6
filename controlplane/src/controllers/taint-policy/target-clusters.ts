/**
 * Whether a Cluster is one a ClusterTaintPolicy manages (`spec.targetClusters`, a ClusterAffinity).
 * The matching is the scheduler's cluster-affinity rule, so a policy and a placement that name the
 * same affinity always select the same clusters.
 */
import { matchesLabelSelector, type Cluster, type ClusterAffinity, type LabelSelector } from '@kf/api';
import { matchesAffinity } from '../../scheduler/affinity.ts';
import { cachedClusterView } from '../../scheduler/cluster-view.ts';

/** True when `cluster` matches `affinity`; an unset affinity matches every cluster. */
export function isClusterTargeted(cluster: Cluster, affinity: ClusterAffinity | undefined): boolean {
  return affinity === undefined || matchesAffinity(cachedClusterView(cluster), affinity);
}

/** Kubernetes label selector semantics (see the scheduler's `matchesLabelSelector`). */
export function isLabelSelectorMatched(
  labels: Readonly<Record<string, string>>,
  selector: LabelSelector,
): boolean {
  return matchesLabelSelector(labels, selector);
}
