/**
 * One scheduling pass for one binding, as a pure function: filter and score the
 * clusters, estimate capacity, select under spread constraints, assign replicas, fall back
 * through `clusterAffinities` terms, and state the resulting `spec.clusters` and `Scheduled`
 * condition. Whether a binding needs a pass, and every API write, is left to the caller.
 */
import { bindingConditionMessages, bindingConditionTypes, scheduledReasons } from '@kf/api';
import type { ConditionUpdate, TargetCluster } from '@kf/api';
import { assignReplicas } from './assign/assign.ts';
import { isWorkload, type BindingView, type StrategyView } from './binding-view.ts';
import { compareCandidates, overflowOrderOf, type Candidate } from './candidate.ts';
import type { ClusterView } from './cluster-view.ts';
import { allocatableReplicas } from './estimate.ts';
import {
  describeNoFit,
  feasibleClusters,
  filterClusters,
  type Attempt,
  type AttemptTerm,
  type Plugins,
  type Rejection,
} from './framework.ts';
import { fail, type Failure, type Outcome } from './outcome.ts';
import { defaultPlugins } from './plugins/registry.ts';
import { selectClusters } from './select.ts';

export interface SchedulerOptions {
  readonly plugins: Plugins;
  /** `--enable-empty-workload-propagation` (default false). */
  readonly emptyWorkloadPropagation: boolean;
  /**
   * When no cluster fits, upstream clears `spec.clusters` (`clear`), which removes the workload
   * from every cluster; `keep` leaves the current placement in place and only reports.
   */
  readonly onNoClusterFit: 'clear' | 'keep';
  /**
   * Gate MultiplePodTemplatesScheduling (default off, as upstream): a binding with components
   * whose placement asks for exactly one cluster is placed whole, where one set of its
   * components fits, instead of by its replica count.
   */
  readonly multiplePodTemplates?: boolean;
}

export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = {
  plugins: defaultPlugins,
  emptyWorkloadPropagation: false,
  onNoClusterFit: 'clear',
  multiplePodTemplates: false,
};

/** How the caller retries: not at all, from the unschedulable pool, or with backoff. */
export type Retry = 'none' | 'unschedulable' | 'backoff';

/** One affinity term tried during the pass (for the per-term failure events). */
export interface AttemptReport {
  /** Empty for `clusterAffinity`. */
  readonly affinityName: string;
  readonly failure: Failure | undefined;
}

export interface ScheduleResult {
  /** `spec.clusters` after the pass (the current placement when nothing is to be written). */
  readonly clusters: readonly TargetCluster[];
  /** Write `clusters` (and the applied-placement annotation): after success, and after no-fit unless kept. */
  readonly writeClusters: boolean;
  /** The term to record in `status.schedulerObservingAffinityName`; undefined: leave it. */
  readonly affinityName: string | undefined;
  /**
   * Clusters the deciding attempt filtered out, with the first filter that refused each (worked
   * out when first read: a pass that succeeds needs only the clusters that fit).
   */
  readonly rejected: readonly Rejection[];
  /** The `Scheduled` condition to set. */
  readonly condition: ConditionUpdate;
  readonly retry: Retry;
  readonly attempts: readonly AttemptReport[];
}

/** The rejections of an attempt, worked out once and only when asked for. */
type Rejections = () => readonly Rejection[];

const noRejections: Rejections = () => [];

interface AttemptResult {
  readonly outcome: Outcome<readonly TargetCluster[]>;
  readonly rejected: Rejections;
}

/**
 * Schedules `b` over `clusters` at `nowMs`. No fitting cluster is a reported result
 * (`Scheduled=False`, reason `NoClusterFit`, message listing the filter reasons), never a bare
 * empty placement.
 */
export function scheduleBinding(
  b: BindingView,
  clusters: readonly ClusterView[],
  nowMs: number,
  options: Partial<SchedulerOptions> = {},
): ScheduleResult {
  const opts: SchedulerOptions = { ...DEFAULT_SCHEDULER_OPTIONS, ...options };
  const placement = b.placement;
  if (placement === undefined) {
    const failure: Failure = { kind: 'SchedulerError', message: 'the binding has no placement' };
    return concludeFailure(b, { failure, rejected: noRejections }, [{ affinityName: '', failure }], opts);
  }
  const terms = placement.affinityTerms;
  if (terms.length === 0) {
    const term: AttemptTerm = { name: '', affinity: placement.affinity, overflow: [] };
    const r = runAttempt({ binding: b, placement, term, nowMs }, clusters, opts);
    const report = { affinityName: '', failure: r.outcome.ok ? undefined : r.outcome.failure };
    return r.outcome.ok
      ? concludeSuccess(r.outcome.value, undefined, r.rejected, [report])
      : concludeFailure(b, { failure: r.outcome.failure, rejected: r.rejected }, [report], opts);
  }
  return scheduleByTerms({ binding: b, placement, nowMs }, clusters, opts);
}

/**
 * Tries the terms from the observed one (the first after an explicit reschedule) onwards and
 * never returns to an earlier term by itself. All failing: the first failure decides.
 */
