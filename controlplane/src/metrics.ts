/**
 * The control plane's own metric families (the runner adds the per-controller reconcile and
 * work-queue families). All use the project prefix; label values are bounded.
 */
import type { Registry } from 'prom-client';
import { conditionStatuses, findCondition, type Cluster, type RebalanceResult } from '@kf/api';
import { DEFAULT_METRIC_PREFIX, makeCounter, makeGauge, makeHistogram } from '@kf/runtime';

/** Why a binding left a cluster (the `reason` label of `evictions_total`). */
export const EVICTION_REASONS = ['TaintUntolerated'] as const;
export type EvictionReason = (typeof EVICTION_REASONS)[number];

/** A cluster's health as `clusters{state}` counts it. */
export const CLUSTER_STATES = ['ready', 'not_ready', 'unknown'] as const;
export type ClusterState = (typeof CLUSTER_STATES)[number];

export const TAINT_EFFECTS = ['NoSchedule', 'NoExecute'] as const;

/** What a workload named by a WorkloadRebalancer came to (the `result` label of `workload_rebalances_total`). */
export const REBALANCE_RESULTS = ['Successful', 'Failed'] as const satisfies readonly RebalanceResult[];

/**
 * What became of a binding's placement record (the `result` label of `fail_backs_total`): Started
 * (it goes back), or why it was dropped without a move.
 */
export const FAIL_BACK_RESULTS = [
  'Started',
  'AlreadyBack',
  'ClusterGone',
  'InvalidRecord',
  'Disabled',
] as const;
export type FailBackResult = (typeof FAIL_BACK_RESULTS)[number];

export interface ControlPlaneMetrics {
  evicted(reason: EvictionReason): void;
  /** Evictions due but waiting for the pace or the fleet guard. */
  setEvictionQueueDepth(depth: number): void;
  /** Seconds from the Ready transition to the taint it caused. */
  taintAdded(effect: (typeof TAINT_EFFECTS)[number], seconds: number): void;
  setFleetGuardPaused(paused: boolean): void;
  /** A workload named by a WorkloadRebalancer got its result. */
  workloadRebalanced(result: RebalanceResult): void;
  /** A binding's placement record was acted on: a fail-back started, or the record dropped. */
  failBack(result: FailBackResult): void;
  /** A fenced Work was released without its agent, its Lease silent long enough. */
  fencedWorkReleased(): void;
}

/** Buckets for health→taint: a second to the 5-minute holds a policy might ask for. */
const TAINT_LATENCY_BUCKETS = [0.5, 1, 2.5, 5, 10, 20, 30, 45, 60, 90, 120, 300, 600];

/** The state `clusters{state}` reports for a Cluster. */
export function clusterState(cluster: Cluster): ClusterState {
  switch (findCondition(cluster.status, 'Ready')?.status) {
    case conditionStatuses.true:
      return 'ready';
    case conditionStatuses.false:
      return 'not_ready';
    case conditionStatuses.unknown:
    case undefined:
      return 'unknown';
  }
}

/**
 * Registers the families; `clusters` is read at scrape time for `clusters{state}`, and
 * `eventsPending` (the Event recorder's queue) for `events_pending`.
 */
export function createControlPlaneMetrics(
  registry: Registry,
  clusters: () => readonly Cluster[],
  eventsPending: () => number = () => 0,
  clockOffsetsMs: () => ReadonlyMap<string, number> = () => new Map(),
): ControlPlaneMetrics {
  const p = DEFAULT_METRIC_PREFIX;
  const evictions = makeCounter(registry, {
    name: `${p}evictions_total`,
    help: 'Bindings evicted from a cluster, by reason.',
    labelNames: ['reason'] as const,
  });
  for (const reason of EVICTION_REASONS) evictions.inc({ reason }, 0);
  const queueDepth = makeGauge(registry, {
    name: `${p}eviction_queue_depth`,
    help: 'Bindings due for eviction that wait for the eviction pace or the fleet guard.',
  });
  const latency = makeHistogram(registry, {
    name: `${p}health_to_taint_seconds`,
    help: 'Time from a cluster Ready transition to the taint it caused, by taint effect.',
    labelNames: ['effect'] as const,
    buckets: TAINT_LATENCY_BUCKETS,
  });
  for (const effect of TAINT_EFFECTS) latency.zero({ effect });
  const paused = makeGauge(registry, {
    name: `${p}fleet_guard_paused`,
    help: '1 while the fleet guard pauses evictions because too much of the fleet is not ready, else 0.',
  });
  paused.set(0);
  const rebalances = makeCounter(registry, {
    name: `${p}workload_rebalances_total`,
    help: 'Workloads named by WorkloadRebalancers, by result: Successful (a fresh placement asked for) or Failed.',
    labelNames: ['result'] as const,
  });
  for (const result of REBALANCE_RESULTS) rebalances.inc({ result }, 0);
  const failBacks = makeCounter(registry, {
    name: `${p}fail_backs_total`,
    help: 'Placement records of failed-over bindings acted on, by result: Started (the binding goes back) or why the record was dropped.',
    labelNames: ['result'] as const,
  });
  for (const result of FAIL_BACK_RESULTS) failBacks.inc({ result }, 0);
  const fenceReleases = makeCounter(registry, {
    name: `${p}fenced_work_releases_total`,
    help: 'Works of a Directly purge released without their agent: the cluster Lease was silent for the fence timeout + the Lease duration + the margin.',
  });
  fenceReleases.inc(0);
  makeGauge(registry, {
    name: `${p}clusters`,
    help: 'Clusters by the state of their Ready condition (ready, not_ready, unknown).',
    labelNames: ['state'] as const,
    collect() {
      const counts = new Map<ClusterState, number>(CLUSTER_STATES.map((s) => [s, 0]));
      for (const c of clusters()) counts.set(clusterState(c), (counts.get(clusterState(c)) ?? 0) + 1);
      for (const [state, n] of counts) this.set({ state }, n);
    },
  });
  makeGauge(registry, {
    name: `${p}events_pending`,
    help: 'Events recorded and waiting for their write (paced by --event-qps and --event-burst).',
    collect() {
      this.set(eventsPending());
    },
  });
  makeGauge(registry, {
    name: `${p}cluster_clock_offset_seconds`,
    help: "A Pull cluster's clock minus the control plane's, estimated from its Lease renewals (smoothed); shown only: liveness is judged on the control plane's own clock.",
    labelNames: ['cluster'] as const,
    collect() {
      this.reset();
      for (const [cluster, ms] of clockOffsetsMs()) this.set({ cluster }, ms / 1000);
    },
  });
  return {
    evicted: (reason) => {
      evictions.inc({ reason });
    },
    setEvictionQueueDepth: (depth) => {
      queueDepth.set(depth);
    },
    taintAdded: (effect, seconds) => {
      latency.observe({ effect }, Math.max(0, seconds));
    },
    setFleetGuardPaused: (isPaused) => {
      paused.set(isPaused ? 1 : 0);
    },
    workloadRebalanced: (result) => {
      rebalances.inc({ result });
    },
    failBack: (result) => {
      failBacks.inc({ result });
    },
    fencedWorkReleased: () => {
      fenceReleases.inc();
    },
  };
}
