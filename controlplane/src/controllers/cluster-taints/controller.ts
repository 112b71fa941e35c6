/**
 * Keeps the two scheduling taints (`not-ready` / `unreachable`, NoSchedule) in line with each
 * Cluster's Ready condition. Watches Clusters; writes `Cluster.spec.taints` only (merge patch
 * guarded by resourceVersion, so a concurrent taint writer makes this retry on fresh data).
 * Nothing time-based: only Cluster changes requeue it.
 */
import { clusterConditionTypes, eventReasons, findCondition, type Cluster } from '@kf/api';
import type { EventRecorder, ResourceClient, WatchCache } from '@kf/kube';
import { converged, keysFrom, type ControllerSpec } from '@kf/runtime';
import type { ControlPlaneMetrics } from '../../metrics.ts';
import { warnUnlessConflict } from '../../write-warnings.ts';
import type { MemberObservations } from '../cluster-health/observations.ts';
import { planSchedulingTaints } from './scheduling-taints.ts';
import { describeTaints } from './taint-diff.ts';

export interface ClusterTaintsDeps {
  readonly clusters: WatchCache<Cluster>;
  readonly clusterClient: ResourceClient<Cluster>;
  readonly events: EventRecorder;
  readonly metrics: ControlPlaneMetrics;
  /** When this process saw Ready change, for the health-to-taint latency it reports. */
  readonly observations: MemberObservations;
}

export function clusterTaintsController(deps: ClusterTaintsDeps): ControllerSpec {
  return {
    name: 'cluster-taints',
    // Reads only Clusters (and their Leases, taint policies): its verdicts wait for nothing else.
    firstPassAtOnce: true,
    sources: [keysFrom(deps.clusters, (c) => [c.metadata.name ?? ''])],
    async reconcile(name, { log, now, signal }) {
      const cluster = deps.clusters.get(name);
      if (cluster === undefined || cluster.metadata.deletionTimestamp !== undefined) return converged();
      const ready = findCondition(cluster.status, clusterConditionTypes.ready);
      const nowMs = now();
      const plan = planSchedulingTaints(cluster.spec.taints, ready, nowMs);
      if (!plan.changed) return converged();
      try {
        await deps.clusterClient.mergePatch(
          name,
          { metadata: { resourceVersion: cluster.metadata.resourceVersion }, spec: { taints: plan.taints } },
          { signal },
        );
      } catch (err: unknown) {
        warnUnlessConflict(err, () => {
          deps.events.record(cluster, 'Warning', eventReasons.taintClusterFailed, String(err));
        });
        throw err;
      }
      const since = ready === undefined ? undefined : deps.observations.conditionSinceMs(name, ready);
      for (const t of plan.added)
        if (since !== undefined) deps.metrics.taintAdded(t.effect, (nowMs - since) / 1000);
      const message = `Taint cluster succeed: ${describeTaints(plan.taints)}.`;
      deps.events.record(cluster, 'Normal', eventReasons.taintClusterSucceed, message);
      log.info(
        { cluster: name, added: plan.added.map((t) => t.key), removed: plan.removed.map((t) => t.key) },
        'scheduling taints updated',
      );
      return converged();
    },
  };
}
