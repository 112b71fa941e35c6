/**
 * When an application that is unhealthy on a cluster has been so for long enough to move it
 * (`spec.failover.application.decisionConditions.tolerationSeconds`), per binding and cluster.
 *
 * As upstream: only clusters in `spec.clusters` whose aggregated health is `Unhealthy` and that
 * are not already the `fromCluster` of a graceful eviction task are timed; the timer starts when
 * the controller first sees the cluster unhealthy; `Healthy` or `Unknown` health stops it, so the
 * next `Unhealthy` starts afresh. The timers are state in, state out: upstream keeps them in
 * memory, so that a restart starts every timer again; application failover records them on the
 * binding instead (unhealthy-record.ts), so that they survive a restart or a change of leader.
 *
 * Deliberate differences from upstream:
 * - The deadline is exact: eviction at `firstSeen + tolerationSeconds`, and the recheck asked for
 *   is the remaining milliseconds (upstream truncates to seconds and waits for "strictly after").
 *   With `tolerationSeconds: 0` the cluster is evicted on first sight rather than on the next event.
 * - A cluster missing from `status.aggregatedStatus` counts as `Unknown` (its timer stops) instead
 *   of keeping a timer nobody refreshes.
 * - Optional precondition "was healthy before" (`requireHealthyFirst`), from Karmada's application
 *   failover proposal (`preConditions.healthyState: Healthy`, never implemented upstream): a
 *   cluster is only timed once the workload has been seen `Healthy` there, so an application that
 *   never came up (a bad image, a broken config) stays put for a person to fix instead of being
 *   moved around the fleet. Application failover records that memory on the binding too
 *   (healthy-record.ts).
 */
import { resourceHealths, type AggregatedStatusItem, type ResourceHealth } from '@kf/api';

/** What is remembered about one cluster of one binding. */
export interface ClusterHealthMemory {
  /** The workload has been seen `Healthy` on the cluster (only tracked for `requireHealthyFirst`). */
  readonly healthySeen?: boolean;
  /** When the current unhealthy streak was first seen. */
  readonly unhealthySinceMs?: number;
}

/** Cluster name → memory, for one binding. */
export type BindingHealthMemory = Readonly<Record<string, ClusterHealthMemory>>;

export interface UnhealthyTimingInput {
  /** Names in the binding's `spec.clusters`. */
  readonly boundClusters: readonly string[];
  readonly aggregatedStatus: readonly AggregatedStatusItem[] | undefined;
  /** `fromCluster` of the binding's graceful eviction tasks. */
  readonly evictingClusters: readonly string[];
  readonly memory: BindingHealthMemory;
  readonly nowMs: number;
}

export interface UnhealthyTimingConfig {
  /** `decisionConditions.tolerationSeconds` (defaults to 300 upstream; apply before calling). */
  readonly tolerationSeconds: number;
  /** Only time clusters where the workload has been `Healthy` before. */
  readonly requireHealthyFirst: boolean;
}

export interface UnhealthyTimingPlan {
  /** Memory to keep for the binding (only clusters in `spec.clusters`). */
  readonly memory: BindingHealthMemory;
  /** Clusters to evict now, sorted. */
  readonly evict: readonly string[];
  /** Milliseconds until the next timer would run out, if any timer is running. */
  readonly recheckInMs?: number;
}

/** Folds the binding's current health into its timers and says which clusters to evict. */
export function planUnhealthyEvictions(
  input: UnhealthyTimingInput,
  config: UnhealthyTimingConfig,
): UnhealthyTimingPlan {
  const toleranceMs = Math.max(0, config.tolerationSeconds) * 1000;
  const memory: Record<string, ClusterHealthMemory> = {};
  const evict: string[] = [];
  let recheckInMs: number | undefined;
  for (const cluster of [...new Set(input.boundClusters)].sort()) {
    if (input.evictingClusters.includes(cluster)) continue;
    const health = healthOn(input.aggregatedStatus, cluster);
    const next = observeHealth(input.memory[cluster], health, input.nowMs, config.requireHealthyFirst);
    if (next.healthySeen !== undefined || next.unhealthySinceMs !== undefined) memory[cluster] = next;
    if (next.unhealthySinceMs === undefined) continue;
    const remainingMs = next.unhealthySinceMs + toleranceMs - input.nowMs;
    if (remainingMs <= 0) evict.push(cluster);
    else recheckInMs = Math.min(recheckInMs ?? remainingMs, remainingMs);
  }
  return { memory, evict, ...(recheckInMs === undefined ? {} : { recheckInMs }) };
}

/** One cluster's memory after seeing `health` at `nowMs`. */
function observeHealth(
  previous: ClusterHealthMemory | undefined,
  health: ResourceHealth,
  nowMs: number,
  requireHealthyFirst: boolean,
): ClusterHealthMemory {
  const healthySeen =
    previous?.healthySeen === true || (requireHealthyFirst && health === resourceHealths.healthy);
  const timed = health === resourceHealths.unhealthy && (healthySeen || !requireHealthyFirst);
  const unhealthySinceMs = timed ? (previous?.unhealthySinceMs ?? nowMs) : undefined;
  return {
    ...(healthySeen ? { healthySeen } : {}),
    ...(unhealthySinceMs === undefined ? {} : { unhealthySinceMs }),
  };
}

function healthOn(items: readonly AggregatedStatusItem[] | undefined, cluster: string): ResourceHealth {
  return items?.find((i) => i.clusterName === cluster)?.health ?? resourceHealths.unknown;
}
