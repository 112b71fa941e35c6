/**
 * Sets Ready=Unknown when a Pull cluster's agent stops renewing its Lease.
 * Watches Clusters and Leases in `karmada-cluster` (lease name = cluster name); writes Cluster
 * status (the Ready condition) only. Requeued at the exact moment the grace period of a fresh
 * cluster runs out, and every `--cluster-monitor-period` as a safety net. Silence is counted from
 * this process's first sight of a cluster at the earliest, and anew after its Lease watch was down
 * (see first-seen.ts). Before it writes Unknown it reads the Lease from the API server: the cache
 * may lag behind a renewal (a busy API server, a watch catching up after a reconnection), and an
 * Unknown written over a heartbeat that has just resumed is a false alarm the agent must undo.
 */
import {
  clusterConditionTypes,
  findCondition,
  namespaces,
  parseTime,
  setCondition,
  type Cluster,
  type ClusterStatus,
} from '@kf/api';
import {
  leaseRenewedAtMs,
  type EventRecorder,
  type Lease,
  type ResourceClient,
  type WatchCache,
} from '@kf/kube';
import { converged, keysFrom, recheckIn, type ControllerSpec } from '@kf/runtime';
import { FirstSeen } from './first-seen.ts';
import { judgeHeartbeat, type HeartbeatGrace } from './heartbeat.ts';

export interface ClusterHealthDeps {
  readonly clusters: WatchCache<Cluster>;
  /** Leases of namespace `karmada-cluster`. */
  readonly leases: WatchCache<Lease>;
  readonly clusterClient: ResourceClient<Cluster>;
  /** Reads a Lease from the API server to confirm a silence the cache shows. */
  readonly leaseClient: ResourceClient<Lease>;
  readonly events: EventRecorder;
  readonly grace: HeartbeatGrace;
  /** `--cluster-monitor-period`: the resync bounding how late a missed deadline is noticed. */
  readonly monitorPeriodMs: number;
  /** When this process first saw each cluster; shared with the taint-policy controller. */
  readonly firstSeen?: FirstSeen;
}

export function clusterHealthController(deps: ClusterHealthDeps): ControllerSpec {
  // In memory on purpose: after a restart every cluster starts a fresh grace period.
  const firstSeen = deps.firstSeen ?? new FirstSeen();
  // Silence seen while the Lease watch was down was not seen at all: the agents most likely lost
  // the same API server. Every cluster gets a fresh grace period from the reconnection.
  deps.leases.onReconnected(() => {
    firstSeen.forgetAll();
  });
  return {
    name: 'cluster-health',
    sources: [
      keysFrom(deps.clusters, (c) => [c.metadata.name ?? '']),
      keysFrom(deps.leases, (l) => [l.metadata?.name ?? '']),
    ],
    resyncPeriodMs: deps.monitorPeriodMs,
    async reconcile(name, { log, now, signal }) {
      const cluster = deps.clusters.get(name);
      if (cluster === undefined || cluster.metadata.deletionTimestamp !== undefined) {
        firstSeen.forget(name);
        return converged();
      }
      // Blind: the Lease watch is failing, so its renewals may be old news. Judge once it is back
      // (it then restarts every cluster's clock).
      if (!deps.leases.isLive()) return recheckIn(deps.monitorPeriodMs);
      const judge = (lease: Lease | undefined) =>
        judgeHeartbeat(
          {
            syncMode: cluster.spec.syncMode,
            createdAtMs: parseTime(cluster.metadata.creationTimestamp),
            ready: findCondition(cluster.status, clusterConditionTypes.ready),
            renewedAtMs: leaseRenewedAtMs(lease),
            firstSeenAtMs: firstSeen.at(name, now()),
            nowMs: now(),
          },
          deps.grace,
        );
      let verdict = judge(deps.leases.getIn(namespaces.cluster, name));
      if (verdict.kind === 'expired' && verdict.patch !== undefined) {
        verdict = judge(await deps.leaseClient.find(`${namespaces.cluster}/${name}`, { signal }));
      }
      if (verdict.kind === 'fresh') return recheckIn(verdict.expiresInMs);
      if (verdict.kind === 'unmonitored' || verdict.patch === undefined) return converged();
      const status: ClusterStatus = {
        ...cluster.status,
        conditions: setCondition(cluster.status?.conditions, verdict.patch, now()),
      };
      // PUT guarded by the cached resourceVersion: a status the agent posted meanwhile wins.
      await deps.clusterClient.replaceStatus({ ...structuredClone(cluster), status }, { signal });
      deps.events.record(cluster, 'Warning', verdict.patch.reason, verdict.patch.message);
      log.info(
        { cluster: name, silentForMs: verdict.silentForMs },
        'cluster went silent; Ready set to Unknown',
      );
      return converged();
    },
  };
}
