/**
 * Why a binding runs where it runs, from what the API holds now: its placement and per-cluster
 * health, the scheduler's verdict on every other cluster (the pure filters re-run on the current
 * Clusters), graceful eviction tasks and eviction history with their deadlines, and what cluster
 * failover (NoExecute taints against the applied tolerations, gates and flags) and application
 * failover (health against the policy, gates) would do next, the WorkloadRebalancers that name its
 * resource template, and fail-back's state (opt-in, placement record, and an estimate of what it
 * would decide now). Pure: data and `nowMs` in, a report out.
 */
import {
  annotations,
  readFenceSetting,
  clusterConditionTypes,
  findCondition,
  formatTime,
  givenPurgeMode,
  parseTime,
  purgeModes,
  rebalanceResults,
  resourceHealths,
  taintEffects,
  type ApplicationFailoverBehavior,
  type Cluster,
  type GracefulEvictionTask,
  type PurgeMode,
  type RebalanceResult,
  type ResourceBinding,
  type ResourceHealth,
  type Taint,
  type WorkloadRebalancer,
  type WorkloadReference,
} from '@kf/api';
import type { CoreEvent } from '@kf/kube';
import { DEFAULT_CLUSTER_MONITOR_GRACE_PERIOD_MS } from '../../controllers/cluster-health/heartbeat.ts';
import { judgeStaleReady } from '../../controllers/taint-policy/stale-ready.ts';
import { readAppliedTolerations } from '../../controllers/taint-manager/applied-placement.ts';
import { judgeEviction } from '../../controllers/taint-manager/eviction.ts';
import { decidePurgeMode, type TaintEvictionPurgeMode } from '../../controllers/taint-manager/purge-mode.ts';
import { decideFailBack, type FailBackDecision } from '../../controllers/fail-back/plan.ts';
import { readPlacementRecord } from '../../controllers/fail-back/record.ts';
import { readFailBackSetting, type FailBackSetting } from '../../controllers/fail-back/setting.ts';
import { judgeSteadiness } from '../../controllers/fail-back/steadiness.ts';
import { describeClockOffset, parseRecordedOffsetMs } from '../../controllers/cluster-health/clock-offset.ts';
import {
  DEFAULT_GRACE_PERIOD_SECONDS,
  DEFAULT_TOLERATION_SECONDS,
} from '../../controllers/application-failover/failover-plan.ts';
import { parseHealthyClusters } from '../../controllers/application-failover/healthy-record.ts';
import { judgeEvictionTask, type TaskVerdict } from '../../controllers/graceful-eviction/assessment.ts';
import {
  healthByCluster,
  judgeCause,
  judgeReturn,
  type ReturnInput,
} from '../../controllers/graceful-eviction/cause.ts';
import { parseUnhealthySince } from '../../controllers/application-failover/unhealthy-record.ts';
import { blockPredecessorMs, toBindingView } from '../../scheduler/binding-view.ts';
import { evictionHistoryOf } from '../../scheduler/eviction-history-annotation.ts';
import { fenceSecondsOf } from '../binding/work-plan.ts';
import { toClusterView } from '../../scheduler/cluster-view.ts';
import { filterClusters, type Attempt } from '../../scheduler/framework.ts';
import { compareNames } from '../../scheduler/name-order.ts';
import { isSameWorkload } from '../../controllers/workload-rebalancer/rebalance-plan.ts';
import { defaultPlugins } from '../../scheduler/plugins/registry.ts';

/** The controller-manager settings that decide whether failover acts (same flags as `run`). */
export interface ExplainSettings {
  readonly failoverGate: boolean;
  readonly gracefulEvictionGate: boolean;
  readonly statefulFailoverInjectionGate: boolean;
  readonly enableTaintManager: boolean;
  readonly enableNoExecuteTaintEviction: boolean;
  readonly noExecuteTaintEvictionPurgeMode: TaintEvictionPurgeMode;
  readonly gracefulEvictionTimeoutMs: number;
  /** `--cluster-monitor-grace-period` (default 40 s): how long a Lease renewal counts as life. */
  readonly monitorGracePeriodMs?: number;
}

