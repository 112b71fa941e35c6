/**
 * Drops graceful eviction tasks once they are done: the workload is healthy on every cluster it
 * moved to, the task timed out, or a person confirmed deletion; stamps new tasks with their
 * creation time. Watches ResourceBindings and ClusterResourceBindings that have tasks; writes
 * `spec.gracefulEvictionTasks` only (merge patch guarded by resourceVersion). Requeued at the
 * earliest task deadline; health changes arrive as binding updates.
 */
import { eventReasons } from '@kf/api';
import { keyOf } from '@kf/kube';
import type { EventRecorder } from '@kf/kube';
import { converged, keysFrom, recheckIn, type ControllerSpec } from '@kf/runtime';
import {
  bindingClient,
  bindingReference,
  getBinding,
  type Binding,
  type BindingStore,
} from '../../bindings.ts';
import { planEvictionTasks } from './assessment.ts';

export interface GracefulEvictionDeps {
  readonly bindings: BindingStore;
  readonly events: EventRecorder;
  /** `--graceful-eviction-timeout`. */
  readonly timeoutMs: number;
}

const withTasks = (b: Binding): string[] =>
  (b.spec.gracefulEvictionTasks ?? []).length > 0 ? [keyOf(b)] : [];

export function gracefulEvictionController(deps: GracefulEvictionDeps): ControllerSpec {
  return {
    name: 'graceful-eviction',
    sources: [
      keysFrom(deps.bindings.resourceBindings, withTasks),
      keysFrom(deps.bindings.clusterResourceBindings, withTasks),
    ],
    async reconcile(key, { log, now, signal }) {
      const binding = getBinding(deps.bindings, key);
      if (binding === undefined || binding.metadata.deletionTimestamp !== undefined) return converged();
      const plan = planEvictionTasks(
        { generation: binding.metadata.generation, spec: binding.spec, status: binding.status },
        now(),
        deps.timeoutMs,
      );
      if (plan.changed) {
        await bindingClient(deps.bindings, key).mergePatch(
          key,
          {
            metadata: { resourceVersion: binding.metadata.resourceVersion },
            spec: { gracefulEvictionTasks: plan.tasks.length === 0 ? null : plan.tasks },
          },
          { signal },
        );
        const ref = bindingReference(key, binding);
        for (const { task, reason } of plan.removed) {
          const message = `Evict from cluster ${task.fromCluster} succeed.`;
          deps.events.record(ref, 'Normal', eventReasons.evictWorkloadFromClusterSucceed, message);
          log.info({ cluster: task.fromCluster, reason }, 'graceful eviction task removed');
        }
      }
      return plan.recheckInMs === undefined ? converged() : recheckIn(plan.recheckInMs);
    },
  };
}
