/**
 * ResourceBindings and ClusterResourceBindings side by side. Every workload controller keys its
 * work by binding: `namespace/name` is a ResourceBinding, a bare `name` a ClusterResourceBinding.
 */
import { annotations, labels, type ResourceBinding, type Work } from '@kf/api';
import { joinKey, splitKey, type ResourceClient, type WatchCache } from '@kf/kube';
import type { ObjectEventHandler, ObjectSource } from '@kf/runtime';

export interface BindingStore {
  readonly resourceBindings: WatchCache<ResourceBinding>;
  readonly clusterResourceBindings: WatchCache<ResourceBinding>;
  readonly resourceBindingClient: ResourceClient<ResourceBinding>;
  readonly clusterResourceBindingClient: ResourceClient<ResourceBinding>;
}

/** Whether the key names a ClusterResourceBinding. */
export function isClusterBindingKey(key: string): boolean {
  return splitKey(key).namespace === undefined;
}

export function getBinding(store: BindingStore, key: string): ResourceBinding | undefined {
  return isClusterBindingKey(key) ? store.clusterResourceBindings.get(key) : store.resourceBindings.get(key);
}

export function bindingClient(store: BindingStore, key: string): ResourceClient<ResourceBinding> {
  return isClusterBindingKey(key) ? store.clusterResourceBindingClient : store.resourceBindingClient;
}

/** Both binding caches as one source of bindings (keys keep them apart). */
export function allBindings(store: BindingStore): ObjectSource<ResourceBinding> {
  const caches = [store.resourceBindings, store.clusterResourceBindings];
  return {
    list: () => caches.flatMap((c) => c.list()),
    onEvent: (handler: ObjectEventHandler<ResourceBinding>) => {
      const offs = caches.map((c) => c.onEvent(handler));
      return () => {
        for (const off of offs) off();
      };
    },
    synced: async () => {
      await Promise.all(caches.map((c) => c.synced()));
    },
  };
}

/** The permanent-id label of a binding (and of its Works): RB and CRB use different keys. */
export function bindingIdLabel(key: string): string {
  return isClusterBindingKey(key)
    ? labels.clusterResourceBindingPermanentId
    : labels.resourceBindingPermanentId;
}

/** The key of the binding a Work belongs to, from its annotations; undefined for other Works. */
export function bindingKeyOfWork(work: Work): string | undefined {
  const a = work.metadata.annotations ?? {};
  const crb = a[annotations.clusterResourceBindingName];
  if (crb !== undefined) return crb;
  const name = a[annotations.resourceBindingName];
  const ns = a[annotations.resourceBindingNamespace];
  return name === undefined || ns === undefined ? undefined : joinKey(ns, name);
}

/** Works of the binding, found by its permanent id label. */
export function worksOfBinding(works: readonly Work[], binding: ResourceBinding, key: string): Work[] {
  const label = bindingIdLabel(key);
  const id = binding.metadata.labels?.[label];
  if (id === undefined) return [];
  return works.filter((w) => w.metadata.labels?.[label] === id);
}