export interface ExplainInput {
  readonly binding: ResourceBinding;
  readonly clusterScoped: boolean;
  readonly clusters: readonly Cluster[];
  readonly nowMs: number;
  readonly settings: ExplainSettings;
  /** Events in the binding's namespace (cluster-scoped: `default`); the binding's are picked out. */
  readonly events?: readonly CoreEvent[];
  /** `spec.renewTime` of each cluster's heartbeat Lease, by cluster name. */
  readonly leaseRenewedAtMs?: ReadonlyMap<string, number>;
  /** Every WorkloadRebalancer; the ones naming the binding's resource template are picked out. */
  readonly rebalancers?: readonly WorkloadRebalancer[];
  /** Why the WorkloadRebalancers could not be read (no RBAC, CRD not installed), when they could not. */
  readonly rebalancersUnreadable?: string;
}

export interface PlacedCluster {
  readonly cluster: string;
  readonly replicas: number | undefined;
  readonly health: ResourceHealth;
  readonly applied: boolean | undefined;
}

export interface ClusterVerdict {
  readonly cluster: string;
  /** `placed`: in spec.clusters; `fits`: every filter passes; `rejected`; `deleting`: skipped. */
  readonly verdict: 'placed' | 'fits' | 'rejected' | 'deleting';
  readonly plugin?: string;
  readonly reason?: string;
}

export interface TaskReport {
  readonly fromCluster: string;
  /** The current name, also for a task written with a deprecated one. */
  readonly purgeMode: PurgeMode;
  readonly replicas: number | undefined;
  readonly reason: string;
  readonly producer: string;
  readonly createdAtMs: number | undefined;
  /** When the task ends at the latest (undefined: only when a person confirms). */
  readonly endsAtMs: number | undefined;
  /** How it ends, in words. */
  readonly ends: string;
  /** Whether what made the task still holds (its taint, the application's health), in words. */
  readonly cause: { readonly holds: boolean; readonly why: string };
  /** Whether the scheduler may place the binding on the task's cluster again now, keeping its copy. */
  readonly takeBack: { readonly mayReturn: boolean; readonly why: string };
  /** Past its deadline, kept because no other cluster runs a healthy copy (condition LastCopyKept). */
  readonly lastCopyKept: boolean;
  readonly preservedLabelState: Readonly<Record<string, string>> | undefined;
}

export interface HistoryReport {
  readonly cluster: string;
  readonly evictedAtMs: number | undefined;
  /** Infinity: for good. */
  readonly blockedUntilMs: number;
  readonly active: boolean;
  readonly reason: string | undefined;
}

export interface FailoverLine {
  readonly cluster: string;
  readonly verdict: string;
}

export interface FailoverReport {
  /** Whether the failover path acts at all; `off` lists why not. */
  readonly active: boolean;
  readonly off: readonly string[];
  /** The settings that apply, in words. */
  readonly settings: readonly string[];
  readonly clusters: readonly FailoverLine[];
}

export interface EventReport {
  readonly atMs: number | undefined;
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
}

/** One WorkloadRebalancer that names the binding's resource template, and where it stands for it. */
export interface RebalanceReport {
  readonly rebalancer: string;
  /** `pending`: the rebalancer has no result for this workload yet (not written, or to be retried). */
  readonly state: 'pending' | 'succeeded' | 'failed';
  /** Why it failed (`ReferencedBindingNotFound`). */
  readonly reason: string | undefined;
  readonly createdAtMs: number | undefined;
  /** `status.finishTime`: every workload of the rebalancer has a result. */
  readonly finishedAtMs: number | undefined;
  /** When the rebalancer is deleted: `finishTime` + `ttlSecondsAfterFinished`, both set. */
  readonly deletedAtMs: number | undefined;
}

/** The binding's own request for a fresh placement (`spec.rescheduleTriggeredAt`), however written. */
export interface RescheduleReport {
  readonly requestedAtMs: number;
  readonly lastScheduledAtMs: number | undefined;
  /** Requested after the last placement: the scheduler places the binding afresh when it next looks. */
  readonly waitingForScheduler: boolean;
}

export interface RebalancesReport {
  /** Why the WorkloadRebalancers could not be read; `rebalancers` is then empty, not known empty. */
  readonly unreadable: string | undefined;
  /** Oldest first. */
  readonly rebalancers: readonly RebalanceReport[];
  readonly reschedule: RescheduleReport | undefined;
}

