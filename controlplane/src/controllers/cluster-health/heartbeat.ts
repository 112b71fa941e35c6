/**
 * When a cluster's agent has gone silent: the rule that turns a Pull cluster's `Ready` condition
 * to `Unknown` once no sign of life has been seen for the grace period.
 *
 * Upstream keeps an in-memory "probe timestamp" (the controller's own clock when it last saw the
 * Lease renew or the Ready condition change) and polls it every `--cluster-monitor-period` (5s), so
 * an agent that dies at t0 is marked between t0+40s and roughly t0+50s, and a restart of the
 * controller pushes every deadline back by a full grace period. Here the deadline is computed from
 * the objects themselves (the Lease's `renewTime`, the Ready condition's `lastTransitionTime`, the
 * Cluster's `creationTimestamp`), so the controller can wake at exactly the expiry instead of
 * polling, and also from the moment this process first saw the cluster: after a restart of the
 * control plane (or of its API server, or both) every cluster gets a full grace period from first
 * sight, whatever its Lease's age, because a Lease that aged while nobody was watching says
 * nothing about the member — its agent may simply not have reconnected yet. Marking it Unknown
 * at once would taint and evict a healthy cluster. The cost: those times come from the agent's clock, so an agent clock
 * that runs S ahead of the control plane's delays detection by S, and one that runs behind by more
 * than grace minus the renew interval (40s − 10s by default) makes a live cluster look silent.
 * Members are expected to run NTP, as Kubernetes nodes are.
 */
import {
  clusterConditionTypes,
  clusterReadyMessages,
  clusterReadyReasons,
  conditionStatuses,
  parseTime,
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

/** What the rule reads from a Cluster and its Lease. */
export interface HeartbeatInput {
  readonly syncMode: SyncMode;
  /** The Cluster's `metadata.creationTimestamp`. */
  readonly createdAtMs: number | undefined;
  /** The Cluster's `Ready` condition, if any. */
  readonly ready: ClusterCondition | undefined;
  /** `spec.renewTime` of Lease `karmada-cluster/<cluster>`; undefined when there is no Lease. */
  readonly renewedAtMs: number | undefined;
  /** When this process first saw the cluster (its own clock); undefined in pure replays. */
  readonly firstSeenAtMs?: number | undefined;
  readonly nowMs: number;
}

export type HeartbeatVerdict =
  /** Push cluster: the control plane's own status controller reports reachability; nothing to do. */
  | { readonly kind: 'unmonitored' }
  /** Still within the grace period; recheck after `expiresInMs` (always > 0). */
  | { readonly kind: 'fresh'; readonly lastSeenAtMs: number; readonly expiresInMs: number }
  /**
   * Silent for longer than the grace period. `patch` is the Ready condition to write, absent when
   * Ready is already Unknown. `silentForMs` is absent when there was no sign of life at all.
   */
  | {
      readonly kind: 'expired';
      readonly silentForMs?: number;
      readonly patch?: ConditionUpdate;
    };

/**
 * Judges whether a cluster's agent is still alive.
 *
 * Push clusters are never judged here (upstream's monitor never changes them either: the
 * control-plane status controller writes Ready=False `ClusterNotReachable` for them instead).
 *
 * For Pull clusters the last sign of life is the latest of: the Lease renewal, the Ready
 * condition's `lastTransitionTime` unless Ready is Unknown (a status post by the agent; Unknown is
 * only ever written by this rule), the Cluster's creation, and the moment this process first saw
 * the cluster (so a restarted monitor never judges a cluster on silence it did not witness). The grace period is the startup one
 * while Ready is absent and the monitor one afterwards. At `lastSeen + grace` exactly, and not a
 * millisecond before, the verdict becomes `expired` with the patch upstream writes:
 * `ClusterStatusNeverUpdated` when Ready was never posted, `ClusterStatusUnknown` otherwise.
 * As upstream, a cluster that renews its Lease but never posts status is never marked Unknown.
 */
export function judgeHeartbeat(input: HeartbeatInput, grace: HeartbeatGrace): HeartbeatVerdict {
  if (input.syncMode !== syncModes.pull) return { kind: 'unmonitored' };
  const { ready, nowMs } = input;
  const lastSeenAtMs = latestSignOfLife(input);
  const graceMs = ready === undefined ? grace.startupGracePeriodMs : grace.monitorGracePeriodMs;
  if (lastSeenAtMs !== undefined && nowMs < lastSeenAtMs + graceMs) {
    return { kind: 'fresh', lastSeenAtMs, expiresInMs: lastSeenAtMs + graceMs - nowMs };
  }
  const silent = lastSeenAtMs === undefined ? {} : { silentForMs: nowMs - lastSeenAtMs };
  const patch = unknownReadyPatch(ready);
  return { kind: 'expired', ...silent, ...(patch === undefined ? {} : { patch }) };
}

function latestSignOfLife(input: HeartbeatInput): number | undefined {
  const { ready } = input;
  const posted = ready !== undefined && ready.status !== conditionStatuses.unknown;
  const candidates = [
    input.renewedAtMs,
    input.createdAtMs,
    input.firstSeenAtMs,
    posted ? parseTime(ready.lastTransitionTime) : undefined,
  ].filter((t): t is number => t !== undefined);
  return candidates.length === 0 ? undefined : Math.max(...candidates);
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
