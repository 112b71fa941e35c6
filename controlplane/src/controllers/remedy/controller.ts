/**
 * Publishes which remedy actions apply to each Cluster (`status.remedyActions`) from the Remedies
 * naming it and its conditions; an empty result removes the field, which is how actions clear.
 * Watches Clusters and Remedies (a Remedy change queues the clusters it names, or every cluster
 * when it names none); writes Cluster status `remedyActions` only. Nothing time-based.
 */
import { type Cluster, type Remedy } from '@kf/api';
import type { EventRecorder, ResourceClient, WatchCache } from '@kf/kube';
import { converged, keysFrom, type ControllerSpec } from '@kf/runtime';
import { decideRemedyActions } from './remedy-actions.ts';

/** Event reason when a cluster's remedy actions change (not an upstream reason). */
export const REMEDY_ACTIONS_CHANGED = 'RemedyActionsChanged';

export interface RemedyDeps {
  readonly clusters: WatchCache<Cluster>;
  readonly remedies: WatchCache<Remedy>;
  readonly clusterClient: ResourceClient<Cluster>;
  readonly events: EventRecorder;
}

export function remedyController(deps: RemedyDeps): ControllerSpec {
  const clustersOf = (r: Remedy): string[] =>
    r.spec.clusterAffinity === undefined
      ? deps.clusters.list().map((c) => c.metadata.name ?? '')
      : [...(r.spec.clusterAffinity.clusterNames ?? [])];
  return {
    name: 'remedy',
    sources: [keysFrom(deps.clusters, (c) => [c.metadata.name ?? '']), keysFrom(deps.remedies, clustersOf)],
    async reconcile(name, { log, signal }) {
      const cluster = deps.clusters.get(name);
      if (cluster === undefined || cluster.metadata.deletionTimestamp !== undefined) return converged();
      const actions = decideRemedyActions(cluster, deps.remedies.list());
      const current = cluster.status?.remedyActions ?? [];
      if (actions.length === current.length && actions.every((a, i) => a === current[i])) return converged();
      await deps.clusterClient.patchStatus(
        name,
        { status: { remedyActions: actions.length === 0 ? null : actions } },
        { signal },
      );
      const message =
        actions.length === 0
          ? 'No remedy action applies to the cluster any more.'
          : `Remedy actions now applied to the cluster: ${actions.join(', ')}.`;
      deps.events.record(cluster, 'Normal', REMEDY_ACTIONS_CHANGED, message);
      log.info({ cluster: name, actions }, 'remedy actions updated');
      return converged();
    },
  };
}
