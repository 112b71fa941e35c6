/**
 * scheduler: places bindings on clusters. Decides with the pure core (`decideScheduling`,
 * `scheduleBinding`) and writes the result: `spec.clusters` + applied-placement annotation, then
 * the `Scheduled` condition, `schedulerObservedGeneration` and `lastScheduledTime`, with a
 * ScheduleBindingSucceed / ScheduleBindingFailed Event on the binding and its template.
 * Watches bindings (creation, generation changes, and health changes while eviction tasks exist)
 * and Clusters (label/spec changes and deletion start requeue the bindings they may affect; Ready
 * flips do not).
 * Requeues: errors with backoff, Unschedulable after {@link UNSCHEDULABLE_RECHECK_MS}, and when
 * an eviction history block ends (`blockPredecessorSeconds`), so the cluster is considered again.
 *
 * No fitting cluster keeps the current placement (`onNoClusterFit: 'keep'`) and only reports
 * Scheduled=False/NoClusterFit. Upstream clears `spec.clusters`, which removes the workload from
 * every cluster whenever every cluster is briefly unfit (all tainted NoSchedule during a network
 * partition, say). Moving workloads away is the job of the eviction paths (taint manager,
 * application failover, cluster deletion), which keep the workload running until it is healthy
 * elsewhere; a transient scheduling verdict should not bypass them.
 */
import type { Cluster, ResourceBinding } from '@kf/api';
import { joinKey, type EventRecorder, type OwnWrites, type WatchCache } from '@kf/kube';
import {
  TerminalError,
  converged,
  keysFrom,
  recheckIn,
  type ControllerSpec,
  type Outcome,
  type ReconcileContext,
  type Source,
} from '@kf/runtime';
import { toBindingView } from '../../scheduler/binding-view.ts';
import { cachedClusterView } from '../../scheduler/cluster-view.ts';
import { nextUnblockInMs } from '../../scheduler/plugins/eviction-history.ts';
import { scheduleBinding, type SchedulerOptions } from '../../scheduler/schedule.ts';
import { decideScheduling } from '../../scheduler/trigger.ts';
import {
  allBindings,
  getBinding,
  ownBindingWrites,
  recordOnBinding,
  type BindingStore,
  type OwnBindingWrites,
} from '../../bindings.ts';
import { clustersToMatch, isAffectedBy, isForScheduler, isSchedulingEvent } from './intake.ts';
import { describePass, planPlacementPatch, planStatusPatch } from './scheduling-writes.ts';
import { WORKLOAD_WORKERS } from '../workers.ts';

/**
 * Upstream re-activates unschedulable bindings after at most five minutes unless a cluster
 * change requeues them first; capacity freed elsewhere is seen no later than that.
 */
export const UNSCHEDULABLE_RECHECK_MS = 5 * 60_000;

export interface SchedulerDeps {
  readonly bindings: BindingStore;
  readonly clusters: WatchCache<Cluster>;
  readonly events: EventRecorder;
  /** `--scheduler-name` (default `default-scheduler`). */
  readonly schedulerName: string;
  /** Plugins and empty-workload propagation; `onNoClusterFit` is always `keep` (see header). */
  readonly options?: Partial<Omit<SchedulerOptions, 'onNoClusterFit'>>;
}

const bindingKey = (b: ResourceBinding): string => joinKey(b.metadata.namespace, b.metadata.name ?? '');

/** Bindings to (re)schedule; the events of the scheduler's own writes do not count. */
function bindingSource(deps: SchedulerDeps, own: OwnWrites): Source {
  return keysFrom(allBindings(deps.bindings), (b) => [bindingKey(b)], {
    ownWrites: own,
    wakes: isSchedulingEvent,
  });
}

function clusterSource(deps: SchedulerDeps): Source {
  const bindings = allBindings(deps.bindings);
  return {
    onChange: (enqueue) =>
      deps.clusters.onEvent((type, c, old) => {
        const versions = clustersToMatch(type, c, old);
        if (versions.length === 0) return;
        for (const b of bindings.list()) {
          if (isForScheduler(b, deps.schedulerName) && versions.some((v) => isAffectedBy(b, v)))
            enqueue(bindingKey(b));
        }
      }),
    keys: () => [],
    synced: () => deps.clusters.synced(),
  };
}

