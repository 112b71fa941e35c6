/**
 * Which API resource a client or cache works on. Structural, so that the descriptors exported
 * by @kf/api (and any `{ group, version, plural, namespaced }` literal) fit.
 */
export interface ResourceDescriptor {
  /** '' for the core group (Pods, Events, Namespaces...). */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly kind?: string;
}

/** The least every Kubernetes object has; objects handed out by this package are read-only. */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
  };
}

/** `group/version`, or just `version` for the core group. */
export function apiVersionOf(r: ResourceDescriptor): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(r: ResourceDescriptor): string {
  return r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
}

/**
 * Path of a collection: in one namespace, or across all namespaces / cluster-scoped when
 * `namespace` is undefined or the resource is cluster-scoped.
 */
export function collectionPath(r: ResourceDescriptor, namespace?: string): string {
  const ns =
    r.namespaced && namespace !== undefined && namespace !== '' ? `/namespaces/${enc(namespace)}` : '';
  return `${groupVersionPath(r)}${ns}/${r.plural}`;
}

function enc(s: string): string {
  return encodeURIComponent(s);
}

/** Where an object lives, as the rest of the code names it. */
export interface ObjectRef {
  readonly name: string;
  readonly namespace?: string;
}

/** `namespace/name` → both parts; `name` → name only. */
export function splitKey(key: string): ObjectRef {
  const slash = key.indexOf('/');
  if (slash < 0) return { name: key };
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** `namespace/name` for namespaced objects, `name` otherwise (the queue and cache key). */
export function keyOf(obj: KubeObject): string {
  const name = obj.metadata?.name ?? '';
  const ns = obj.metadata?.namespace;
  return ns === undefined || ns === '' ? name : `${ns}/${name}`;
}

/** The key for a name in a namespace (or a cluster-scoped name). */
export function joinKey(namespace: string | undefined, name: string): string {
  return namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
}
