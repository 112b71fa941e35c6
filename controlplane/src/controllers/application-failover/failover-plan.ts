/**
 * Application failover for one binding: which clusters to move the workload away from now,
 * and the binding change that does it — the cluster out of `spec.clusters`, a graceful eviction
 * task with the policy's purge mode, and an entry in the eviction history annotation
 * (`failover.karmada-failover.io/eviction-history`) that keeps the scheduler off the cluster for
 * `blockPredecessorSeconds` (the binding's annotation of that name, else the spec field).
 *
 * Timing is {@link planUnhealthyEvictions} with "was healthy before" required: a workload that
 * never came up on a cluster is left for a person to fix rather than moved around the fleet. Both
 * halves of the timers live on the binding, so a restart or a new leader keeps them: the clusters
 * seen Healthy (healthy-record.ts) and when each timed cluster was first seen Unhealthy
 * (unhealthy-record.ts).
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
  annotations,
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
import { evictionHistoryOf, formatEvictionHistory } from '../../scheduler/eviction-history-annotation.ts';
import { capturePreservedState } from '../../state-preservation/preserved-state.ts';
import { planGracefulEviction, type EvictionTaskOptions } from '../graceful-eviction/evict-cluster.ts';
import { recordEvictions } from './eviction-record.ts';
import { formatHealthyClusters, healthyClustersOf, isSameSet, seedHealthy } from './healthy-record.ts';
import {
  formatUnhealthySince,
  parseUnhealthySince,
  seedUnhealthy,
  unhealthySinceOf,
} from './unhealthy-record.ts';
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
  /**
   * The binding's annotations: its eviction history, `blockPredecessorSeconds` and the first
   * unhealthy sightings are read there.
   */
  readonly annotations?: Readonly<Record<string, string>> | undefined;
  readonly aggregatedStatus: readonly AggregatedStatusItem[] | undefined;
  readonly memory: BindingHealthMemory;
  readonly nowMs: number;
  /** A ClusterResourceBinding (the producer name differs). */
  readonly clusterScoped: boolean;
  readonly gates: ApplicationFailoverGates;
  /** Clusters recorded on the binding as seen Healthy (see healthy-record.ts). */
  readonly healthyRecorded?: readonly string[];
}

/** What changes in the binding's spec: exactly the fields to merge-patch. */
export interface FailoverSpecChange {
  readonly clusters: NonNullable<ResourceBindingSpec['clusters']>;
  readonly gracefulEvictionTasks: NonNullable<ResourceBindingSpec['gracefulEvictionTasks']>;
  /** null (removes the field) when an earlier version left entries there: they moved to the annotation. */
  readonly evictionHistory?: null;
}

/** What changes on the binding: exactly what to merge-patch. */
export interface FailoverChange {
  readonly spec: FailoverSpecChange;
  /** The eviction history annotation, the evictions of this write added. */
  readonly annotations: Readonly<Record<string, string>>;
}

export interface ApplicationFailoverPlan {
  /** Timers to keep for the binding (empty when failover is off); their times are also recorded. */
  readonly memory: BindingHealthMemory;
  /** Clusters evicted now, with the task left for each. */
  readonly evicted: readonly { readonly cluster: string; readonly task: GracefulEvictionTask }[];
  /** Set when something is evicted. */
  readonly change?: FailoverChange;
  /** Why due evictions are held back (a gate is off, state cannot be read); retry later. */
  readonly problem?: string;
  readonly recheckInMs?: number;
  /** Set when the clusters recorded as seen Healthy should change to these. */
  readonly healthyToRecord?: readonly string[];
  /** Set when the first-unhealthy-sighting annotation should change: its new value, null to remove it. */
  readonly unhealthySinceToRecord?: string | null;
  /** What could not be read of the first-unhealthy-sighting annotation (left out, so timed afresh). */
  readonly recordProblems?: readonly string[];
}

const NOTHING: ApplicationFailoverPlan = { memory: {}, evicted: [] };