function scheduleByTerms(
  pass: Omit<Attempt, 'term'>,
  clusters: readonly ClusterView[],
  opts: SchedulerOptions,
): ScheduleResult {
  const b = pass.binding;
  const terms = pass.placement.affinityTerms;
  const observed = terms.findIndex((t) => t.name === b.observedAffinityName);
  const reports: AttemptReport[] = [];
  let first: { failure: Failure; rejected: Rejections } | undefined;
  for (const t of terms.slice(b.fresh || observed < 0 ? 0 : observed)) {
    const term: AttemptTerm = { name: t.name, affinity: t.affinity, overflow: t.overflow };
    const r = runAttempt({ ...pass, term }, clusters, opts);
    if (r.outcome.ok) {
      reports.push({ affinityName: t.name, failure: undefined });
      return concludeSuccess(r.outcome.value, t.name, r.rejected, reports);
    }
    reports.push({ affinityName: t.name, failure: r.outcome.failure });
    first ??= { failure: r.outcome.failure, rejected: r.rejected };
  }
  return concludeFailure(b, first ?? { failure: noTerm, rejected: noRejections }, reports, opts);
}

const noTerm: Failure = { kind: 'SchedulerError', message: 'no cluster affinity term to schedule with' };

function runAttempt(a: Attempt, clusters: readonly ClusterView[], opts: SchedulerOptions): AttemptResult {
  const feasible = feasibleClusters(a, clusters, opts.plugins);
  const rejected = once(() => filterClusters(a, clusters, opts.plugins).rejected);
  if (feasible.length === 0) {
    return { outcome: fail('NoClusterFit', describeNoFit(clusters.length, rejected())), rejected };
  }
  const b = a.binding;
  const wholeSets = opts.multiplePodTemplates === true && b.singleClusterComponents;
  const ranked: Candidate[] = feasible
    .map(({ cluster, score }) => {
      const allocatable = allocatableReplicas(b, cluster, wholeSets);
      return {
        cluster,
        name: cluster.name,
        score,
        overflowOrder: overflowOrderOf(a.term, cluster),
        allocatable,
        available: allocatable + (b.assigned.get(cluster.name) ?? 0),
      };
    })
    .sort(compareCandidates);
  const strategy = a.placement.strategy;
  const duplicated = strategy.kind === 'Duplicated';
  const selection = selectClusters(ranked, {
    spreadConstraints: a.placement.spreadConstraints,
    staticWeighting: isStaticWeighting(strategy),
    // Placed whole: one set is the unit, so a cluster must take one set (whatever the strategy).
    needReplicas: wholeSets ? 1 : duplicated ? -1 : b.replicas,
    replicas: b.replicas,
    duplicated,
  });
  if (!selection.ok) return { outcome: selection, rejected };
  const dynamic = strategy.kind === 'DynamicWeight' || strategy.kind === 'Aggregated';
  const outcome = assignReplicas(b, strategy, selection.value, {
    emptyWorkloadPropagation: opts.emptyWorkloadPropagation,
    tiered: dynamic && isWorkload(b) && a.term.overflow.length > 0,
  });
  return { outcome, rejected };
}

/** Static weights without a dynamic factor bypass spread constraints (an empty rule list does not). */
function isStaticWeighting(s: StrategyView): boolean {
  return s.kind === 'StaticWeight' && (s.rules === undefined || s.rules.length > 0);
}

/** `f`, called at most once. */
function once<T>(f: () => T): () => T {
  let done = false;
  let value: T | undefined;
  return () => {
    if (!done) {
      value = f();
      done = true;
    }
    return value as T;
  };
}

function concludeSuccess(
  clusters: readonly TargetCluster[],
  affinityName: string | undefined,
  rejected: Rejections,
  attempts: readonly AttemptReport[],
): ScheduleResult {
  return {
    clusters,
    writeClusters: true,
    affinityName,
    get rejected() {
      return rejected();
    },
    condition: {
      type: bindingConditionTypes.scheduled,
      status: 'True',
      reason: scheduledReasons.success,
      message: bindingConditionMessages.scheduled,
    },
    retry: 'none',
    attempts,
  };
}

function concludeFailure(
  b: BindingView,
  decisive: { readonly failure: Failure; readonly rejected: Rejections },
  attempts: readonly AttemptReport[],
  opts: SchedulerOptions,
): ScheduleResult {
  const { failure, rejected } = decisive;
  const clear = failure.kind === 'NoClusterFit' && opts.onNoClusterFit === 'clear';
  return {
    clusters: clear ? [] : b.clusters,
    writeClusters: clear,
    affinityName: undefined,
    get rejected() {
      return rejected();
    },
    condition: {
      type: bindingConditionTypes.scheduled,
      status: 'False',
      reason: reasonOf[failure.kind],
      message: failure.message,
    },
    retry: retryOf[failure.kind],
    attempts,
  };
}

const reasonOf: Readonly<Record<Failure['kind'], string>> = {
  NoClusterFit: scheduledReasons.noClusterFit,
  Unschedulable: scheduledReasons.unschedulable,
  SchedulerError: scheduledReasons.schedulerError,
};

const retryOf: Readonly<Record<Failure['kind'], Retry>> = {
  NoClusterFit: 'none',
  Unschedulable: 'unschedulable',
  SchedulerError: 'backoff',
};

/** `{m1:2, m2:3}`: the result as upstream's success event prints it. */
export function describeResult(clusters: readonly TargetCluster[]): string {
  return `{${clusters.map((c) => `${c.name}:${c.replicas ?? 0}`).join(', ')}}`;
}