/** One cluster of the placement record, and whether it is steady now (estimated: see failBackOf). */
export interface RecordedClusterReport {
  readonly cluster: string;
  readonly replicas: number | undefined;
  /** Among the Clusters: a recorded cluster that is not makes fail-back drop the record. */
  readonly exists: boolean;
  /** Estimated start of its steadiness; undefined when it is not steady now (`unsteady` says why). */
  readonly steadySinceMs: number | undefined;
  readonly unsteady: string | undefined;
}

export type FailBackRecordReport =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'record';
      readonly evictedAtMs: number;
      readonly clusters: readonly RecordedClusterReport[];
    }
  /** Present but unreadable: fail-back drops it (InvalidRecord) whatever the setting. */
  | { readonly kind: 'invalid'; readonly problem: string };

export interface FailBackReport {
  /** Why the fail-back controller does not run (it runs with the taint manager); empty: it runs. */
  readonly off: readonly string[];
  /** The binding's opt-in, copied from its policy. */
  readonly setting: FailBackSetting;
  readonly record: FailBackRecordReport;
  /**
   * What fail-back would decide now, only when it is on and a record is readable: an estimate,
   * with steadiness counted from each cluster's Ready transition and the fleet guard and the
   * in-flight limit left out.
   */
  readonly decision: FailBackDecision | undefined;
}

/** How many of the binding's latest Events the report keeps. */
export const EXPLAIN_EVENT_LIMIT = 10;

export interface Explanation {
  readonly kind: 'ResourceBinding' | 'ClusterResourceBinding';
  readonly name: string;
  readonly namespace: string | undefined;
  readonly resource: string;
  readonly replicas: number;
  readonly scheduled:
    { readonly status: string; readonly reason: string; readonly message: string } | undefined;
  readonly placed: readonly PlacedCluster[];
  readonly clusters: readonly ClusterVerdict[];
  readonly tasks: readonly TaskReport[];
  readonly history: readonly HistoryReport[];
  readonly clusterFailover: FailoverReport;
  readonly applicationFailover: FailoverReport;
  /** The binding's latest Events, newest first (evictions, scheduling, Work sync). */
  readonly events: readonly EventReport[];
  /** WorkloadRebalancers naming the binding's template, and whether a reschedule awaits the scheduler. */
  readonly rebalances: RebalancesReport;
  /** Whether the binding goes back where it ran before a cluster failover, and when. */
  readonly failBack: FailBackReport;
}

export function explainBinding(input: ExplainInput): Explanation {
  const b = input.binding;
  const r = b.spec.resource;
  const scheduled = b.status?.conditions?.find((c) => c.type === 'Scheduled');
  return {
    kind: input.clusterScoped ? 'ClusterResourceBinding' : 'ResourceBinding',
    name: b.metadata.name ?? '',
    namespace: b.metadata.namespace,
    resource: `${r.kind} ${r.namespace === undefined ? '' : `${r.namespace}/`}${r.name}`,
    replicas: b.spec.replicas ?? 0,
    scheduled:
      scheduled === undefined
        ? undefined
        : { status: scheduled.status, reason: scheduled.reason, message: scheduled.message },
    placed: placedClusters(b),
    clusters: clusterVerdicts(input),
    tasks: (b.spec.gracefulEvictionTasks ?? []).map((t) => taskReport(t, input)),
    history: historyReport(b, input.nowMs),
    clusterFailover: clusterFailover(input),
    applicationFailover: applicationFailover(input),
    events: eventsOf(input),
    rebalances: rebalancesOf(input),
    failBack: failBackOf(input),
  };
}

/**
 * Fail-back's view of the binding, decided by the controller's own pure function. Explain has one
 * look, where the running controller remembers every look it had: a cluster's "steady since" is
 * estimated as its Ready transition (steady now by the controller's rules), whereas the controller
 * restarts a window on any unsteady look it saw, and counts none from before its own start, so
 * it may wait longer. The fleet guard and the fail-backs in flight elsewhere are not known here.
 */
