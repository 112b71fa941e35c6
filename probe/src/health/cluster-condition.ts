import {
  clusterConditionTypes,
  findCondition,
  setCondition,
  type Cluster,
  type ClusterCondition,
  type ConditionStatus,
} from '@kf/api';

/** The cluster condition the leader wants, as decided from the node verdicts. */
export interface DesiredCondition {
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
}

/** The merge patch of the Cluster's status subresource. */
export interface ClusterStatusPatch {
  /** Makes the patch fail with Conflict when the Cluster changed since it was read. */
  readonly metadata: { readonly resourceVersion: string };
  readonly status: { readonly conditions: readonly ClusterCondition[] };
}

export type ClusterWrite =
  | { readonly kind: 'skip'; readonly reason: 'ClusterNotFound' | 'ClusterDeleting' }
  /** The condition already says this: write nothing. */
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'patch'; readonly patch: ClusterStatusPatch };

/**
 * Plans the write of `ServiceDomainNameResolutionReady` on `cluster` (as last read): nothing when
 * the Cluster is missing or being deleted, or when status, reason and message already match;
 * otherwise the whole condition list with only that condition set — its lastTransitionTime kept
 * unless the status changes — guarded by the resourceVersion read, so that a concurrent writer
 * of another condition is never overwritten (a JSON merge patch replaces lists whole).
 */
export function planClusterWrite(
  cluster: Cluster | undefined,
  desired: DesiredCondition,
  nowMs: number,
): ClusterWrite {
  if (cluster === undefined) return { kind: 'skip', reason: 'ClusterNotFound' };
  if (cluster.metadata.deletionTimestamp !== undefined) return { kind: 'skip', reason: 'ClusterDeleting' };
  const type = clusterConditionTypes.serviceDomainNameResolutionReady;
  const current = findCondition(cluster.status, type);
  if (
    current?.status === desired.status &&
    (current.reason ?? '') === desired.reason &&
    (current.message ?? '') === desired.message
  ) {
    return { kind: 'unchanged' };
  }
  const conditions = setCondition(cluster.status?.conditions, { type, ...desired }, nowMs);
  return {
    kind: 'patch',
    patch: { metadata: { resourceVersion: cluster.metadata.resourceVersion ?? '' }, status: { conditions } },
  };
}
