/**
 * Drops graceful eviction tasks once they are done: the workload is healthy on every cluster it
 * moved to, the scheduler placed it on the task's cluster again, the task timed out while another
 * cluster runs a healthy copy, or a person confirmed deletion; stamps new tasks with their
 * creation time. A task past its timeout whose copy nothing replaces is kept, with condition
 * `LastCopyKept` on the binding and a Warning Event (see assessment.ts and last-copy.ts).
 * Watches ResourceBindings and ClusterResourceBindings that have tasks or that condition; writes
 * `spec.gracefulEvictionTasks` (merge patch guarded by resourceVersion) and the condition (status
 * patch, guarded too: the conditions list is replaced whole). Requeued at the earliest task
 * deadline; health and placement changes arrive as binding updates.
 */
import { eventReasons, findCondition } from '@kf/api';
import { keyOf, type EventRecorder } from '@kf/kube';
import { converged, keysFrom, recheckIn, type ControllerSpec } from '@kf/runtime';
import {
  bindingReference,
  getBinding,
  ownBindingWrites,
  type Binding,
  type BindingStore,
} from '../../bindings.ts';
import { planEvictionTasks, type RemovalReason } from './assessment.ts';
import { LAST_COPY_KEPT, describeKeptCopy, planLastCopyCondition } from './last-copy.ts';

/** Event reasons of this controller that upstream does not have. */
export const gracefulEvictionEventReasons = {
  /** The binding was placed on the task's cluster again: the eviction ended, the copy stays. */
  evictionCancelled: 'EvictionCancelled',
  /** A task timed out but its copy is the only one: kept. */
  lastCopyKept: LAST_COPY_KEPT,
} as const;

export interface GracefulEvictionDeps {
  readonly bindings: BindingStore;
  readonly events: EventRecorder;
  /** `--graceful-eviction-timeout`. */
  readonly timeoutMs: number;
}

const watched = (b: Binding): string[] =>
  (b.spec.gracefulEvictionTasks ?? []).length > 0 || findCondition(b.status, LAST_COPY_KEPT) !== undefined
    ? [keyOf(b)]
    : [];

export function gracefulEvictionController(deps: GracefulEvictionDeps): ControllerSpec {
  // Its own writes' events (a task removed, the condition of a kept copy): the reconcile that
  // wrote them converged on them.
  const writes = ownBindingWrites(deps.bindings);
  const echoes = { ownWrites: writes.record };
  return {
    name: 'graceful-eviction',
    sources: [
      keysFrom(deps.bindings.resourceBindings, watched, echoes),
      keysFrom(deps.bindings.clusterResourceBindings, watched, echoes),
    ],
    async reconcile(key, { log, now, signal }) {
      const binding = getBinding(deps.bindings, key);
      if (binding === undefined || binding.metadata.deletionTimestamp !== undefined) return converged();
      const nowMs = now();
      const plan = planEvictionTasks(
        { generation: binding.metadata.generation, spec: binding.spec, status: binding.status },
        nowMs,
        deps.timeoutMs,
      );
      const client = writes.client(key);
      const ref = bindingReference(key, binding);
      let resourceVersion = binding.metadata.resourceVersion;
      if (plan.changed) {
        const written = await client.mergePatch(
          key,
          {
            metadata: { resourceVersion },
            spec: { gracefulEvictionTasks: plan.tasks.length === 0 ? null : plan.tasks },
          },
          { signal },
        );
        resourceVersion = written.metadata.resourceVersion;
        for (const { task, reason } of plan.removed) {
          const event = removalEvent(task.fromCluster, reason);
          deps.events.record(ref, 'Normal', event.reason, event.message);
          log.info({ cluster: task.fromCluster, reason }, 'graceful eviction task removed');
        }
      }
      const kept = plan.lastCopies.map((k) => ({ cluster: k.task.fromCluster, deadlineMs: k.deadlineMs }));
      const condition = planLastCopyCondition(binding.status?.conditions, kept, nowMs);
      if (condition !== undefined) {
        await client.patchStatus(
          key,
          { metadata: { resourceVersion }, status: { conditions: condition.conditions } },
          { signal },
        );
        for (const k of condition.report) {
          deps.events.record(ref, 'Warning', gracefulEvictionEventReasons.lastCopyKept, describeKeptCopy(k));
          log.info({ cluster: k.cluster }, 'graceful eviction timed out; last copy kept');
        }
      }
      return plan.recheckInMs === undefined ? converged() : recheckIn(plan.recheckInMs);
    },
  };
}

function removalEvent(cluster: string, reason: RemovalReason): { reason: string; message: string } {
  if (reason === 'PlacedAgain') {
    return {
      reason: gracefulEvictionEventReasons.evictionCancelled,
      message: `The workload is placed on cluster ${cluster} again: the eviction from it ended and the copy there is kept.`,
    };
  }
  return {
    reason: eventReasons.evictWorkloadFromClusterSucceed,
    message: `Evict from cluster ${cluster} succeed.`,
  };
}