export function planApplicationFailover(input: ApplicationFailoverInput): ApplicationFailoverPlan {
  const recorded = input.healthyRecorded ?? [];
  const sinceValue = input.annotations?.[annotations.applicationFailoverUnhealthySince];
  const app = input.spec.failover?.application;
  // Without failover nothing needs the records: they go. Without status yet they are kept as they are.
  if (app === undefined) return withoutFailover(recorded, sinceValue);
  if ((input.aggregatedStatus ?? []).length === 0) return NOTHING;
  const since = parseUnhealthySince(sinceValue);
  const memory = seedUnhealthy(seedHealthy(input.memory, recorded), since.since, input.nowMs);
  const plan = planWithTimers(input, app, memory);
  // Evicted clusters leave the placement with this write: their records go with it.
  const evicted = new Set(plan.evicted.map((e) => e.cluster));
  const seen = healthyClustersOf(plan.memory).filter((c) => !evicted.has(c));
  const sinceToRecord = formatUnhealthySince(unhealthySinceOf(plan.memory, evicted));
  return {
    ...plan,
    ...(isSameSet(seen, recorded) ? {} : { healthyToRecord: seen }),
    ...(sinceToRecord === sinceValue ? {} : { unhealthySinceToRecord: sinceToRecord ?? null }),
    ...(since.problems.length === 0 ? {} : { recordProblems: since.problems }),
  };
}

/** Nothing to time: the records that are there go. */
function withoutFailover(
  healthyRecorded: readonly string[],
  sinceValue: string | undefined,
): ApplicationFailoverPlan {
  return {
    ...NOTHING,
    ...(healthyRecorded.length === 0 ? {} : { healthyToRecord: [] }),
    ...(sinceValue === undefined ? {} : { unhealthySinceToRecord: null }),
  };
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
  const history = recordEvictions(
    evictionHistoryOf(input.annotations, input.spec.evictionHistory),
    due.clusters,
    {
      nowMs: input.nowMs,
      reason: evictionReasons.applicationFailure,
      producer: options.value.producer,
      blockPredecessorMs: blockPredecessorMs(input.annotations, app),
    },
  );
  const change: FailoverChange = {
    spec: {
      clusters: spec.clusters ?? [],
      gracefulEvictionTasks: spec.gracefulEvictionTasks ?? [],
      // Karmada's CRDs have no spec.evictionHistory: the history lives in the annotation. Entries an
      // earlier version wrote there were read into `history` above, so this write carries them over
      // into the annotation and removes the field.
      ...(input.spec.evictionHistory === undefined ? {} : { evictionHistory: null }),
    },
    annotations: { [annotations.evictionHistory]: formatEvictionHistory(history) },
  };
  return { ok: true, value: { evicted, change } };
}

/** The merge-patch value of the healthy-clusters annotation (null removes it). */
export function healthyAnnotation(clusters: readonly string[]): Record<string, string | null> {
  return { [annotations.applicationFailoverHealthyClusters]: formatHealthyClusters(clusters) ?? null };
}

/** The merge-patch values of the records that change (healthy clusters, first unhealthy sightings). */
export function recordAnnotations(
  plan: Pick<ApplicationFailoverPlan, 'healthyToRecord' | 'unhealthySinceToRecord'>,
): Record<string, string | null> {
  return {
    ...(plan.healthyToRecord === undefined ? {} : healthyAnnotation(plan.healthyToRecord)),
    ...(plan.unhealthySinceToRecord === undefined
      ? {}
      : { [annotations.applicationFailoverUnhealthySince]: plan.unhealthySinceToRecord }),
  };
}

/**
 * The merge patch that writes the records alone, guarded by the binding's resourceVersion: a
 * binding read from a cache that lags behind an earlier record is planned again, never written
 * over it with a later first sighting. Undefined when no record changes.
 */
export function recordPatch(
  plan: Pick<ApplicationFailoverPlan, 'healthyToRecord' | 'unhealthySinceToRecord'>,
  resourceVersion: string | undefined,
): { readonly metadata: EvictionPatch['metadata'] } | undefined {
  const changed = recordAnnotations(plan);
  if (Object.keys(changed).length === 0) return undefined;
  return { metadata: { resourceVersion, annotations: changed } };
}

export interface EvictionPatch {
  readonly metadata: {
    readonly resourceVersion: string | undefined;
    readonly annotations: Readonly<Record<string, string | null>>;
  };
  readonly spec: FailoverSpecChange;
}

/**
 * The single merge patch that writes an eviction: guarded by the binding's resourceVersion (a
 * binding changed meanwhile is planned again), with the spec change, the eviction history
 * annotation and, when they change too, the records (clusters seen Healthy, first unhealthy
 * sightings: the evicted clusters' go).
 */
export function evictionPatch(
  change: FailoverChange,
  plan: Pick<ApplicationFailoverPlan, 'healthyToRecord' | 'unhealthySinceToRecord'>,
  resourceVersion: string | undefined,
): EvictionPatch {
  return {
    metadata: { resourceVersion, annotations: { ...change.annotations, ...recordAnnotations(plan) } },
    spec: change.spec,
  };
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
