/**
 * When a cluster's agent has gone silent: the rule that turns a Pull cluster's `Ready` condition
 * to `Unknown` once no sign of life has been seen for the grace period.
 *
 * Silence is measured by this process, on its own monotonic clock, from the moment it last saw a
 * sign of life: a Lease renewal, a Ready post, or its own first sight of the cluster (see
 * observations.ts). The member's timestamps are never compared with the control plane's clock, so
 * a member whose clock runs ahead is noticed as soon as one whose clock is right, and one whose
 * clock runs behind does not look silent while it renews. A restarted control plane gives every
 * cluster a full grace period from first sight, whatever its Lease's age: a Lease that aged while
 * nobody was watching says nothing about the member, whose agent may simply not have reconnected
 * yet. The controller wakes at exactly the expiry instead of polling.
 */
import {
  clusterConditionTypes,
  clusterReadyMessages,
  clusterReadyReasons,
  conditionStatuses,
  syncModes,
  type ClusterCondition,
  type ConditionUpdate,
  type SyncMode,
} from '@kf/api';

/** Upstream's `--cluster-monitor-grace-period`: silence tolerated once status has been posted. */
export const DEFAULT_CLUSTER_MONITOR_GRACE_PERIOD_MS = 40_000;
/** Upstream's `--cluster-startup-grace-period`: silence tolerated before the first status post. */
export const DEFAULT_CLUSTER_STARTUP_GRACE_PERIOD_MS = 60_000;

export interface HeartbeatGrace {
  /** How long a cluster that has posted Ready may stay silent. */
  readonly monitorGracePeriodMs: number;
  /** How long a cluster that has never posted Ready may stay silent. */
  readonly startupGracePeriodMs: number;
}

export const DEFAULT_HEARTBEAT_GRACE: HeartbeatGrace = {
  monitorGracePeriodMs: DEFAULT_CLUSTER_MONITOR_GRACE_PERIOD_MS,
  startupGracePeriodMs: DEFAULT_CLUSTER_STARTUP_GRACE_PERIOD_MS,
};

/** What the rule reads: the Cluster, and how long this process has seen no sign of its life. */
export interface HeartbeatInput {
  readonly syncMode: SyncMode;
  /** The Cluster's `Ready` condition, if any. */
  readonly ready: ClusterCondition | undefined;
  /** Milliseconds since this process last saw a sign of life (see observations.ts). */
  readonly silentForMs: number;
}

export type HeartbeatVerdict =
  /** Push cluster: the control plane's own status controller reports reachability; nothing to do. */
  | { readonly kind: 'unmonitored' }
  /** Still within the grace period; recheck after `expiresInMs` (always > 0). */
  | { readonly kind: 'fresh'; readonly expiresInMs: number }
  /** Silent for the grace period or longer. `patch` is the Ready condition to write, absent when
   * Ready is already Unknown. */
  | { readonly kind: 'expired'; readonly silentForMs: number; readonly patch?: ConditionUpdate };

/**
 * Judges whether a cluster's agent is still alive.
 *
 * Push clusters are never judged here (upstream's monitor never changes them either: the
 * control-plane status controller writes Ready=False `ClusterNotReachable` for them instead).
 *
 * For Pull clusters the grace period is the startup one while Ready is absent and the monitor one
 * afterwards. Once the silence lasts the grace period exactly, and not a millisecond before, the
 * verdict becomes `expired` with the patch upstream writes: `ClusterStatusNeverUpdated` when Ready
 * was never posted, `ClusterStatusUnknown` otherwise. As upstream, a cluster that renews its Lease
 * but never posts status is never marked Unknown: a renewal is a sign of life.
 */
export function judgeHeartbeat(input: HeartbeatInput, grace: HeartbeatGrace): HeartbeatVerdict {
  if (input.syncMode !== syncModes.pull) return { kind: 'unmonitored' };
  const { ready, silentForMs } = input;
  const graceMs = ready === undefined ? grace.startupGracePeriodMs : grace.monitorGracePeriodMs;
  if (silentForMs < graceMs) return { kind: 'fresh', expiresInMs: graceMs - silentForMs };
  const patch = unknownReadyPatch(ready);
  return { kind: 'expired', silentForMs, ...(patch === undefined ? {} : { patch }) };
}

function unknownReadyPatch(ready: ClusterCondition | undefined): ConditionUpdate | undefined {
  if (ready === undefined) {
    return {
      type: clusterConditionTypes.ready,
      status: conditionStatuses.unknown,
      reason: clusterReadyReasons.clusterStatusNeverUpdated,
      message: clusterReadyMessages.clusterStatusNeverUpdated,
    };
  }
  if (ready.status === conditionStatuses.unknown) return undefined;
  return {
    type: clusterConditionTypes.ready,
    status: conditionStatuses.unknown,
    reason: clusterReadyReasons.clusterStatusUnknown,
    message: clusterReadyMessages.clusterStatusUnknown,
  };
}