function failBackOf(input: ExplainInput): FailBackReport {
  const b = input.binding;
  const setting = readFailBackSetting(b.metadata.annotations);
  const parsed = readPlacementRecord(b.metadata.annotations);
  const off = clusterFailoverOff(input.settings);
  if (parsed.kind !== 'record') return { off, setting, record: parsed, decision: undefined };
  const graceMs = input.settings.monitorGracePeriodMs ?? DEFAULT_CLUSTER_MONITOR_GRACE_PERIOD_MS;
  const byName = new Map(input.clusters.map((c) => [c.metadata.name ?? '', c]));
  const clusters = parsed.record.clusters.map((t): RecordedClusterReport => {
    const cluster = byName.get(t.name);
    if (cluster === undefined) {
      return {
        cluster: t.name,
        replicas: t.replicas,
        exists: false,
        steadySinceMs: undefined,
        unsteady: 'not found',
      };
    }
    const steadiness = judgeSteadiness(cluster, silenceEstimateMs(input, cluster), graceMs);
    const readyAt = parseTime(findCondition(cluster.status, clusterConditionTypes.ready)?.lastTransitionTime);
    return {
      cluster: t.name,
      replicas: t.replicas,
      exists: true,
      // Without a readable transition the controller counts from its first look, here: now.
      steadySinceMs: steadiness.steady
        ? readyAt === undefined
          ? input.nowMs
          : Math.min(input.nowMs, readyAt - offsetMsOf(cluster))
        : undefined,
      unsteady: steadiness.steady ? undefined : steadiness.why,
    };
  });
  const record: FailBackRecordReport = { kind: 'record', evictedAtMs: parsed.record.evictedAtMs, clusters };
  if (setting.kind !== 'on') return { off, setting, record, decision: undefined };
  const estimates = new Map(clusters.map((c) => [c.cluster, c]));
  const decision = decideFailBack({
    binding: {
      deleting: b.metadata.deletionTimestamp !== undefined,
      clusters: b.spec.clusters ?? [],
      tasks: b.spec.gracefulEvictionTasks ?? [],
      rescheduleTriggeredAt: b.spec.rescheduleTriggeredAt,
      lastScheduledTime: b.status?.lastScheduledTime,
    },
    record: parsed.record,
    windowMs: setting.windowMs,
    steadySince: (name) => {
      const c = estimates.get(name);
      if (c?.steadySinceMs === undefined) return { why: c?.unsteady ?? 'not found' };
      return { sinceMs: c.steadySinceMs };
    },
    exists: (name) => byName.has(name),
    // Not known here: the fleet guard lives in the running controller-manager, and explain reads
    // one binding, not the fail-backs under way on the others.
    guardPaused: false,
    inFlight: 0,
    // Any limit (at least 1) lets 0 in flight through.
    maxInFlight: 1,
    nowMs: input.nowMs,
  });
  return { off, setting, record, decision };
}

function rebalancesOf(input: ExplainInput): RebalancesReport {
  const b = input.binding;
  const template = b.spec.resource;
  const rebalancers = (input.rebalancers ?? [])
    .filter((rb) => rb.spec.workloads.some((w) => isSameWorkload(w, template)))
    .map((rb) => rebalanceReport(rb, template))
    .sort((x, y) => (x.createdAtMs ?? 0) - (y.createdAtMs ?? 0) || compareNames(x.rebalancer, y.rebalancer));
  const requestedAtMs = parseTime(b.spec.rescheduleTriggeredAt);
  const lastScheduledAtMs = parseTime(b.status?.lastScheduledTime);
  return {
    unreadable: input.rebalancersUnreadable,
    rebalancers,
    reschedule:
      requestedAtMs === undefined
        ? undefined
        : {
            requestedAtMs,
            lastScheduledAtMs,
            // The scheduler's own test: both times readable, the request the later.
            waitingForScheduler: lastScheduledAtMs !== undefined && requestedAtMs > lastScheduledAtMs,
          },
  };
}

function rebalanceReport(rb: WorkloadRebalancer, template: WorkloadReference): RebalanceReport {
  const observed = rb.status?.observedWorkloads?.find((o) => isSameWorkload(o.workload, template));
  const state = rebalanceState(observed?.result);
  const finishedAtMs = parseTime(rb.status?.finishTime);
  const ttl = rb.spec.ttlSecondsAfterFinished;
  return {
    rebalancer: rb.metadata.name ?? '',
    state,
    reason: state === 'failed' ? observed?.reason : undefined,
    createdAtMs: parseTime(rb.metadata.creationTimestamp),
    finishedAtMs,
    deletedAtMs: finishedAtMs === undefined || ttl === undefined ? undefined : finishedAtMs + ttl * 1000,
  };
}

function rebalanceState(result: RebalanceResult | undefined): RebalanceReport['state'] {
  if (result === rebalanceResults.successful) return 'succeeded';
  if (result === rebalanceResults.failed) return 'failed';
  return 'pending';
}

