/**
 * The member's Nodes and Pods, cached by list+watch for the node and resource summaries, as the
 * small views the summaries need. The caches start on first use (only when resource modeling is
 * on) and run until stopped.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@kf/runtime';
import { nodeViewOf, podViewOf, type RawNode, type RawPod } from '../controllers/cluster-status/views.ts';
import type { NodeView, PodView } from '../controllers/cluster-status/resource-summary.ts';
import { withDeadline } from '../deadline.ts';
import { ProjectedCache } from './projected-cache.ts';

/** Thrown when the caches did not sync within `--cluster-cache-sync-timeout`. */
export class CacheSyncTimeoutError extends Error {
  override readonly name = 'CacheSyncTimeoutError';
}

export interface InventoryViews {
  readonly nodes: readonly NodeView[];
  readonly pods: readonly PodView[];
}

export class MemberInventory {
  private readonly nodes: ProjectedCache<RawNode, NodeView>;
  private readonly pods: ProjectedCache<RawPod, PodView>;
  private started = false;

  constructor(kc: KubeConfig, log: Logger) {
    this.nodes = new ProjectedCache({
      kubeConfig: kc,
      resource: { group: '', version: 'v1', plural: 'nodes', namespaced: false, kind: 'Node' },
      project: nodeViewOf,
      log,
    });
    this.pods = new ProjectedCache({
      kubeConfig: kc,
      resource: { group: '', version: 'v1', plural: 'pods', namespaced: true, kind: 'Pod' },
      project: podViewOf,
      log,
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
      nodes: this.nodes.values().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      pods: this.pods.values(),
    };
  }

  async close(): Promise<void> {
    if (this.started) await Promise.all([this.nodes.stop(), this.pods.stop()]);
  }
}
