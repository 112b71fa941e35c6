/**
 * Sets Ready=Unknown when a Pull cluster's agent stops renewing its Lease.
 * Watches Clusters and Leases in `karmada-cluster` (lease name = cluster name); writes Cluster
 * status (the Ready condition) and the clock-offset annotation only. Silence is what this process
 * observed, on its own clock (see observations.ts); it is counted from this process's first sight
 * of a cluster at the earliest, and anew after its Lease watch was down. Requeued at the exact
 * moment the grace period of a fresh cluster runs out, and every `--cluster-monitor-period` as a
 * safety net. Before it writes Unknown it reads the Lease from the API server: the cache may lag
 * behind a renewal (a busy API server, a watch catching up after a reconnection), and an Unknown
 * written over a heartbeat that has just resumed is a false alarm the agent must undo.
 */
import {
  annotations,
  clusterConditionTypes,
  findCondition,
  namespaces,
  setCondition,
  type Cluster,
  type ClusterStatus,
} from '@kf/api';
import { type EventRecorder, type Lease, type ResourceClient, type WatchCache } from '@kf/kube';
import { converged, keysFrom, recheckIn, type ControllerSpec, type Logger } from '@kf/runtime';
import { warnUnlessConflict } from '../../write-warnings.ts';
import { clockOffsetEventReasons, planClockOffset } from './clock-offset.ts';
import { judgeHeartbeat, type HeartbeatGrace } from './heartbeat.ts';
import { memberSignals, type MemberObservations } from './observations.ts';

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
  /** What this process has seen of each member; shared with the other cluster controllers. */
  readonly observations: MemberObservations;
}

export function clusterHealthController(deps: ClusterHealthDeps): ControllerSpec {
  const { observations } = deps;
  // Silence seen while the Lease watch was down was not seen at all: the agents most likely lost
  // the same API server. Every cluster gets a fresh grace period from the reconnection.
  deps.leases.onReconnected(() => {
    observations.forgetAll();
  });
  // Renewals and status posts are taken in as they arrive, not when a reconcile gets to them.
  deps.leases.onEvent((type, lease) => {
    const name = lease.metadata?.name ?? '';
    const cluster = deps.clusters.get(name);
    if (type !== 'DELETED' && cluster !== undefined) observations.look(name, memberSignals(cluster, lease));
  });
  deps.clusters.onEvent((type, cluster) => {
    const name = cluster.metadata.name ?? '';
    const lease = deps.leases.getIn(namespaces.cluster, name);
    if (type !== 'DELETED') observations.look(name, memberSignals(cluster, lease));
  });
  return {
    name: 'cluster-health',
    // Reads only Clusters (and their Leases, taint policies): its verdicts wait for nothing else.
    firstPassAtOnce: true,
    sources: [
      keysFrom(deps.clusters, (c) => [c.metadata.name ?? '']),
      keysFrom(deps.leases, (l) => [l.metadata?.name ?? '']),
    ],
    resyncPeriodMs: deps.monitorPeriodMs,
    async reconcile(name, { log, now, signal }) {
      const cluster = deps.clusters.get(name);
      if (cluster === undefined || cluster.metadata.deletionTimestamp !== undefined) {
        observations.forget(name);
        return converged();
      }
      // Blind: the Lease watch is failing, so its renewals may be old news. Judge once it is back
      // (it then restarts every cluster's clock).
      if (!deps.leases.isLive()) return recheckIn(deps.monitorPeriodMs);
      const judge = (lease: Lease | undefined) =>
        judgeHeartbeat(
          {
            syncMode: cluster.spec.syncMode,
            ready: findCondition(cluster.status, clusterConditionTypes.ready),
            silentForMs: observations.look(name, memberSignals(cluster, lease)).silentForMs,
          },
          deps.grace,
        );
      let verdict = judge(deps.leases.getIn(namespaces.cluster, name));
      if (verdict.kind === 'expired' && verdict.patch !== undefined) {
        verdict = judge(await deps.leaseClient.find(`${namespaces.cluster}/${name}`, { signal }));
      }
      await recordClockOffset(deps, cluster, signal, log);
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
        { cluster: name, silentForMs: Math.round(verdict.silentForMs) },
        'cluster went silent; Ready set to Unknown',
      );
      return converged();
    },
  };
}

/** Records a member clock offset of 5 s or more on the Cluster (see clock-offset.ts). */
async function recordClockOffset(
  deps: ClusterHealthDeps,
  cluster: Cluster,
  signal: AbortSignal,
  log: Logger,
): Promise<void> {
  const name = cluster.metadata.name ?? '';
  const key = annotations.clockOffsetSeconds;
  const action = planClockOffset(deps.observations.clockOffsetMs(name), cluster.metadata.annotations?.[key]);
  if (action.kind === 'none') return;
  const value = action.kind === 'record' ? action.value : null;
  try {
    await deps.clusterClient.mergePatch(
      name,
      { metadata: { resourceVersion: cluster.metadata.resourceVersion, annotations: { [key]: value } } },
      { signal },
    );
  } catch (err: unknown) {
    // Shown only: a conflict or a failure is tried again at the next look.
    warnUnlessConflict(err, () => {
      log.warn({ cluster: name, err }, 'could not record the clock offset');
    });
    return;
  }
  if (action.kind === 'clear') {
    deps.events.record(cluster, 'Normal', clockOffsetEventReasons.resolved, action.message);
  } else if (action.warn) {
    deps.events.record(cluster, 'Warning', clockOffsetEventReasons.offset, action.message);
  }
  log.info({ cluster: name, clockOffsetSeconds: value }, 'cluster clock offset recorded');
}