function eventsOf(input: ExplainInput): EventReport[] {
  const kind = input.clusterScoped ? 'ClusterResourceBinding' : 'ResourceBinding';
  const name = input.binding.metadata.name;
  const atMs = (e: CoreEvent): number | undefined => parseTime(e.lastTimestamp ?? e.firstTimestamp);
  return (input.events ?? [])
    .filter((e) => e.involvedObject.name === name && (e.involvedObject.kind ?? kind) === kind)
    .sort((a, b) => (atMs(b) ?? 0) - (atMs(a) ?? 0))
    .slice(0, EXPLAIN_EVENT_LIMIT)
    .map((e) => ({ atMs: atMs(e), type: e.type, reason: e.reason, message: e.message, count: e.count ?? 1 }));
}

function healthOf(b: ResourceBinding, cluster: string): ResourceHealth {
  return (
    b.status?.aggregatedStatus?.find((i) => i.clusterName === cluster)?.health ?? resourceHealths.unknown
  );
}

function placedClusters(b: ResourceBinding): PlacedCluster[] {
  return (b.spec.clusters ?? []).map((c) => ({
    cluster: c.name,
    replicas: c.replicas,
    health: healthOf(b, c.name),
    applied: b.status?.aggregatedStatus?.find((i) => i.clusterName === c.name)?.applied,
  }));
}

/** Every Cluster: placed, or what the scheduler's filters say about it now. */
function clusterVerdicts(input: ExplainInput): ClusterVerdict[] {
  const view = toBindingView(input.binding);
  const names = [...input.clusters].map((c) => c.metadata.name ?? '').sort();
  if (view.placement === undefined) {
    return names.map((cluster) => ({ cluster, verdict: 'rejected', reason: 'the binding has no placement' }));
  }
  const terms = view.placement.affinityTerms;
  const term = terms.find((t) => t.name === view.observedAffinityName) ?? terms[0];
  const attempt: Attempt = {
    binding: view,
    placement: view.placement,
    term:
      term === undefined
        ? { name: '', affinity: view.placement.affinity, overflow: [] }
        : { name: term.name, affinity: term.affinity, overflow: term.overflow },
    nowMs: input.nowMs,
  };
  const views = input.clusters.map(toClusterView);
  const { feasible, rejected } = filterClusters(attempt, views, defaultPlugins);
  const fit = new Set(feasible.map((f) => f.cluster.name));
  return names.map((cluster): ClusterVerdict => {
    if (view.assigned.has(cluster)) return { cluster, verdict: 'placed' };
    if (fit.has(cluster)) return { cluster, verdict: 'fits' };
    const miss = rejected.find((x) => x.cluster === cluster);
    if (miss === undefined) return { cluster, verdict: 'deleting' };
    return { cluster, verdict: 'rejected', plugin: miss.plugin, reason: miss.reason };
  });
}

function taskReport(t: GracefulEvictionTask, input: ExplainInput): TaskReport {
  const b = input.binding;
  const s = input.settings;
  const createdAtMs = parseTime(t.creationTimestamp);
  const timeoutMs =
    t.gracePeriodSeconds === undefined ? s.gracefulEvictionTimeoutMs : t.gracePeriodSeconds * 1000;
  const purgeMode = givenPurgeMode(t.purgeMode) ?? purgeModes.gracefully;
  const waitsForPerson = t.suppressDeletion === true || purgeMode === purgeModes.never;
  const verdict = judgeEvictionTask(
    t,
    { generation: b.metadata.generation, spec: b.spec, status: b.status },
    input.nowMs,
    s.gracefulEvictionTimeoutMs,
  );
  const causeInput = causeInputFor(t.fromCluster, input);
  return {
    fromCluster: t.fromCluster,
    purgeMode,
    replicas: t.replicas,
    reason: t.reason,
    producer: t.producer,
    createdAtMs,
    endsAtMs: waitsForPerson || createdAtMs === undefined ? undefined : createdAtMs + timeoutMs,
    ends: howTaskEnds(t, verdict, purgeMode),
    cause: judgeCause(t, causeInput),
    takeBack: judgeReturn(t, causeInput),
    lastCopyKept: verdict.kind === 'keepLastCopy',
    preservedLabelState: t.preservedLabelState,
  };
}

