/**
 * Gives each Cluster its execution namespace `karmada-es-<cluster>` and the
 * `karmada.io/cluster-controller` finalizer; on deletion removes the namespace (first freeing the
 * Works of an unreachable Pull cluster from their execution finalizer, since no agent would ever
 * clear it), then the finalizer once the namespace is gone and no binding lists the cluster.
 * Watches Clusters, their execution namespaces (read from the shared cache: a fleet's restart asks
 * the API server nothing, and a namespace deleted by hand is made again) and bindings (to notice
 * the last one leaving a deleted cluster); writes Namespaces, Works' finalizers and the Cluster's
 * finalizers. While a deletion waits, requeued every 10s (upstream's CleanupCheckInterval).
 */
import {
  clusterConditionTypes,
  clusterNameFromExecutionNamespace,
  eventReasons,
  executionNamespaceFor,
  finalizers,
  isConditionTrue,
  labels,
  syncModes,
  type Cluster,
  type Work,
} from '@kf/api';
import {
  isAlreadyExists,
  isNotFound,
  type EventRecorder,
  type KubeObject,
  type ResourceClient,
  type ResourceDescriptor,
  type WatchCache,
} from '@kf/kube';
import { converged, keysFrom, recheckIn, type ControllerSpec, type Logger } from '@kf/runtime';
import { bindingKeysOnCluster, type BindingStore } from '../../bindings.ts';
import { warnUnlessConflict } from '../../write-warnings.ts';

/** Upstream's CleanupCheckInterval: how often a waiting deletion looks again. */
export const CLEANUP_CHECK_INTERVAL_MS = 10_000;

/**
 * Clusters set up at once, as upstream's `--concurrent-cluster-syncs` default. Each set-up is a few
 * round trips (look for the namespace, create it, add the finalizer); one at a time, a fleet of
 * 1,000 joining together waited minutes for its execution namespaces, and every Work written for a
 * cluster still without one failed and was retried.
 */
export const CLUSTER_WORKERS = 5;

export interface Namespace extends KubeObject {
  readonly metadata?: KubeObject['metadata'] & {
    readonly labels?: Readonly<Record<string, string>>;
    readonly deletionTimestamp?: string;
  };
}

export const NAMESPACE_RESOURCE: ResourceDescriptor = {
  group: '',
  version: 'v1',
  plural: 'namespaces',
  namespaced: false,
  kind: 'Namespace',
};

export interface ClusterDeps {
  readonly clusters: WatchCache<Cluster>;
  readonly bindings: BindingStore;
  /** Every Namespace (the execution ones are looked up by name). */
  readonly namespaces: WatchCache<Namespace>;
  readonly clusterClient: ResourceClient<Cluster>;
  readonly namespaceClient: ResourceClient<Namespace>;
  readonly workClient: ResourceClient<Work>;
  readonly events: EventRecorder;
}

export function clusterController(deps: ClusterDeps): ControllerSpec {
  const clusterOf = (clusters: readonly { readonly name: string }[] | undefined): string[] =>
    (clusters ?? [])
      .map((c) => c.name)
      .filter((n) => deps.clusters.get(n)?.metadata.deletionTimestamp !== undefined);
  return {
    name: 'cluster',
    workers: CLUSTER_WORKERS,
    sources: [
      keysFrom(deps.clusters, (c) => [c.metadata.name ?? '']),
      keysFrom(deps.namespaces, (ns) => {
        const cluster = clusterNameFromExecutionNamespace(ns.metadata?.name ?? '');
        return cluster === undefined ? [] : [cluster];
      }),
      keysFrom(deps.bindings.resourceBindings, (b) => clusterOf(b.spec.clusters)),
      keysFrom(deps.bindings.clusterResourceBindings, (b) => clusterOf(b.spec.clusters)),
    ],
    async reconcile(name, { log, signal }) {
      const cluster = deps.clusters.get(name);
      if (cluster === undefined) return converged();
      if (cluster.metadata.deletionTimestamp !== undefined) return removeCluster(deps, cluster, log, signal);
      await ensureExecutionSpace(deps, cluster, log, signal);
      if (cluster.metadata.finalizers?.includes(finalizers.clusterController) !== true) {
        await deps.clusterClient.mergePatch(
          name,
          {
            metadata: {
              resourceVersion: cluster.metadata.resourceVersion,
              finalizers: [...(cluster.metadata.finalizers ?? []), finalizers.clusterController],
            },
          },
          { signal },
        );
      }
      return converged();
    },
  };
}

