/**
 * Applies ClusterTaintPolicies to Clusters: adds a policy's taints (typically NoExecute) when its
 * addOnConditions hold — after its hold time, if it has one — and removes them when its
 * removeOnConditions hold. Watches Clusters and ClusterTaintPolicies (a policy change queues every
 * cluster; a deleted policy removes nothing, as upstream); writes `Cluster.spec.taints` only,
 * guarded by resourceVersion. Requeued when a held-back taint's hold time runs out.
 *
 * A Ready=Unknown that the cluster's fresh Lease contradicts is stale (see stale-ready.ts): NoExecute
 * taints matching on Ready wait until the Lease is no longer fresh, with a Normal Event saying so.
 * While the Lease watch is failing nothing is decided: a fresh renewal cannot be told from none.
 */
import {
  clusterConditionTypes,
  eventReasons,
  findCondition,
  namespaces,
  type Cluster,
  type ClusterCondition,
} from '@kf/api';
import { type EventRecorder, type Lease, type ResourceClient, type WatchCache } from '@kf/kube';
import { converged, keysFrom, recheckIn, type ControllerSpec } from '@kf/runtime';
import type { ControlPlaneMetrics } from '../../metrics.ts';
import { describeTaints } from '../cluster-taints/taint-diff.ts';
import { warnUnlessConflict } from '../../write-warnings.ts';
import { memberSignals, type MemberObservations } from '../cluster-health/observations.ts';
import { planPolicyTaints, type HeldClusterTaintPolicy, type PolicyTaintPlan } from './policy-taints.ts';
import { judgeStaleReady } from './stale-ready.ts';

export interface TaintPolicyDeps {
  readonly clusters: WatchCache<Cluster>;
  readonly policies: WatchCache<HeldClusterTaintPolicy>;
  /** Heartbeat Leases of namespace `karmada-cluster`. */
  readonly leases: WatchCache<Lease>;
  /** `--cluster-monitor-grace-period`: how long a Lease renewal counts as a sign of life. */
  readonly monitorGracePeriodMs: number;
  /** `--cluster-monitor-period`: how often to look again while the Lease watch is failing. */
  readonly monitorPeriodMs: number;
  /** What this process has seen of each member; shared with the health monitor. */
  readonly observations: MemberObservations;
  readonly clusterClient: ResourceClient<Cluster>;
  readonly events: EventRecorder;
  readonly metrics: ControlPlaneMetrics;
}

export function taintPolicyController(deps: TaintPolicyDeps): ControllerSpec {
  const allClusters = (): string[] => deps.clusters.list().map((c) => c.metadata.name ?? '');
  return {
    name: 'taint-policy',
    // Reads only Clusters (and their Leases, taint policies): its verdicts wait for nothing else.
    firstPassAtOnce: true,
    sources: [
      keysFrom(deps.clusters, (c) => [c.metadata.name ?? '']),
      // Every cluster, which the first source names already for the fill and the resync.
      keysFrom(deps.policies, () => allClusters(), { listsKeys: false }),
    ],
    async reconcile(name, { log, now, signal }) {
      const cluster = deps.clusters.get(name);
      if (cluster === undefined || cluster.metadata.deletionTimestamp !== undefined) return converged();
      const nowMs = now();
      // While the Lease watch fails a fresh renewal cannot be told from none: add nothing then.
      if (!deps.leases.isLive()) return recheckIn(deps.monitorPeriodMs);
      const lease = deps.leases.getIn(namespaces.cluster, name);
      const { silentForMs } = deps.observations.look(name, memberSignals(cluster, lease));
      const stale = judgeStaleReady({
        syncMode: cluster.spec.syncMode,
        ready: findCondition(cluster.status, clusterConditionTypes.ready),
        silentForMs,
        graceMs: deps.monitorGracePeriodMs,
      });
      const conditionSinceMs = (c: ClusterCondition) => deps.observations.conditionSinceMs(name, c);
      const plan = planPolicyTaints(cluster, deps.policies.list(), nowMs, {
        conditionSinceMs,
        ...(stale.kind === 'stale-unknown' ? { staleReadyForMs: stale.freshForMs } : {}),
      });
      if (plan.deferred.length > 0 && stale.kind === 'stale-unknown') {
        recordDeferred(deps, cluster, plan, stale.silentForMs);
      }
      if (plan.changed) {
        await write(deps, cluster, plan.taints, signal);
        const ready = findCondition(cluster.status, clusterConditionTypes.ready);
        const since = ready === undefined ? undefined : conditionSinceMs(ready);
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
    warnUnlessConflict(err, () => {
      deps.events.record(cluster, 'Warning', eventReasons.taintClusterFailed, String(err));
    });
    throw err;
  }
  const message = `Update Cluster(${name}) with taints(${describeTaints(taints ?? [])}) succeed`;
  deps.events.record(cluster, 'Normal', eventReasons.taintClusterSucceed, message);
}

/** Says on the Cluster why a due NoExecute taint was not added. */
function recordDeferred(
  deps: TaintPolicyDeps,
  cluster: Cluster,
  plan: PolicyTaintPlan,
  silentForMs: number,
): void {
  const taints = plan.deferred.map(
    (d) => `${d.taint.key}:${d.taint.effect} (ClusterTaintPolicy ${d.policy})`,
  );
  const agoS = (Math.max(0, silentForMs) / 1000).toFixed(1);
  const message =
    `Ready is Unknown but the cluster showed life ${agoS}s ago (Lease renewal or first sight): ` +
    `the condition is stale, not a failure; not adding ${taints.join(', ')} while that holds`;
  deps.events.record(cluster, 'Normal', eventReasons.taintDeferredStaleReady, message);
}