/** What the scheduler judges a task's cause against: the cluster now, the placement's tolerations. */
function causeInputFor(cluster: string, input: ExplainInput): ReturnInput {
  const b = input.binding;
  const c = input.clusters.find((x) => x.metadata.name === cluster);
  return {
    cluster:
      c === undefined
        ? undefined
        : { taints: c.spec.taints ?? [], deleting: c.metadata.deletionTimestamp !== undefined },
    tolerations: b.spec.placement?.clusterTolerations ?? [],
    health: healthByCluster(b.status?.aggregatedStatus),
    placed: (b.spec.clusters ?? []).map((x) => x.name),
    nowMs: input.nowMs,
  };
}

function howTaskEnds(t: GracefulEvictionTask, verdict: TaskVerdict, purgeMode: PurgeMode): string {
  if (t.suppressDeletion === false) return 'deletion confirmed: removed at the next pass';
  if (verdict.kind === 'remove' && verdict.reason === 'PlacedAgain')
    return 'placed on its cluster again: removed at the next pass, the copy there kept';
  if (t.suppressDeletion === true || purgeMode === purgeModes.never)
    return 'kept until someone sets suppressDeletion: false';
  if (verdict.kind === 'stamp') return 'not stamped yet by graceful-eviction';
  if (verdict.kind === 'keepLastCopy')
    return (
      'past its deadline, kept: no other cluster runs a healthy copy; ends when one does, ' +
      'or when the scheduler places the binding on its cluster again'
    );
  if (purgeMode === purgeModes.directly) return 'when healthy on every placed cluster, or at the deadline';
  return 'when healthy on every placed cluster, or at the deadline if another cluster runs a healthy copy';
}

function historyReport(b: ResourceBinding, nowMs: number): HistoryReport[] {
  const blockMs = blockPredecessorMs(b.metadata.annotations, b.spec.failover?.application);
  return evictionHistoryOf(b.metadata.annotations, b.spec.evictionHistory).map((e) => {
    const evictedAtMs = parseTime(e.creationTimestamp);
    const blockedUntilMs = evictedAtMs === undefined ? 0 : evictedAtMs + blockMs;
    return {
      cluster: e.clusterName,
      evictedAtMs,
      blockedUntilMs,
      active: nowMs < blockedUntilMs,
      reason: e.reason,
    };
  });
}

function describeTaints(taints: readonly Taint[]): string {
  return taints.map((t) => `${t.key}${t.value === undefined ? '' : `=${t.value}`}:${t.effect}`).join(', ');
}

function clusterFailover(input: ExplainInput): FailoverReport {
  const b = input.binding;
  const applied = readAppliedTolerations(b.metadata.annotations);
  const byName = new Map(input.clusters.map((c) => [c.metadata.name ?? '', c]));
  const clusters = (b.spec.clusters ?? []).map(({ name }): FailoverLine => {
    const taints = byName.get(name)?.spec.taints ?? [];
    const noSchedule = taints.filter((t) => t.effect === taintEffects.noSchedule);
    const note =
      noSchedule.length === 0 ? '' : ` (NoSchedule ${describeTaints(noSchedule)}: no new placement there)`;
    const cluster = byName.get(name);
    const offsetMs = cluster === undefined ? 0 : offsetMsOf(cluster);
    const clock = offsetMs === 0 ? '' : ` ${describeClockOffset(offsetMs)}`;
    return { cluster: name, verdict: taintVerdict(input, name, taints, applied) + note + clock };
  });
  const off = clusterFailoverOff(input.settings);
  return { active: off.length === 0, off, settings: clusterFailoverSettings(b, input.settings), clusters };
}

function clusterFailoverOff(s: ExplainSettings): string[] {
  return [
    ...(s.failoverGate ? [] : ['feature gate Failover is off']),
    ...(s.enableTaintManager ? [] : ['--enable-taint-manager=false']),
    ...(s.enableNoExecuteTaintEviction ? [] : ['--enable-no-execute-taint-eviction=false']),
  ];
}

function clusterFailoverSettings(b: ResourceBinding, s: ExplainSettings): string[] {
  const own = b.spec.failover?.cluster;
  const purgeMode = decidePurgeMode(own, s.noExecuteTaintEvictionPurgeMode);
  const source =
    givenPurgeMode(own?.purgeMode) === undefined
      ? '--no-execute-taint-eviction-purge-mode'
      : 'spec.failover.cluster';
  const rules = own?.statePreservation?.rules ?? [];
  const fence = fenceLine(b);
  return [
    `purge mode ${purgeMode} (${source})`,
    ...(rules.length === 0 ? [] : [statePreservationLine(rules.length, s)]),
    ...(fence === undefined ? [] : [fence]),
  ];
}

