/**
 * Carries out WorkloadRebalancers (rebalance-plan.ts says what each one asks): asks the binding
 * of every listed workload for a fresh placement, records each workload's result in the
 * rebalancer's status, and deletes the rebalancer `ttlSecondsAfterFinished` after it finished.
 * Watches WorkloadRebalancers; reads bindings through the shared caches (a binding the cache does
 * not hold is looked up on the API server before the workload is marked Failed, since a result is
 * final); writes binding `spec.rescheduleTriggeredAt` (merge patch guarded by resourceVersion),
 * the rebalancer's status (status subresource, guarded likewise) and deletes rebalancers
 * (preconditions on uid and resourceVersion, so that an edit made meanwhile is looked at first).
 * Requeued when the TTL runs out. A write that fails leaves its workload without a result: the
 * status is written with what was done, then the reconcile fails and is retried.
 */
import {
  rebalanceResults,
  workloadRebalancerKind,
  type ObservedWorkload,
  type WorkloadRebalancer,
  type WorkloadReference,
} from '@kf/api';
import { isNotFound, type EventRecorder, type ResourceClient, type WatchCache } from '@kf/kube';
import { converged, keysFrom, recheckIn, type ControllerSpec } from '@kf/runtime';
import {
  bindingClient,
  bindingReference,
  getBinding,
  type Binding,
  type BindingStore,
} from '../../bindings.ts';
import type { ControlPlaneMetrics } from '../../metrics.ts';
import {
  bindingKeyFor,
  bindingNotFound,
  bindingStepFor,
  describeWorkload,
  expiryOf,
  observedWorkloadsFor,
  rebalanced,
  settleStatus,
  statusPatch,
  type WorkloadOutcome,
} from './rebalance-plan.ts';

/** Event reasons (not upstream's: its controller records none). */
export const REBALANCE_EVENT_REASONS = {
  /** On the rebalancer: a workload's binding was asked for a fresh placement. */
  workloadRebalanced: 'WorkloadRebalanced',
  /** On the rebalancer (Warning): a workload has no binding. */
  workloadRebalanceFailed: 'WorkloadRebalanceFailed',
  /** On the binding: a rebalancer asked it for a fresh placement. */
  rescheduleTriggered: 'RescheduleTriggered',
} as const;

export interface WorkloadRebalancerDeps {
  readonly rebalancers: WatchCache<WorkloadRebalancer>;
  readonly rebalancerClient: ResourceClient<WorkloadRebalancer>;
  readonly bindings: BindingStore;
  readonly events: EventRecorder;
  readonly metrics: Pick<ControlPlaneMetrics, 'workloadRebalanced'>;
}

interface Done {
  readonly workload: WorkloadReference;
  readonly bindingKey: string;
  readonly outcome: WorkloadOutcome;
}

/** One pass over the workloads without a result. */
interface Pass {
  /** The status entries, with the results found in this pass. */
  readonly observed: readonly ObservedWorkload[];
  /** The workloads that got their result in this pass. */
  readonly done: readonly Done[];
  /** Writes that failed and must be retried. */
  readonly failures: readonly unknown[];
}