export function schedulerController(deps: SchedulerDeps): ControllerSpec {
  const writes = ownBindingWrites(deps.bindings);
  return {
    name: 'scheduler',
    workers: WORKLOAD_WORKERS,
    sources: [bindingSource(deps, writes.record), clusterSource(deps)],
    async reconcile(key, ctx) {
      const b = getBinding(deps.bindings, key);
      if (b === undefined || !isForScheduler(b, deps.schedulerName)) return converged();
      const clusters = deps.clusters.list();
      const terminating = new Set(
        clusters.filter((c) => c.metadata.deletionTimestamp !== undefined).map((c) => c.metadata.name ?? ''),
      );
      const trigger = decideScheduling(b, terminating);
      switch (trigger.kind) {
        case 'Deleting':
          return converged();
        case 'NoPlacement':
          recordOnBinding(deps.events, b, {
            type: 'Warning',
            reason: 'ScheduleBindingFailed',
            message: 'the binding has no placement',
          });
          throw new TerminalError(`binding ${key} has no placement`);
        case 'Skip':
          if (trigger.observedGeneration !== undefined) {
            const patch = { status: { schedulerObservedGeneration: trigger.observedGeneration } };
            await writes.client(key).patchStatus(key, patch, { signal: ctx.signal });
          }
          return converged();
        case 'Schedule':
          return schedule(deps, writes, { key, b, clusters, reason: trigger.reason }, ctx);
      }
    },
  };
}

async function schedule(
  deps: SchedulerDeps,
  writes: OwnBindingWrites,
  input: {
    readonly key: string;
    readonly b: ResourceBinding;
    readonly clusters: readonly Cluster[];
    readonly reason: string;
  },
  ctx: ReconcileContext,
): Promise<Outcome> {
  const { key, b, clusters } = input;
  const nowMs = ctx.now();
  const view = toBindingView(b);
  const result = scheduleBinding(view, clusters.map(cachedClusterView), nowMs, {
    ...deps.options,
    onNoClusterFit: 'keep',
  });
  const client = writes.client(key);
  const placement = planPlacementPatch(b, result);
  const patched =
    placement === undefined ? undefined : await client.mergePatch(key, placement, { signal: ctx.signal });
  const status = planStatusPatch(patched ?? b, result, nowMs);
  if (status !== undefined) {
    // Guarded by resourceVersion: a merge patch replaces `status.conditions` whole, and
    // binding-status writes FullyApplied into the same list from its own copy; whichever writes
    // from a stale copy gets a conflict and tries again, instead of dropping the other's condition.
    const resourceVersion = (patched ?? b).metadata.resourceVersion;
    await client.patchStatus(key, { ...status, metadata: { resourceVersion } }, { signal: ctx.signal });
  }
  const pass = describePass(result);
  if (placement !== undefined || status !== undefined) {
    recordOnBinding(deps.events, b, {
      type: pass.ok ? 'Normal' : 'Warning',
      reason: pass.ok ? 'ScheduleBindingSucceed' : 'ScheduleBindingFailed',
      message: pass.message,
    });
    ctx.log.info(
      {
        reason: input.reason,
        scheduled: pass.ok,
        clusters: result.clusters,
        // Counted only when the pass failed: a success does not work out why the rest were refused.
        ...(pass.ok ? {} : { rejected: result.rejected.length }),
      },
      pass.ok ? 'binding scheduled' : 'binding not scheduled',
    );
  }
  return retryOutcome(result, nextUnblockInMs(view, nowMs));
}

/** When to look again: at the end of an eviction history block, and as upstream otherwise. */
function retryOutcome(result: ReturnType<typeof scheduleBinding>, unblockInMs: number | undefined): Outcome {
  switch (result.retry) {
    case 'none':
      return unblockInMs === undefined ? converged() : recheckIn(unblockInMs);
    case 'unschedulable':
      return recheckIn(Math.min(UNSCHEDULABLE_RECHECK_MS, unblockInMs ?? UNSCHEDULABLE_RECHECK_MS));
    case 'backoff':
      throw new Error(result.condition.message);
  }
}

/** Records on the binding and on its resource template, as upstream does. */