/** The fence timeout of a Directly purge, in words (undefined when the binding asks for none). */
function fenceLine(b: ResourceBinding): string | undefined {
  const setting = readFenceSetting(b.metadata.annotations);
  if (setting.kind === 'off') return undefined;
  if (setting.kind === 'invalid') return `fence: ${setting.problem}; no fence`;
  const seconds = fenceSecondsOf(b);
  if (seconds === undefined) {
    return `fence: ${annotations.fenceAfterSeconds} is set, but no failover of this binding purges Directly; no fence`;
  }
  return (
    `fence ${String(seconds)}s: the agent of a cluster cut off that long deletes the copies itself; ` +
    `a Directly purge of that cluster goes on once its Lease has been silent for ${String(seconds)}s + ` +
    `the Lease duration + --fence-release-margin`
  );
}

function taintVerdict(
  input: ExplainInput,
  cluster: string,
  taints: readonly Taint[],
  applied: ReturnType<typeof readAppliedTolerations>,
): string {
  if (!taints.some((t) => t.effect === taintEffects.noExecute)) {
    const stale = staleReadyOf(input, cluster);
    if (stale === undefined) return 'stays: no NoExecute taint';
    return (
      `stays: Ready is Unknown but its Lease was renewed ${seconds(stale.silentForMs)} ago, ` +
      `so the condition is stale, not a failure: no NoExecute taint is added while the Lease stays ` +
      `fresh (${seconds(stale.freshForMs)} more)`
    );
  }
  if (!applied.ok) return `not judged: ${applied.problem}`;
  const b = input.binding;
  const v = judgeEviction({
    clusterName: cluster,
    boundClusters: b.spec.clusters,
    taints,
    tolerations: applied.tolerations,
    nowMs: input.nowMs,
  });
  switch (v.kind) {
    case 'keep':
      return 'stays: its NoExecute taints are tolerated without a time limit';
    case 'evictAt':
      return `tolerated until ${new Date(v.atMs).toISOString()} (taint ${describeTaints([v.taint])}), then evicted`;
    case 'evictNow':
      return v.untolerated.length === 0
        ? 'due for eviction: the toleration of its NoExecute taint ran out'
        : `due for eviction: ${describeTaints(v.untolerated)} is not tolerated`;
  }
}

/** The cluster's stale Ready=Unknown, if its Lease contradicts it. */
function staleReadyOf(
  input: ExplainInput,
  cluster: string,
): { readonly silentForMs: number; readonly freshForMs: number } | undefined {
  const c = input.clusters.find((x) => x.metadata.name === cluster);
  if (c === undefined) return undefined;
  const v = judgeStaleReady({
    syncMode: c.spec.syncMode,
    ready: findCondition(c.status, clusterConditionTypes.ready),
    silentForMs: silenceEstimateMs(input, c),
    graceMs: input.settings.monitorGracePeriodMs ?? DEFAULT_CLUSTER_MONITOR_GRACE_PERIOD_MS,
  });
  return v.kind === 'stale-unknown' ? v : undefined;
}

/** The member clock offset the control plane recorded on the Cluster; 0 when none is. */
function offsetMsOf(cluster: Cluster): number {
  return parseRecordedOffsetMs(cluster.metadata.annotations?.[annotations.clockOffsetSeconds]) ?? 0;
}

/**
 * How long the member has been silent, as well as a one-off look can tell: explain has watched
 * nothing, so it reads the Lease's `renewTime` (the member's clock), corrected by the offset the
 * control plane recorded. The controllers themselves go by what they saw change, on their clock.
 */
function silenceEstimateMs(input: ExplainInput, cluster: Cluster): number | undefined {
  const renewedAtMs = input.leaseRenewedAtMs?.get(cluster.metadata.name ?? '');
  return renewedAtMs === undefined
    ? undefined
    : Math.max(0, input.nowMs - (renewedAtMs - offsetMsOf(cluster)));
}

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
}

function statePreservationLine(rules: number, s: ExplainSettings): string {
  const gate = s.statefulFailoverInjectionGate ? 'on' : 'off: nothing is captured or injected';
  return `state preservation: ${String(rules)} rule(s), gate StatefulFailoverInjection ${gate}`;
}

