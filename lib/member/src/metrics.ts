/**
 * What the member side records about its cluster: the host (the agent, one cluster per process)
 * implements it with its metric families, labelled by the cluster.
 */
import type { Cluster } from '@kf/api';

export const WORK_APPLY_RESULTS = ['success', 'error', 'refused'] as const;
export type WorkApplyResult = (typeof WORK_APPLY_RESULTS)[number];
export const WORK_DELETE_RESULTS = ['success', 'error'] as const;
export type WorkDeleteResult = (typeof WORK_DELETE_RESULTS)[number];

export interface MemberMetrics {
  /** After each status sync: Ready and the summaries of the stored status. */
  observeCluster(cluster: Cluster | undefined, ready: boolean): void;
  statusSyncSeconds(seconds: number): void;
  leaseRenewed(seconds: number): void;
  leaseRenewFailed(): void;
  workApplied(result: WorkApplyResult): void;
  workDeleted(result: WorkDeleteResult): void;
  /** A fenced Work's copies were deleted for want of a Lease renewal. */
  workFenced(): void;
  /** Works whose copies the fence record lists (fenced or not). */
  fenceTracked(count: number): void;
}
