/**
 * Fail-back: sends a binding that cluster failover moved back where it ran before, once every
 * cluster of that placement has been steady for the window its policy asks for (see plan.ts for
 * the rules, steadiness.ts for "steady", setting.ts for the opt-in). Watches ResourceBindings,
 * ClusterResourceBindings and Clusters; writes binding `spec.clusters`,
 * `spec.gracefulEvictionTasks`, `spec.rescheduleTriggeredAt` and removes the placement record, in
 * one write with the binding's resourceVersion as precondition. Shares the fleet guard with the
 * taint manager: nothing goes back while evictions are held back.
 */
import {
  annotations,
  clusterConditionTypes,
  evictionProducers,
  findCondition,
  evictionReasons,
  formatTime,
  isSameJson,
  namespaces,
  purgeModes,
  type Cluster,
  type ResourceBindingSpec,
} from '@kf/api';
import { joinKey, keyOf, type EventRecorder, type Lease, type WatchCache } from '@kf/kube';
import {
  converged,
  keysFrom,
  recheckIn,
  type ControllerSpec,
  type Outcome,
  type ReconcileContext,
} from '@kf/runtime';
import {
  bindingClient,
  bindingReference,
  getBinding,
  type Binding,
  type BindingStore,
} from '../../bindings.ts';
import type { ControlPlaneMetrics, FailBackResult } from '../../metrics.ts';
import { warnUnlessConflict } from '../../write-warnings.ts';
import type { FleetGuard } from '../fleet-guard/guard.ts';
import { planGracefulEviction } from '../graceful-eviction/evict-cluster.ts';
import { decideFailBack, isFailBackInFlight, type FailBackBinding, type FailBackDecision } from './plan.ts';
import { readPlacementRecord, type PlacementRecord } from './record.ts';
import { readFailBackSetting } from './setting.ts';
import { judgeSteadiness, SteadinessTracker, type Steadiness } from './steadiness.ts';
import { memberSignals, type MemberObservations } from '../cluster-health/observations.ts';

/** Event reasons of this controller (none is upstream's). */
export const failBackEventReasons = {
  started: 'FailBackStarted',
  dropped: 'FailBackDropped',
  invalidSetting: 'FailBackInvalidSetting',
  failed: 'FailBackFailed',
} as const;

/** Default of `--fail-back-max-in-flight`. */
export const DEFAULT_FAIL_BACK_MAX_IN_FLIGHT = 10;

export interface FailBackDeps {
  readonly clusters: WatchCache<Cluster>;
  /** Cluster heartbeat Leases: a steady cluster renews its Lease within the grace period. */
  readonly leases: WatchCache<Lease>;
  /** What this process has seen of each member; shared with the health monitor. */
  readonly observations: MemberObservations;
  readonly bindings: BindingStore;
  readonly guard: FleetGuard;
  readonly events: EventRecorder;
  readonly metrics: Pick<ControlPlaneMetrics, 'failBack'>;
  readonly monitorGracePeriodMs: number;
  readonly maxInFlight: number;
  /** Wall clock for the looks at cluster changes (a reconcile has its own). */
  readonly now: () => number;
}