function applicationFailover(input: ExplainInput): FailoverReport {
  const b = input.binding;
  const app = b.spec.failover?.application;
  if (app === undefined) {
    return { active: false, off: ['spec.failover.application is not set'], settings: [], clusters: [] };
  }
  const rules = app.statePreservation?.rules ?? [];
  const settings = [
    ...applicationSettings(app, b.metadata.annotations),
    ...(rules.length === 0 ? [] : [statePreservationLine(rules.length, input.settings)]),
  ];
  const evicting = new Set((b.spec.gracefulEvictionTasks ?? []).map((t) => t.fromCluster));
  const tolerationSeconds = app.decisionConditions.tolerationSeconds ?? DEFAULT_TOLERATION_SECONDS;
  const healthy = new Set(
    parseHealthyClusters(b.metadata.annotations?.[annotations.applicationFailoverHealthyClusters]),
  );
  const since = parseUnhealthySince(
    b.metadata.annotations?.[annotations.applicationFailoverUnhealthySince],
  ).since;
  const clusters = (b.spec.clusters ?? []).map(({ name }): FailoverLine => {
    if (evicting.has(name)) return { cluster: name, verdict: 'already being evicted (eviction task)' };
    const verdict = healthVerdict(healthOf(b, name), {
      tolerationSeconds,
      seenHealthy: healthy.has(name),
      unhealthySinceMs: since[name],
    });
    return { cluster: name, verdict };
  });
  const off = applicationFailoverOff(b, app, input.settings);
  return { active: off.length === 0, off, settings, clusters };
}

function applicationFailoverOff(
  b: ResourceBinding,
  app: ApplicationFailoverBehavior,
  s: ExplainSettings,
): string[] {
  const gracefully = (givenPurgeMode(app.purgeMode) ?? purgeModes.gracefully) === purgeModes.gracefully;
  return [
    ...(gracefully && !s.gracefulEvictionGate
      ? ['feature gate GracefulEviction is off (needed by purgeMode Gracefully)']
      : []),
    ...((b.status?.aggregatedStatus ?? []).length === 0 ? ['no status collected from any cluster yet'] : []),
  ];
}

function applicationSettings(
  app: ApplicationFailoverBehavior,
  bindingAnnotations: Readonly<Record<string, string>> | undefined,
): string[] {
  const purgeMode = givenPurgeMode(app.purgeMode) ?? purgeModes.gracefully;
  const toleration = app.decisionConditions.tolerationSeconds ?? DEFAULT_TOLERATION_SECONDS;
  const block = blockPredecessorMs(bindingAnnotations, app);
  return [
    `tolerationSeconds ${String(toleration)}`,
    `purge mode ${purgeMode}` +
      (purgeMode === purgeModes.gracefully
        ? `, gracePeriodSeconds ${String(app.gracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS)}`
        : ''),
    `blockPredecessorSeconds ${Number.isFinite(block) ? String(block / 1000) : '0 (blocks for good)'}`,
  ];
}

function healthVerdict(
  health: ResourceHealth,
  timer: {
    readonly tolerationSeconds: number;
    readonly seenHealthy: boolean;
    /** When application failover first saw it Unhealthy there (the binding's record). */
    readonly unhealthySinceMs: number | undefined;
  },
): string {
  switch (health) {
    case resourceHealths.healthy:
      return 'stays: Healthy';
    case resourceHealths.unknown:
      return 'stays: health Unknown (not timed)';
    case resourceHealths.unhealthy:
      return timer.seenHealthy
        ? `Unhealthy after having been Healthy: moved once unhealthy for ${String(timer.tolerationSeconds)}s ` +
            unhealthyTimerNote(timer.unhealthySinceMs, timer.tolerationSeconds)
        : 'stays: Unhealthy, but never seen Healthy here (a workload that never came up is left to fix)';
  }
}

/** When the move comes, from the first unhealthy sighting recorded on the binding. */
function unhealthyTimerNote(sinceMs: number | undefined, tolerationSeconds: number): string {
  if (sinceMs === undefined) return "(from the controller's first look; not recorded yet)";
  const dueMs = Math.ceil((sinceMs + tolerationSeconds * 1000) / 1000) * 1000;
  return `(first seen Unhealthy ${formatTime(sinceMs)}: due ${formatTime(dueMs)})`;
}
