/**
 * Applies ClusterTaintPolicies to Clusters: adds a policy's taints (typically NoExecute) when its
 * addOnConditions hold — after its hold time, if it has one — and removes them when its
 * removeOnConditions hold. Watches Clusters and ClusterTaintPolicies (a policy change queues every
 * cluster; a deleted policy removes nothing, as upstream); writes `Cluster.spec.taints` only,
 * guarded by resourceVersion. Requeued when a held-back taint's hold time runs out.
 */
import { clusterConditionTypes, eventReasons, findCondition, parseTime, type Cluster } from '@kf/api';
import type { EventRecorder, ResourceClient, WatchCache } from '@kf/kube';
import { converged, keysFrom, recheckIn, type ControllerSpec } from '@kf/runtime';
import type { ControlPlaneMetrics } from '../../metrics.ts';
import { describeTaints } from '../cluster-taints/taint-diff.ts';
import { planPolicyTaints, type HeldClusterTaintPolicy } from './policy-taints.ts';

export interface TaintPolicyDeps {
  readonly clusters: WatchCache<Cluster>;
  readonly policies: WatchCache<HeldClusterTaintPolicy>;
  readonly clusterClient: ResourceClient<Cluster>;
  readonly events: EventRecorder;
  readonly metrics: ControlPlaneMetrics;
}

export function taintPolicyController(deps: TaintPolicyDeps): ControllerSpec {
  const allClusters = (): string[] => deps.clusters.list().map((c) => c.metadata.name ?? '');
  return {
    name: 'taint-policy',
    sources: [
      keysFrom(deps.clusters, (c) => [c.metadata.name ?? '']),
      keysFrom(deps.policies, () => allClusters()),
    ],
    async reconcile(name, { log, now, signal }) {
      const cluster = deps.clusters.get(name);
      if (cluster === undefined || cluster.metadata.deletionTimestamp !== undefined) return converged();
      const nowMs = now();
      const plan = planPolicyTaints(cluster, deps.policies.list(), nowMs);
      if (plan.changed) {
        await write(deps, cluster, plan.taints, signal);
        const ready = findCondition(cluster.status, clusterConditionTypes.ready);
        const since = parseTime(ready?.lastTransitionTime);
        for (const t of plan.added)
          if (since !== undefined) deps.metrics.taintAdded(t.effect, (nowMs - since) / 1000);
        log.info(
          { cluster: name, added: plan.added.map((t) => t.key), removed: plan.removed.map((t) => t.key) },
          'policy taints updated',
        );
      }
      return plan.recheckInMs === undefined ? converged() : recheckIn(plan.recheckInMs);
    },
  };
}

async function write(
  deps: TaintPolicyDeps,
  cluster: Cluster,
  taints: Cluster['spec']['taints'],
  signal: AbortSignal,
): Promise<void> {
  const name = cluster.metadata.name ?? '';
  try {
    await deps.clusterClient.mergePatch(
      name,
      { metadata: { resourceVersion: cluster.metadata.resourceVersion }, spec: { taints } },
      { signal },
    );
  } catch (err: unknown) {
    deps.events.record(cluster, 'Warning', eventReasons.taintClusterFailed, String(err));
    throw err;
  }
  const message = `Update Cluster(${name}) with taints(${describeTaints(taints ?? [])}) succeed`;
  deps.events.record(cluster, 'Normal', eventReasons.taintClusterSucceed, message);
}