export function failBackController(deps: FailBackDeps): ControllerSpec {
  const tracker = new SteadinessTracker();
  /** One look at a cluster: steady now or why not, and since when (undefined: not steady). */
  const look = (cluster: Cluster, nowMs: number): { steadiness: Steadiness; since: number | undefined } => {
    const name = cluster.metadata.name ?? '';
    const lease = deps.leases.get(joinKey(namespaces.cluster, name));
    const { silentForMs } = deps.observations.look(name, memberSignals(cluster, lease));
    const steadiness = judgeSteadiness(
      cluster,
      lease === undefined ? undefined : silentForMs,
      deps.monitorGracePeriodMs,
    );
    const ready = findCondition(cluster.status, clusterConditionTypes.ready);
    const readySince = ready === undefined ? undefined : deps.observations.conditionSinceMs(name, ready);
    return { steadiness, since: tracker.observe(name, steadiness, readySince, nowMs) };
  };
  // Every change of a cluster is a look: a flap between two fail-back decisions restarts its window.
  deps.clusters.onEvent((type, cluster) => {
    if (type === 'DELETED') tracker.forget(cluster.metadata.name ?? '');
    else look(cluster, deps.now());
  });
  const recorded = (b: Binding): readonly string[] =>
    b.metadata.annotations?.[annotations.placementBeforeFailover] === undefined ? [] : [keyOf(b)];
  return {
    name: 'fail-back',
    sources: [
      keysFrom(deps.bindings.resourceBindings, recorded),
      keysFrom(deps.bindings.clusterResourceBindings, recorded),
      // Of a Cluster it reads what makes it steady or not (the looks above see every change).
      // The bindings' sources name every recorded binding for the fill and the resync.
      keysFrom(deps.clusters, () => recordedKeys(deps.bindings), {
        changed: steadinessInputsChanged,
        listsKeys: false,
      }),
    ],
    async reconcile(key, ctx) {
      const binding = getBinding(deps.bindings, key);
      if (binding === undefined) return converged();
      const parsed = readPlacementRecord(binding.metadata.annotations);
      if (parsed.kind === 'none') return converged();
      const ref = bindingReference(key, binding);
      if (parsed.kind === 'invalid') {
        return drop(
          deps,
          { key, binding },
          { result: 'InvalidRecord', why: `placement record unreadable: ${parsed.problem}` },
          ctx,
        );
      }
      const setting = readFailBackSetting(binding.metadata.annotations);
      if (setting.kind === 'off') {
        return drop(
          deps,
          { key, binding },
          { result: 'Disabled', why: 'fail-back is off for this binding' },
          ctx,
        );
      }
      if (setting.kind === 'invalid') {
        deps.events.record(ref, 'Warning', failBackEventReasons.invalidSetting, setting.problem);
        return converged(); // the record stays: a corrected setting acts on it
      }
      const nowMs = ctx.now();
      const decision = decideFailBack({
        binding: failBackView(binding),
        record: parsed.record,
        windowMs: setting.windowMs,
        steadySince: (name) => {
          const cluster = deps.clusters.get(name);
          if (cluster === undefined) return { why: 'not found' };
          const { steadiness, since } = look(cluster, nowMs);
          return since === undefined
            ? { why: steadiness.steady ? 'not steady' : steadiness.why }
            : { sinceMs: since };
        },
        exists: (name) => deps.clusters.get(name) !== undefined,
        guardPaused: deps.guard.check(nowMs).paused,
        inFlight: countInFlight(deps.bindings, key),
        maxInFlight: deps.maxInFlight,
        nowMs,
      });
      return act(deps, { key, binding, record: parsed.record, decision }, ctx);
    },
  };
}

/** Keys of every cached binding carrying a placement record. */
/** Whether a Cluster changed in what {@link judgeSteadiness} reads: Ready, taints, deletion. */
function steadinessInputsChanged(c: Cluster, old: Cluster): boolean {
  const ready = findCondition(c.status, clusterConditionTypes.ready);
  const oldReady = findCondition(old.status, clusterConditionTypes.ready);
  return (
    ready?.status !== oldReady?.status ||
    ready?.lastTransitionTime !== oldReady?.lastTransitionTime ||
    !isSameJson(c.spec.taints, old.spec.taints) ||
    c.metadata.deletionTimestamp !== old.metadata.deletionTimestamp
  );
}

function recordedKeys(store: BindingStore): string[] {
  const has = (b: Binding): boolean =>
    b.metadata.annotations?.[annotations.placementBeforeFailover] !== undefined;
  return [
    ...store.resourceBindings.list().filter(has).map(keyOf),
    ...store.clusterResourceBindings.list().filter(has).map(keyOf),
  ];
}

function failBackView(b: Binding): FailBackBinding {
  return {
    deleting: b.metadata.deletionTimestamp !== undefined,
    clusters: b.spec.clusters ?? [],
    tasks: b.spec.gracefulEvictionTasks ?? [],
    rescheduleTriggeredAt: b.spec.rescheduleTriggeredAt,
    lastScheduledTime: b.status?.lastScheduledTime,
  };
}

/** Fail-backs under way in the whole population, `except` the binding deciding. */
function countInFlight(store: BindingStore, except: string): number {
  let n = 0;
  const count = (b: Binding): void => {
    if (keyOf(b) !== except && isFailBackInFlight(failBackView(b), evictionProducers.failBack)) n++;
  };
  for (const b of store.resourceBindings.list()) count(b);
  for (const b of store.clusterResourceBindings.list()) count(b);
  return n;
}

