/**
 * The member's Nodes and Pods, cached by list+watch for the node and resource summaries. The
 * caches keep only each object's identity and the small view the summaries need (the full
 * objects, with their managed fields and statuses, are dropped page by page as they arrive), so
 * a member with thousands of pods costs the agent a few hundred bytes per pod. The caches start
 * on first use (only when resource modeling is on) and run until closed.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { WatchCache, type KubeObject, type ResourceDescriptor, type WatchCacheMetrics } from '@kf/kube';
import type { Logger } from '@kf/runtime';
import { nodeViewOf, podViewOf } from '../controllers/cluster-status/views.ts';
import type { NodeView, PodView } from '../controllers/cluster-status/resource-summary.ts';
import { withDeadline } from '../deadline.ts';

/** Thrown when the caches did not sync within `--cluster-cache-sync-timeout`. */
export class CacheSyncTimeoutError extends Error {
  override readonly name = 'CacheSyncTimeoutError';
}

export interface InventoryViews {
  readonly nodes: readonly NodeView[];
  readonly pods: readonly PodView[];
}

/** What a cache keeps of one object: the metadata its keys and change detection need, and a view. */
interface Cached<V> extends KubeObject {
  readonly view: V;
}

/**
 * Objects per LIST page. A page is parsed whole before it is reduced to views, so its size sets
 * the agent's memory peak while it lists: 100 pods are a few hundred KB of JSON (500 would be
 * a few MB, for a peak about 7 MiB higher), and 5,000 pods still list in about a second.
 */
const PAGE_SIZE = 100;

const NODES: ResourceDescriptor = {
  group: '',
  version: 'v1',
  plural: 'nodes',
  namespaced: false,
  kind: 'Node',
};
const PODS: ResourceDescriptor = { group: '', version: 'v1', plural: 'pods', namespaced: true, kind: 'Pod' };

/** name, namespace and resourceVersion of an object, the fields it is cached by. */
function identityOf(obj: KubeObject): KubeObject {
  const m = obj.metadata;
  return {
    metadata: {
      ...(m?.name === undefined ? {} : { name: m.name }),
      ...(m?.namespace === undefined ? {} : { namespace: m.namespace }),
      ...(m?.resourceVersion === undefined ? {} : { resourceVersion: m.resourceVersion }),
    },
  };
}

export class MemberInventory {
  private readonly nodes: WatchCache<Cached<NodeView>>;
  private readonly pods: WatchCache<Cached<PodView>>;
  private started = false;

  constructor(kc: KubeConfig, log: Logger, metrics?: WatchCacheMetrics) {
    const withMetrics = metrics === undefined ? {} : { metrics };
    this.nodes = new WatchCache({
      kubeConfig: kc,
      resource: NODES,
      pageSize: PAGE_SIZE,
      transform: (o) => ({ ...identityOf(o), view: nodeViewOf(o) }),
      log,
      ...withMetrics,
    });
    this.pods = new WatchCache({
      kubeConfig: kc,
      resource: PODS,
      pageSize: PAGE_SIZE,
      transform: (o) => ({ ...identityOf(o), view: podViewOf(o) }),
      log,
      ...withMetrics,
    });
  }

  /** Node and pod views once both caches have synced (starting them if needed). */
  async views(timeoutMs: number, signal: AbortSignal): Promise<InventoryViews> {
    if (!this.started) {
      this.started = true;
      this.nodes.start();
      this.pods.start();
    }
    await withDeadline(Promise.all([this.nodes.synced(), this.pods.synced()]), timeoutMs, signal, () => {
      return new CacheSyncTimeoutError(`member node and pod caches did not sync within ${timeoutMs} ms`);
    });
    return {
      nodes: this.nodes
        .list()
        .map((n) => n.view)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      pods: this.pods.list().map((p) => p.view),
    };
  }

  async close(): Promise<void> {
    if (this.started) await Promise.all([this.nodes.stop(), this.pods.stop()]);
  }
}
