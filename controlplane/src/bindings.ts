/**
 * ResourceBindings and ClusterResourceBindings as one population, the one vocabulary every
 * controller of the control plane uses for them. A binding is keyed as usual: `namespace/name`
 * for a ResourceBinding, a bare `name` for a ClusterResourceBinding, which cannot collide since
 * only the first has a slash. Both kinds share one shape.
 */
import {
  annotations,
  clusterResourceBindingKind,
  isSameJson,
  labels,
  resourceBindingKind,
  type ClusterResourceBinding,
  type ResourceBinding,
  type Work,
} from '@kf/api';
import {
  OwnWrites,
  joinKey,
  keyOf,
  type CacheIndex,
  splitKey,
  type EventRecorder,
  type EventType,
  type InvolvedObject,
  type ResourceClient,
  type WatchCache,
} from '@kf/kube';
import type { ObjectEventHandler, ObjectSource } from '@kf/runtime';

export type Binding = ResourceBinding | ClusterResourceBinding;

/** Caches and clients of both binding kinds. */
export interface BindingStore {
  readonly resourceBindings: WatchCache<ResourceBinding>;
  readonly clusterResourceBindings: WatchCache<ClusterResourceBinding>;
  readonly resourceBindingClient: ResourceClient<ResourceBinding>;
  readonly clusterResourceBindingClient: ResourceClient<ClusterResourceBinding>;
}

/** Whether the key names a ClusterResourceBinding. */
export function isClusterBindingKey(key: string): boolean {
  return splitKey(key).namespace === undefined;
}

/** The cached binding for a key of either kind. */
export function getBinding(store: BindingStore, key: string): Binding | undefined {
  return isClusterBindingKey(key) ? store.clusterResourceBindings.get(key) : store.resourceBindings.get(key);
}

/** The client that writes the binding a key names. */
export function bindingClient(store: BindingStore, key: string): ResourceClient<Binding> {
  return isClusterBindingKey(key) ? store.clusterResourceBindingClient : store.resourceBindingClient;
}

/**
 * One controller's writes to bindings of both kinds: `client(key)` writes like {@link bindingClient}
 * and records what each write returns in `record`, which the controller hands to its binding
 * sources (`keysFrom(..., { ownWrites: record })`) so that its own writes do not wake it again.
 * The two kinds share the record: a ClusterResourceBinding's name never collides with a
 * ResourceBinding's `namespace/name`.
 */
export interface OwnBindingWrites {
  readonly record: OwnWrites;
  client(key: string): ResourceClient<Binding>;
}

/** Writes to bindings of both kinds that record nothing (for a writer that does not watch its writes' echoes). */
export function plainBindingWrites(store: BindingStore): Pick<OwnBindingWrites, 'client'> {
  return { client: (key) => bindingClient(store, key) };
}

export function ownBindingWrites(store: BindingStore): OwnBindingWrites {
  const record = new OwnWrites();
  const namespaced = store.resourceBindingClient.withOwnWrites(record);
  const clusterWide = store.clusterResourceBindingClient.withOwnWrites(record);
  return {
    record,
    client: (key) => (isClusterBindingKey(key) ? clusterWide : namespaced),
  };
}

/** Both binding caches as one source of bindings (keys keep them apart). */
export function allBindings(store: BindingStore): ObjectSource<Binding> {
  const caches = [store.resourceBindings, store.clusterResourceBindings];
  return {
    list: () => caches.flatMap((c) => c.list()),
    onEvent: (handler: ObjectEventHandler<Binding>) => {
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
  const kind = isClusterBindingKey(key) ? clusterResourceBindingKind : resourceBindingKind;
  return { ...binding, apiVersion: kind.apiVersion, kind: kind.kind };
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

/** Whether a binding changed in more than its status (and resourceVersion): what most controllers read. */
export function changedOutsideStatus(b: Binding, old: Binding): boolean {
  const outsideStatus = (x: Binding): unknown => ({
    ...x,
    status: undefined,
    metadata: { ...x.metadata, resourceVersion: undefined },
  });
  return !isSameJson(outsideStatus(b), outsideStatus(old));
}

/** The index of Works by the permanent id of their binding (see {@link worksByBinding}). */
const WORKS_BY_BINDING = 'binding-permanent-id';

/** The values a Work is indexed under: `<label>=<id>` for each binding permanent-id label it has. */
export function bindingIdsOfWork(w: Work): readonly string[] {
  const ids: string[] = [];
  for (const label of [labels.resourceBindingPermanentId, labels.clusterResourceBindingPermanentId]) {
    const id = w.metadata.labels?.[label];
    if (id !== undefined) ids.push(`${label}=${id}`);
  }
  return ids;
}

/** The Works of a cache by their binding's permanent id: one lookup per reconcile, not a scan. */
export function worksByBinding(works: WatchCache<Work>): CacheIndex<Work> {
  return works.index(WORKS_BY_BINDING, bindingIdsOfWork);
}

/** Works of the binding, found by its permanent id label. */
export function worksOfBinding(works: CacheIndex<Work>, binding: Binding, key: string): readonly Work[] {
  const label = bindingIdLabel(key);
  const id = binding.metadata.labels?.[label];
  if (id === undefined) return [];
  return works.get(`${label}=${id}`);
}

/** The resource template a binding stands for, as the object of an Event. */
export function templateReference(b: Binding): InvolvedObject {
  const r = b.spec.resource;
  return {
    apiVersion: r.apiVersion,
    kind: r.kind,
    name: r.name,
    ...(r.namespace === undefined ? {} : { namespace: r.namespace }),
    ...(r.uid === undefined ? {} : { uid: r.uid }),
  };
}

/** Events about a binding go to the binding and to its resource template, as upstream records them. */
export function recordOnBinding(
  events: EventRecorder,
  b: Binding,
  event: { readonly type: EventType; readonly reason: string; readonly message: string },
): void {
  events.record(b, event.type, event.reason, event.message);
  events.record(templateReference(b), event.type, event.reason, event.message);
}
