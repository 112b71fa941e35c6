/**
 * namespace: gives every member cluster the namespaces of the control plane (see plan.ts for which),
 * one Work per namespace and cluster, so that a workload propagated into a namespace finds it
 * there. Watches Namespaces (a change → that namespace), Clusters (a new cluster → every
 * namespace) and the Works it makes (one deleted or changed by hand → its namespace). Writes
 * Works only; a deleted namespace's Works go with it through their owner reference, and the agents
 * then remove the member namespaces (keeping those that hold objects not propagated by Karmada).
 */
import type { Cluster, Work } from '@kf/api';
import { keyOf, type ResourceClient, type WatchCache } from '@kf/kube';
import { converged, keysFrom, recheckIn, type ControllerSpec } from '@kf/runtime';
import { writeWork } from '../binding/controller.ts';
import { planWorkWrite } from '../binding/work-plan.ts';
import { namespaceOfWork, namespaceWork, shouldPropagate, type NamespaceObject } from './plan.ts';

/** How soon a Work still being deleted is looked at again, to be made anew. */
const DELETING_RECHECK_MS = 5_000;

export interface NamespaceSyncDeps {
  readonly namespaces: WatchCache<NamespaceObject & { metadata?: { name?: string } }>;
  readonly clusters: WatchCache<Cluster>;
  readonly works: WatchCache<Work>;
  readonly workClient: ResourceClient<Work>;
}

export function namespaceSyncController(deps: NamespaceSyncDeps): ControllerSpec {
  return {
    name: 'namespace',
    sources: [
      keysFrom(deps.namespaces, (ns) => [ns.metadata?.name ?? '']),
      // Of a Cluster it reads the name alone: its status (posted every few seconds by each
      // member) would otherwise queue every namespace. Every namespace, which the first source
      // names already for the fill and the resync.
      keysFrom(deps.clusters, () => deps.namespaces.keys(), {
        changed: (c, old) => c.metadata.deletionTimestamp !== old.metadata.deletionTimestamp,
        listsKeys: false,
      }),
      keysFrom(deps.works, (w) => {
        const ns = namespaceOfWork(w);
        return ns === undefined ? [] : [ns];
      }),
    ],
    async reconcile(key, { log, signal }) {
      const ns = deps.namespaces.get(key);
      if (ns === undefined || ns.metadata?.deletionTimestamp !== undefined || !shouldPropagate(ns)) {
        return converged();
      }
      let waiting = false;
      let written = 0;
      for (const cluster of deps.clusters.list()) {
        if (cluster.metadata.deletionTimestamp !== undefined) continue;
        const result = await syncWork(deps, namespaceWork(ns, cluster.metadata.name ?? ''), signal);
        if (result === 'waiting') waiting = true;
        if (result === 'written') written++;
      }
      if (written > 0) log.info({ namespace: key, written }, 'namespace Works synced');
      return waiting ? recheckIn(DELETING_RECHECK_MS) : converged();
    },
  };
}

/** Makes the Work what `wanted` says: written, already so, or waiting for its deletion to end. */
async function syncWork(
  deps: NamespaceSyncDeps,
  wanted: Work,
  signal: AbortSignal,
): Promise<'written' | 'same' | 'waiting'> {
  const plan = planWorkWrite(wanted, deps.works.get(keyOf(wanted)));
  if (plan === undefined) return 'same';
  if (plan.kind === 'WaitForDeletion') return 'waiting';
  await writeWork(deps.workClient, plan, signal);
  return 'written';
}