export function workloadRebalancerController(deps: WorkloadRebalancerDeps): ControllerSpec {
  /** The binding as the cache holds it, else as the API server does (undefined: there is none). */
  const bindingOf = async (key: string, signal: AbortSignal): Promise<Binding | undefined> =>
    getBinding(deps.bindings, key) ?? (await bindingClient(deps.bindings, key).find(key, { signal }));

  /** Rebalances one workload; throws when a write failed for a reason worth retrying. */
  async function rebalance(
    rebalancer: string,
    requestedAt: string,
    workload: WorkloadReference,
    signal: AbortSignal,
  ): Promise<Done> {
    const bindingKey = bindingKeyFor(workload);
    const step = bindingStepFor(await bindingOf(bindingKey, signal), requestedAt);
    if (step.kind === 'missing') return { workload, bindingKey, outcome: bindingNotFound };
    if (step.kind === 'trigger') {
      try {
        await bindingClient(deps.bindings, bindingKey).mergePatch(bindingKey, step.patch, { signal });
      } catch (err) {
        if (isNotFound(err)) return { workload, bindingKey, outcome: bindingNotFound };
        throw err;
      }
      const message = `WorkloadRebalancer ${rebalancer} asked for a fresh placement.`;
      deps.events.record(
        bindingReference(bindingKey, step.binding),
        'Normal',
        REBALANCE_EVENT_REASONS.rescheduleTriggered,
        message,
      );
    }
    return { workload, bindingKey, outcome: rebalanced };
  }

  async function rebalancePending(
    rebalancer: WorkloadRebalancer,
    requestedAt: string,
    signal: AbortSignal,
  ): Promise<Pass> {
    const observed = observedWorkloadsFor(
      rebalancer.spec.workloads,
      rebalancer.status?.observedWorkloads ?? [],
    );
    const done: Done[] = [];
    const failures: unknown[] = [];
    for (const [i, entry] of observed.entries()) {
      if (entry.result !== undefined) continue;
      try {
        const d = await rebalance(rebalancer.metadata.name ?? '', requestedAt, entry.workload, signal);
        observed[i] = { ...entry, ...d.outcome };
        done.push(d);
      } catch (err) {
        failures.push(err);
      }
    }
    return { observed, done, failures };
  }

  return {
    name: 'workload-rebalancer',
    sources: [keysFrom(deps.rebalancers, (r) => [r.metadata.name ?? ''])],
    async reconcile(name, { log, now, signal }) {
      const rebalancer = deps.rebalancers.get(name);
      if (rebalancer === undefined || rebalancer.metadata.deletionTimestamp !== undefined) return converged();
      const requestedAt = rebalancer.metadata.creationTimestamp;
      if (requestedAt === undefined) return converged();
      const { observed, done, failures } = await rebalancePending(rebalancer, requestedAt, signal);
      const settled = settleStatus({
        generation: rebalancer.metadata.generation,
        current: rebalancer.status,
        observed,
        nowMs: now(),
      });
      let resourceVersion = rebalancer.metadata.resourceVersion;
      if (settled.changed) {
        const patch = statusPatch(settled.status, resourceVersion);
        resourceVersion = (await deps.rebalancerClient.patchStatus(name, patch, { signal })).metadata
          .resourceVersion;
        recordResults(deps, rebalancer, done);
        log.info(
          { workloads: observed.length, finished: settled.finished, results: done.length },
          'workload rebalancer status updated',
        );
      }
      if (failures.length > 0) throw failures[0];
      const expiry = expiryOf(rebalancer.spec.ttlSecondsAfterFinished, settled.status.finishTime, now());
      if (expiry.kind === 'keep') return converged();
      if (expiry.kind === 'wait') return recheckIn(expiry.ms);
      await remove(deps, rebalancer, resourceVersion, signal);
      log.info(
        { ttlSeconds: rebalancer.spec.ttlSecondsAfterFinished },
        'finished workload rebalancer deleted',
      );
      return converged();
    },
  };
}

/** Events and counts for the workloads that got their result, once the status says so. */
function recordResults(
  deps: WorkloadRebalancerDeps,
  rebalancer: WorkloadRebalancer,
  done: readonly Done[],
): void {
  const ref = {
    ...rebalancer,
    apiVersion: workloadRebalancerKind.apiVersion,
    kind: workloadRebalancerKind.kind,
  };
  for (const { workload, bindingKey, outcome } of done) {
    deps.metrics.workloadRebalanced(outcome.result);
    if (outcome.result === rebalanceResults.successful) {
      const message = `${describeWorkload(workload)}: binding ${bindingKey} asked for a fresh placement.`;
      deps.events.record(ref, 'Normal', REBALANCE_EVENT_REASONS.workloadRebalanced, message);
    } else {
      const message = `${describeWorkload(workload)} has no binding ${bindingKey} (${outcome.reason ?? ''}).`;
      deps.events.record(ref, 'Warning', REBALANCE_EVENT_REASONS.workloadRebalanceFailed, message);
    }
  }
}

/**
 * Deletes the rebalancer as it was judged: an edit made since (another resourceVersion) or a new
 * rebalancer of the same name (another uid) fails the delete with Conflict, and is looked at anew.
 */
async function remove(
  deps: WorkloadRebalancerDeps,
  rebalancer: WorkloadRebalancer,
  resourceVersion: string | undefined,
  signal: AbortSignal,
): Promise<void> {
  const preconditions = {
    ...(rebalancer.metadata.uid === undefined ? {} : { uid: rebalancer.metadata.uid }),
    ...(resourceVersion === undefined ? {} : { resourceVersion }),
  };
  try {
    await deps.rebalancerClient.delete(rebalancer.metadata.name ?? '', { preconditions, signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