async function ensureExecutionSpace(
  deps: ClusterDeps,
  cluster: Cluster,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  const name = cluster.metadata.name ?? '';
  const namespace = executionNamespaceFor(name);
  // A namespace the cache has not seen yet, but which exists, is answered AlreadyExists.
  if (deps.namespaces.get(namespace) !== undefined) return;
  try {
    await deps.namespaceClient.create(
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespace, labels: { [labels.system]: 'true' } },
      },
      { signal },
    );
  } catch (err: unknown) {
    if (isAlreadyExists(err)) return;
    warnUnlessConflict(err, () => {
      deps.events.record(cluster, 'Warning', eventReasons.createExecutionSpaceFailed, String(err));
    });
    throw err;
  }
  const message = `Created execution space(${namespace}) for cluster(${name}).`;
  deps.events.record(cluster, 'Normal', eventReasons.createExecutionSpaceSucceed, message);
  log.info({ cluster: name, namespace }, 'execution namespace created');
}

async function removeCluster(
  deps: ClusterDeps,
  cluster: Cluster,
  log: Logger,
  signal: AbortSignal,
): Promise<ReturnType<typeof converged>> {
  const name = cluster.metadata.name ?? '';
  if (cluster.metadata.finalizers?.includes(finalizers.clusterController) !== true) return converged();
  const namespace = executionNamespaceFor(name);
  const existing = deps.namespaces.get(namespace);
  if (existing !== undefined) {
    if (existing.metadata?.deletionTimestamp === undefined) await removeExecutionSpace(deps, cluster, signal);
    log.info({ cluster: name, namespace }, 'waiting for the execution namespace to go');
    return recheckIn(CLEANUP_CHECK_INTERVAL_MS);
  }
  const bound = bindingKeysOnCluster(deps.bindings, name);
  if (bound.length > 0) {
    log.info({ cluster: name, bindings: bound.length }, 'waiting for bindings to leave the cluster');
    return recheckIn(CLEANUP_CHECK_INTERVAL_MS);
  }
  await deps.clusterClient.mergePatch(
    name,
    {
      metadata: {
        resourceVersion: cluster.metadata.resourceVersion,
        finalizers: (cluster.metadata.finalizers ?? []).filter((f) => f !== finalizers.clusterController),
      },
    },
    { signal },
  );
  log.info({ cluster: name }, 'cluster cleaned up; finalizer removed');
  return converged();
}

async function removeExecutionSpace(deps: ClusterDeps, cluster: Cluster, signal: AbortSignal): Promise<void> {
  const name = cluster.metadata.name ?? '';
  const namespace = executionNamespaceFor(name);
  try {
    const unreachable =
      cluster.spec.syncMode === syncModes.pull &&
      !isConditionTrue(cluster.status, clusterConditionTypes.ready);
    if (unreachable) await releaseWorks(deps, namespace, signal);
    await deps.namespaceClient.delete(namespace, { signal });
  } catch (err: unknown) {
    if (isNotFound(err)) return;
    warnUnlessConflict(err, () => {
      deps.events.record(cluster, 'Warning', eventReasons.removeExecutionSpaceFailed, String(err));
    });
    throw err;
  }
  deps.events.record(
    cluster,
    'Normal',
    eventReasons.removeExecutionSpaceSucceed,
    `Removed execution space for cluster(${name}).`,
  );
}

/** Strips the execution finalizer from every Work in the namespace (nobody else ever will). */
async function releaseWorks(deps: ClusterDeps, namespace: string, signal: AbortSignal): Promise<void> {
  const { items } = await deps.workClient.list({ namespace, signal });
  for (const work of items) {
    const held = work.metadata.finalizers ?? [];
    if (!held.includes(finalizers.executionController)) continue;
    await deps.workClient.mergePatch(
      `${namespace}/${work.metadata.name ?? ''}`,
      {
        metadata: {
          resourceVersion: work.metadata.resourceVersion,
          finalizers: held.filter((f) => f !== finalizers.executionController),
        },
      },
      { signal },
    );
  }
}
