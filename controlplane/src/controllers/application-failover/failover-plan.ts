/**
 * Application failover for one binding: which clusters to move the workload away from now,
 * and the binding spec that does it — the cluster out of `spec.clusters`, a graceful eviction
 * task with the policy's purge mode, and an eviction history entry that keeps the scheduler off
 * the cluster for `blockPredecessorSeconds`.
 *
 * Timing is {@link planUnhealthyEvictions} with "was healthy before" required: a workload that
 * never came up on a cluster is left for a person to fix rather than moved around the fleet. The
 * clusters seen Healthy are recorded on the binding (healthy-record.ts) so a restart keeps them.
 *
 * Task options as upstream: reason `ApplicationFailure`, the controller's name as producer;
 * `Gracefully` needs gate GracefulEviction and carries `gracePeriodSeconds` (600 when unset);
 * `Never` sets `suppressDeletion`; `Directly` adds nothing. With gate StatefulFailoverInjection
 * and state preservation rules, the task also carries the captured state and the clusters before
 * the failover; a state that cannot be read holds the whole eviction back (retried), as upstream.
 *
 * Deliberate differences: `spec.propagateDeps` is not required (upstream's admission demands it;
 * here a binding without dependants fails over all the same), and evictions are recorded in the
 * eviction history, which upstream never built.
 */
import {
  evictionProducers,
  evictionReasons,
  givenPurgeMode,
  purgeModes,
  type AggregatedStatusItem,
  type ApplicationFailoverBehavior,
  type GracefulEvictionTask,
  type ResourceBindingSpec,
} from '@kf/api';
import { blockPredecessorMs } from '../../scheduler/binding-view.ts';
import { capturePreservedState } from '../../workload/state-preservation/preserved-state.ts';
import { planGracefulEviction, type EvictionTaskOptions } from '../graceful-eviction/evict-cluster.ts';
import { recordEvictions } from './eviction-record.ts';
import { healthyClustersOf, isSameSet, seedHealthy } from './healthy-record.ts';
import { planUnhealthyEvictions, type BindingHealthMemory } from './unhealthy-timing.ts';

/** Upstream's CRD default of `decisionConditions.tolerationSeconds`. */
export const DEFAULT_TOLERATION_SECONDS = 300;
/** Upstream's admission default of `gracePeriodSeconds` with `Gracefully`. */
export const DEFAULT_GRACE_PERIOD_SECONDS = 600;

export interface ApplicationFailoverGates {
  readonly gracefulEviction: boolean;
  readonly statefulFailoverInjection: boolean;
}

export interface ApplicationFailoverInput {
  readonly spec: ResourceBindingSpec;
  readonly aggregatedStatus: readonly AggregatedStatusItem[] | undefined;
  readonly memory: BindingHealthMemory;
  readonly nowMs: number;
  /** A ClusterResourceBinding (the producer name differs). */
  readonly clusterScoped: boolean;
  readonly gates: ApplicationFailoverGates;
  /** Clusters recorded on the binding as seen Healthy (see healthy-record.ts). */
  readonly healthyRecorded?: readonly string[];
}

/** What changes on the binding: exactly the fields to merge-patch. */
export interface FailoverSpecChange {
  readonly clusters: NonNullable<ResourceBindingSpec['clusters']>;
  readonly gracefulEvictionTasks: NonNullable<ResourceBindingSpec['gracefulEvictionTasks']>;
  readonly evictionHistory: NonNullable<ResourceBindingSpec['evictionHistory']>;
}

export interface ApplicationFailoverPlan {
  /** Timers to keep for the binding (empty when failover is off). */
  readonly memory: BindingHealthMemory;
  /** Clusters evicted now, with the task left for each. */
  readonly evicted: readonly { readonly cluster: string; readonly task: GracefulEvictionTask }[];
  /** Set when something is evicted. */
  readonly change?: FailoverSpecChange;
  /** Why due evictions are held back (a gate is off, state cannot be read); retry later. */
  readonly problem?: string;
  readonly recheckInMs?: number;
  /** Set when the clusters recorded as seen Healthy should change to these. */
  readonly healthyToRecord?: readonly string[];
}

const NOTHING: ApplicationFailoverPlan = { memory: {}, evicted: [] };

export function planApplicationFailover(input: ApplicationFailoverInput): ApplicationFailoverPlan {
  const recorded = input.healthyRecorded ?? [];
  const app = input.spec.failover?.application;
  // Without failover nothing needs the record: it goes. Without status yet it is kept as it is.
  if (app === undefined) return recorded.length === 0 ? NOTHING : { ...NOTHING, healthyToRecord: [] };
  if ((input.aggregatedStatus ?? []).length === 0) return NOTHING;
  const plan = planWithTimers(input, app, seedHealthy(input.memory, recorded));
  // Evicted clusters leave the placement with this write: their record goes with it.
  const evicted = new Set(plan.evicted.map((e) => e.cluster));
  const seen = healthyClustersOf(plan.memory).filter((c) => !evicted.has(c));
  return isSameSet(seen, recorded) ? plan : { ...plan, healthyToRecord: seen };
}

