/**
 * ResourceBindings and ClusterResourceBindings handled as one population: a controller that
 * treats both keys them as usual — `namespace/name` for a ResourceBinding, `name` for a
 * ClusterResourceBinding — which cannot collide, since only the first has a slash.
 */
import {
  clusterResourceBindingKind,
  resourceBindingKind,
  type ClusterResourceBinding,
  type ResourceBinding,
} from '@kf/api';
import { keyOf, type ResourceClient, type WatchCache } from '@kf/kube';

export type Binding = ResourceBinding | ClusterResourceBinding;

/** Caches and clients of both binding kinds. */
export interface BindingStore {
  readonly resourceBindings: WatchCache<ResourceBinding>;
  readonly clusterResourceBindings: WatchCache<ClusterResourceBinding>;
  readonly resourceBindingClient: ResourceClient<ResourceBinding>;
  readonly clusterResourceBindingClient: ResourceClient<ClusterResourceBinding>;
}

export function isResourceBindingKey(key: string): boolean {
  return key.includes('/');
}

/** The cached binding for a key of either kind. */
export function getBinding(store: BindingStore, key: string): Binding | undefined {
  return isResourceBindingKey(key) ? store.resourceBindings.get(key) : store.clusterResourceBindings.get(key);
}

/** The client that writes the binding a key names. */
export function bindingClient(store: BindingStore, key: string): ResourceClient<Binding> {
  return isResourceBindingKey(key) ? store.resourceBindingClient : store.clusterResourceBindingClient;
}

/** Keys of every cached binding (both kinds) whose `spec.clusters` lists `cluster`. */
export function bindingKeysOnCluster(store: BindingStore, cluster: string): string[] {
  const on = (b: Binding): boolean => b.spec.clusters?.some((c) => c.name === cluster) === true;
  return [
    ...store.resourceBindings.list().filter(on).map(keyOf),
    ...store.clusterResourceBindings.list().filter(on).map(keyOf),
  ];
}

/** A reference for Events: kind and apiVersion filled in from the key's kind. */
export function bindingReference(key: string, binding: Binding): Binding {
  const kind = isResourceBindingKey(key) ? resourceBindingKind : clusterResourceBindingKind;
  return { ...binding, apiVersion: kind.apiVersion, kind: kind.kind };
}
