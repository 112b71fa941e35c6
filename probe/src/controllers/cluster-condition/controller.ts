/**
 * cluster-condition (leader only): aggregates the node verdicts of this member cluster into the
 * `ServiceDomainNameResolutionReady` condition of its Cluster in the control plane.
 *
 * Watches: the member's Nodes (every probe pod writes its verdict there) and the one Cluster in
 * the control plane (a name field selector), both mapping to the single key `<cluster-name>`.
 * Writes: a merge patch of the Cluster's status, guarded by the resourceVersion read, and only
 * when status, reason or message change. Requeues itself for the moment the next fresh node
 * verdict turns stale; conflicts and API errors are retried by the runner.
 */
import { clusterConditionTypes, type Cluster } from '@kf/api';
import { isConflict } from '@kf/kube';
import {
  converged,
  keysFrom,
  recheckIn,
  type ControllerSpec,
  type Logger,
  type ObjectSource,
  type Outcome,
} from '@kf/runtime';
import {
  decideClusterVerdict,
  type AggregationMode,
  type NodeCounts,
  type NodeView,
} from '../../health/aggregate.ts';
import { planClusterWrite, type ClusterStatusPatch } from '../../health/cluster-condition.ts';
import { judgeNodeVerdict, noteHeartbeat, type HeartbeatSighting } from '../../health/staleness.ts';
import type { ProbeMetrics } from '../../metrics.ts';
import { isNodeReady, type NodeObject } from '../../node/node-object.ts';

export interface ClusterConditionDeps {
  readonly clusterName: string;
  readonly nodes: ObjectSource<NodeObject>;
  /** The watched Cluster (at most one object). */
  readonly clusters: ObjectSource<Cluster> & { get(key: string): Cluster | undefined };
  /** Merge-patches the Cluster's status subresource; returns the Cluster as written. */
  readonly patchStatus: (name: string, patch: ClusterStatusPatch, signal: AbortSignal) => Promise<Cluster>;
  readonly mode: AggregationMode;
  readonly staleThresholdMs: number;
  readonly metrics: ProbeMetrics;
}

type Skip = 'NoReadyNodes' | 'UnknownNodes' | 'NoKnownNodes' | 'ClusterNotFound' | 'ClusterDeleting';

const SKIP_MESSAGES: Record<Skip, string> = {
  NoReadyNodes: 'no Ready node: not reporting',
  UnknownNodes: 'some Ready nodes have no fresh verdict: not reporting',
  NoKnownNodes: 'no Ready node has a fresh verdict: not reporting',
  ClusterNotFound: 'the Cluster does not exist in the control plane: not reporting',
  ClusterDeleting: 'the Cluster is being deleted: not reporting',
};

/** The leader's controller; state (heartbeat sightings, its last write) lives for one term. */
export function clusterConditionController(deps: ClusterConditionDeps): ControllerSpec {
  const type = clusterConditionTypes.serviceDomainNameResolutionReady;
  const sightings = new Map<string, HeartbeatSighting>();
  /** The Cluster as our last patch returned it, until the watch catches up with that write. */
  let written: { readonly basedOnRv: string | undefined; readonly cluster: Cluster } | undefined;
  let lastSkip: Skip | undefined;

  const noteSkip = (log: Logger, skip: Skip | undefined, fields: object): void => {
    if (skip === lastSkip) return;
    lastSkip = skip;
    if (skip === undefined) return;
    const level = skip === 'ClusterNotFound' ? 'warn' : 'info';
    log[level]({ reason: skip, ...fields }, SKIP_MESSAGES[skip]);
  };

  /** One node as aggregation counts it; notes its heartbeat. */
  const viewNode = (node: NodeObject, nowMs: number): { view: NodeView; staleInMs?: number } => {
    const name = node.metadata?.name ?? '';
    const condition = node.status?.conditions?.find((x) => x.type === type);
    const sighting = noteHeartbeat(sightings.get(name), condition?.lastHeartbeatTime, nowMs);
    if (sighting === undefined) sightings.delete(name);
    else sightings.set(name, sighting);
    const judged = judgeNodeVerdict(condition?.status, sighting, nowMs, deps.staleThresholdMs);
    const view = { name, ready: isNodeReady(node), verdict: judged.verdict };
    return judged.staleInMs === undefined ? { view } : { view, staleInMs: judged.staleInMs };
  };

  /** Node views for aggregation, and when the first fresh verdict turns stale. */
  const viewNodes = (nowMs: number): { views: NodeView[]; staleInMs: number | undefined } => {
    const views: NodeView[] = [];
    let staleInMs: number | undefined;
    for (const node of deps.nodes.list()) {
      const v = viewNode(node, nowMs);
      views.push(v.view);
      if (v.staleInMs !== undefined) staleInMs = Math.min(staleInMs ?? Infinity, v.staleInMs);
    }
    const present = new Set(views.map((v) => v.name));
    for (const name of sightings.keys()) if (!present.has(name)) sightings.delete(name);
    return { views, staleInMs };
  };

  const currentCluster = (): Cluster | undefined => {
    const cached = deps.clusters.get(deps.clusterName);
    if (written !== undefined && cached?.metadata.resourceVersion === written.basedOnRv)
      return written.cluster;
    written = undefined;
    return cached;
  };

  const patch = async (
    body: ClusterStatusPatch,
    basedOn: Cluster | undefined,
    signal: AbortSignal,
  ): Promise<void> => {
    try {
      const result = await deps.patchStatus(deps.clusterName, body, signal);
      written = { basedOnRv: basedOn?.metadata.resourceVersion, cluster: result };
    } catch (err: unknown) {
      deps.metrics.clusterWrites.inc({ result: isConflict(err) ? 'conflict' : 'error' });
      throw err;
    }
    deps.metrics.clusterWrites.inc({ result: 'success' });
  };

  return {
    name: 'cluster-condition',
    sources: [
      keysFrom(deps.nodes, () => [deps.clusterName]),
      keysFrom(deps.clusters, () => [deps.clusterName]),
    ],
    async reconcile(_key, { log, now, signal }): Promise<Outcome> {
      const nowMs = now();
      const { views, staleInMs } = viewNodes(nowMs);
      const verdict = decideClusterVerdict(views, deps.mode);
      const c = verdict.counts;
      recordCounts(deps.metrics, c);
      const outcome = staleInMs === undefined ? converged() : recheckIn(staleInMs);
      if (verdict.kind === 'skip') {
        noteSkip(log, verdict.reason, { counts: c });
        return outcome;
      }
      const cluster = currentCluster();
      const write = planClusterWrite(cluster, verdict, nowMs);
      if (write.kind !== 'patch') {
        noteSkip(log, write.kind === 'skip' ? write.reason : undefined, { cluster: deps.clusterName });
        return outcome;
      }
      await patch(write.patch, cluster, signal);
      noteSkip(log, undefined, {});
      log.info(
        { cluster: deps.clusterName, status: verdict.status, message: verdict.message, counts: c },
        'cluster condition updated',
      );
      return outcome;
    },
  };
}

function recordCounts(metrics: ProbeMetrics, c: NodeCounts): void {
  metrics.clusterNodes.set({ verdict: 'True' }, c.succeeded);
  metrics.clusterNodes.set({ verdict: 'False' }, c.failed);
  metrics.clusterNodes.set({ verdict: 'Unknown' }, c.unknown);
}