interface Decided {
  readonly key: string;
  readonly binding: Binding;
  readonly record: PlacementRecord;
  readonly decision: FailBackDecision;
}

async function act(deps: FailBackDeps, d: Decided, ctx: ReconcileContext): Promise<Outcome> {
  const { decision } = d;
  switch (decision.kind) {
    case 'none':
      return converged();
    case 'drop':
      return drop(deps, d, { result: decision.reason, why: decision.message }, ctx);
    case 'wait':
      ctx.log.debug({ reason: decision.reason, message: decision.message }, 'fail-back waits');
      return decision.recheckInMs === undefined ? converged() : recheckIn(decision.recheckInMs);
    case 'return':
      return goBack(deps, { ...d, decision }, ctx);
  }
}

/** The spec fields a fail-back writes: see plan.ts. */
export function returnSpec(
  spec: ResourceBindingSpec,
  leave: readonly string[],
  returnTo: readonly string[],
  nowMs: number,
): Pick<ResourceBindingSpec, 'clusters' | 'gracefulEvictionTasks' | 'rescheduleTriggeredAt'> {
  let next = spec;
  for (const cluster of leave) {
    next = planGracefulEviction(next, cluster, {
      purgeMode: purgeModes.gracefully,
      producer: evictionProducers.failBack,
      reason: evictionReasons.failBack,
      message: `Going back to ${returnTo.join(', ')}, where it ran before a cluster failover.`,
    }).spec;
  }
  return {
    clusters: next.clusters ?? [],
    gracefulEvictionTasks: next.gracefulEvictionTasks ?? [],
    rescheduleTriggeredAt: formatTime(nowMs),
  };
}

async function goBack(
  deps: FailBackDeps,
  d: Decided & { readonly decision: Extract<FailBackDecision, { kind: 'return' }> },
  { log, now, signal }: ReconcileContext,
): Promise<Outcome> {
  const { key, binding } = d;
  const { leave, returnTo } = d.decision;
  const spec = returnSpec(binding.spec, leave, returnTo, now());
  await write(
    deps,
    { key, binding },
    { spec, metadata: { annotations: { [annotations.placementBeforeFailover]: null } } },
    signal,
  );
  deps.metrics.failBack('Started');
  const kept = leave.length === 0 ? '' : `; the copies on ${leave.join(', ')} stay until it is healthy there`;
  const message = `Going back to ${returnTo.join(', ')}, steady for the fail-back window${kept}.`;
  deps.events.record(bindingReference(key, binding), 'Normal', failBackEventReasons.started, message);
  log.info({ returnTo, leave }, 'binding fails back');
  return converged();
}

async function drop(
  deps: FailBackDeps,
  { key, binding }: { readonly key: string; readonly binding: Binding },
  { result, why }: { readonly result: Exclude<FailBackResult, 'Started'>; readonly why: string },
  { log, signal }: ReconcileContext,
): Promise<Outcome> {
  await write(
    deps,
    { key, binding },
    { metadata: { annotations: { [annotations.placementBeforeFailover]: null } } },
    signal,
  );
  deps.metrics.failBack(result);
  const type = result === 'InvalidRecord' ? 'Warning' : 'Normal';
  deps.events.record(
    bindingReference(key, binding),
    type,
    failBackEventReasons.dropped,
    `No fail-back (${result}): ${why}.`,
  );
  log.info({ result, why }, 'placement record dropped');
  return converged();
}

/** One merge patch guarded by the binding's resourceVersion (a conflict is retried by the runner). */
async function write(
  deps: FailBackDeps,
  { key, binding }: { readonly key: string; readonly binding: Binding },
  patch: { readonly spec?: object; readonly metadata: { readonly annotations: Record<string, null> } },
  signal: AbortSignal,
): Promise<void> {
  try {
    await bindingClient(deps.bindings, key).mergePatch(
      key,
      { ...patch, metadata: { ...patch.metadata, resourceVersion: binding.metadata.resourceVersion } },
      { signal },
    );
  } catch (err: unknown) {
    warnUnlessConflict(err, () => {
      deps.events.record(
        bindingReference(key, binding),
        'Warning',
        failBackEventReasons.failed,
        'Fail-back write failed.',
      );
    });
    throw err;
  }
}
