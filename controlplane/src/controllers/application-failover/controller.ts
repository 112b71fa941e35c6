/**
 * application-failover: moves a workload away from a cluster where it has been unhealthy for
 * `spec.failover.application.decisionConditions.tolerationSeconds` after having been healthy
 * there (decisions in {@link planApplicationFailover}). Writes, in one merge patch guarded by
 * resourceVersion, the binding's `spec.clusters` (cluster removed), `spec.gracefulEvictionTasks`
 * (task appended) and the annotation `failover.karmada-failover.io/eviction-history` (entry for
 * the scheduler's EvictionHistory filter; Karmada's CRDs have no `spec.evictionHistory`, so that
 * field, left by an earlier version, is emptied into the annotation and removed by the same patch).
 * Watches ResourceBindings and ClusterResourceBindings, status updates included (health lives in
 * `status.aggregatedStatus`). Requeued when the earliest running timer ends; write errors retry
 * with backoff; an eviction held back (gate off, state unreadable) waits for the binding to change.
 *
 * Unlike upstream, the timers survive a restart or a change of leader: which clusters the workload
 * was Healthy on, and when it was first seen Unhealthy on each timed cluster (the control plane's
 * own clock), are annotations on the binding, written (guarded by resourceVersion) only when they
 * change. So an unhealthy workload moves `tolerationSeconds` after the first sighting, however
 * often the controller restarts meanwhile, and a restart does not switch failover off for a
 * workload already unhealthy. A first-sighting annotation that cannot be read is logged and treated
 * as absent (its timers start afresh, and the next write replaces it).
 */
import { annotations, eventReasons, givenPurgeMode, purgeModes, type ResourceBinding } from '@kf/api';
import { joinKey, type EventRecorder } from '@kf/kube';
import { TerminalError, converged, keysFrom, recheckIn, type ControllerSpec, type Logger } from '@kf/runtime';
import {
  allBindings,
  bindingClient,
  getBinding,
  isClusterBindingKey,
  type BindingStore,
  recordOnBinding,
} from '../../bindings.ts';
import { warnUnlessConflict } from '../../write-warnings.ts';
import {
  evictionPatch,
  planApplicationFailover,
  recordPatch,
  type ApplicationFailoverGates,
  type FailoverChange,
  type ApplicationFailoverPlan,
} from './failover-plan.ts';
import { parseHealthyClusters } from './healthy-record.ts';
import type { BindingHealthMemory } from './unhealthy-timing.ts';

export interface ApplicationFailoverDeps {
  readonly bindings: BindingStore;
  readonly events: EventRecorder;
  readonly gates: ApplicationFailoverGates;
}

/** The taint manager's reason for the same step, so that both failovers read alike. */
const EVICTION_STARTED = 'EvictionStarted';

/**
 * Bindings with application failover, and those with its records still on them. One that lost it
 * is queued too: keysFrom also takes the keys of the object before a change, which had it (so its
 * timers are forgotten and its records dropped). Others never are: at 10,000 bindings without it,
 * every status write of each would otherwise wake this controller for nothing.
 */
const keysOf = (b: ResourceBinding): string[] =>
  b.spec.failover?.application !== undefined ||
  b.metadata.annotations?.[annotations.applicationFailoverHealthyClusters] !== undefined ||
  b.metadata.annotations?.[annotations.applicationFailoverUnhealthySince] !== undefined
    ? [joinKey(b.metadata.namespace, b.metadata.name ?? '')]
    : [];

export function applicationFailoverController(deps: ApplicationFailoverDeps): ControllerSpec {
  const timers = new Map<string, BindingHealthMemory>();
  return {
    name: 'application-failover',
    sources: [keysFrom(allBindings(deps.bindings), keysOf)],
    async reconcile(key, { log, now, signal }) {
      const b = getBinding(deps.bindings, key);
      if (b === undefined || b.metadata.deletionTimestamp !== undefined) {
        timers.delete(key);
        return converged();
      }
      const recordedValue = b.metadata.annotations?.[annotations.applicationFailoverHealthyClusters];
      const plan = planApplicationFailover({
        healthyRecorded: parseHealthyClusters(recordedValue),
        spec: b.spec,
        annotations: b.metadata.annotations,
        aggregatedStatus: b.status?.aggregatedStatus,
        memory: timers.get(key) ?? {},
        nowMs: now(),
        clusterScoped: isClusterBindingKey(key),
        gates: deps.gates,
      });
      logRecordProblems(log, plan.recordProblems);
      if (Object.keys(plan.memory).length === 0) timers.delete(key);
      else timers.set(key, plan.memory);
      const records = recordPatch(plan, b.metadata.resourceVersion);
      if (plan.change !== undefined)
        await evict(deps, { key, b, plan, change: plan.change }, { log, signal });
      else if (records !== undefined) {
        await bindingClient(deps.bindings, key).mergePatch(key, records, { signal });
      }
      // Only a change to the binding (its status or policy) or to the gates can help.
      if (plan.problem !== undefined) throw new TerminalError(plan.problem);
      return plan.recheckInMs === undefined ? converged() : recheckIn(plan.recheckInMs);
    },
  };
}

/** Each part of the first-unhealthy-sighting annotation that could not be read (it counts as absent). */
function logRecordProblems(log: Logger, problems: readonly string[] | undefined): void {
  for (const problem of problems ?? []) {
    log.warn(
      { annotation: annotations.applicationFailoverUnhealthySince, problem },
      'binding annotation unreadable, treated as absent',
    );
  }
}

/** Writes the evictions in one guarded patch, then tells the binding and its template. */
async function evict(
  deps: ApplicationFailoverDeps,
  {
    key,
    b,
    plan,
    change,
  }: {
    readonly key: string;
    readonly b: ResourceBinding;
    readonly plan: ApplicationFailoverPlan;
    readonly change: FailoverChange;
  },
  { log, signal }: { readonly log: Logger; readonly signal: AbortSignal },
): Promise<void> {
  try {
    await bindingClient(deps.bindings, key).mergePatch(
      key,
      evictionPatch(change, plan, b.metadata.resourceVersion),
      { signal },
    );
  } catch (err: unknown) {
    warnUnlessConflict(err, () => {
      for (const { cluster } of plan.evicted) {
        recordOnBinding(deps.events, b, {
          type: 'Warning',
          reason: eventReasons.evictWorkloadFromClusterFailed,
          message: `Evict from cluster ${cluster} failed.`,
        });
      }
    });
    throw err;
  }
  for (const { cluster, task } of plan.evicted) {
    const purgeMode = givenPurgeMode(task.purgeMode) ?? purgeModes.gracefully;
    recordOnBinding(deps.events, b, {
      type: 'Normal',
      reason: EVICTION_STARTED,
      message: `Evicting from cluster ${cluster} (purge mode ${purgeMode}): ${task.message ?? ''}`,
    });
    log.info({ cluster, purgeMode }, 'application failed over from cluster');
  }
}