function planWithTimers(
  input: ApplicationFailoverInput,
  app: ApplicationFailoverBehavior,
  memory: BindingHealthMemory,
): ApplicationFailoverPlan {
  const tolerationSeconds = app.decisionConditions.tolerationSeconds ?? DEFAULT_TOLERATION_SECONDS;
  const timing = planUnhealthyEvictions(
    {
      boundClusters: (input.spec.clusters ?? []).map((c) => c.name),
      aggregatedStatus: input.aggregatedStatus,
      evictingClusters: (input.spec.gracefulEvictionTasks ?? []).map((t) => t.fromCluster),
      memory,
      nowMs: input.nowMs,
    },
    { tolerationSeconds, requireHealthyFirst: true },
  );
  const recheck = timing.recheckInMs === undefined ? {} : { recheckInMs: timing.recheckInMs };
  if (timing.evict.length === 0) return { memory: timing.memory, evicted: [], ...recheck };
  const eviction = planEvictions(input, app, { clusters: timing.evict, tolerationSeconds });
  if (!eviction.ok) return { memory: timing.memory, evicted: [], problem: eviction.problem, ...recheck };
  return { memory: timing.memory, ...eviction.value, ...recheck };
}

/** The evictions of `clusters` as one spec change; fails when a task cannot be built. */
function planEvictions(
  input: ApplicationFailoverInput,
  app: ApplicationFailoverBehavior,
  due: { readonly clusters: readonly string[]; readonly tolerationSeconds: number },
): Checked<Pick<ApplicationFailoverPlan, 'evicted' | 'change'>> {
  const options = taskOptions(input, app, due.tolerationSeconds);
  if (!options.ok) return options;
  let spec = input.spec;
  const evicted: { cluster: string; task: GracefulEvictionTask }[] = [];
  for (const cluster of due.clusters) {
    const state = stateFor(input, app, cluster);
    if (!state.ok) return state;
    const plan = planGracefulEviction(spec, cluster, { ...options.value, ...state.value });
    spec = plan.spec;
    if (plan.task !== undefined) evicted.push({ cluster, task: plan.task });
  }
  const evictionHistory = recordEvictions(input.spec.evictionHistory, due.clusters, {
    nowMs: input.nowMs,
    reason: evictionReasons.applicationFailure,
    producer: options.value.producer,
    blockPredecessorMs: blockPredecessorMs(app),
  });
  const change = {
    clusters: spec.clusters ?? [],
    gracefulEvictionTasks: spec.gracefulEvictionTasks ?? [],
    evictionHistory,
  };
  return { ok: true, value: { evicted, change } };
}

type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

function taskOptions(
  input: ApplicationFailoverInput,
  app: ApplicationFailoverBehavior,
  tolerationSeconds: number,
): Checked<EvictionTaskOptions> {
  const purgeMode = givenPurgeMode(app.purgeMode) ?? purgeModes.gracefully; // "" is unset too
  const base: EvictionTaskOptions = {
    purgeMode,
    reason: evictionReasons.applicationFailure,
    producer: input.clusterScoped
      ? evictionProducers.clusterResourceBindingApplicationFailover
      : evictionProducers.resourceBindingApplicationFailover,
    message: `The application stayed unhealthy for ${String(tolerationSeconds)}s (decisionConditions.tolerationSeconds).`,
  };
  switch (purgeMode) {
    case purgeModes.gracefully:
      if (!input.gates.gracefulEviction) {
        return {
          ok: false,
          problem: 'GracefulEviction featureGate must be enabled when purgeMode is Gracefully',
        };
      }
      return {
        ok: true,
        value: { ...base, gracePeriodSeconds: app.gracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS },
      };
    case purgeModes.never:
      return { ok: true, value: { ...base, suppressDeletion: true } };
    case purgeModes.directly:
      return { ok: true, value: base };
  }
}

function stateFor(
  input: ApplicationFailoverInput,
  app: ApplicationFailoverBehavior,
  cluster: string,
): Checked<Pick<GracefulEvictionTask, 'preservedLabelState' | 'clustersBeforeFailover'>> {
  const rules = app.statePreservation?.rules ?? [];
  if (!input.gates.statefulFailoverInjection || rules.length === 0) return { ok: true, value: {} };
  const capture = capturePreservedState(rules, input.aggregatedStatus, cluster);
  if (!capture.ok)
    return { ok: false, problem: `cannot preserve state of cluster ${cluster}: ${capture.problem}` };
  return {
    ok: true,
    value: {
      preservedLabelState: capture.state,
      clustersBeforeFailover: (input.spec.clusters ?? []).map((c) => c.name),
    },
  };
}
