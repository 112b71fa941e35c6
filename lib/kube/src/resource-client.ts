import {
  CustomObjectsApi,
  Observable,
  PatchStrategy,
  setHeaderOptions,
  type ConfigurationOptions,
  type KubeConfig,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { KubeError, isNotFound, toKubeError } from './errors.ts';
import { DEFAULT_API_TIMEOUT_MS, apiTimeout, makeApiClient } from './kubeconfig.ts';
import { apiVersionOf, splitKey, type KubeObject, type ResourceDescriptor } from './resource.ts';

/** Per-call overrides; the client's default deadline applies otherwise. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

export interface ListOptions extends CallOptions {
  /** One namespace; all namespaces when undefined (ignored for cluster-scoped resources). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Items per page (default 500). */
  readonly pageSize?: number;
}

export interface ListPageOptions extends ListOptions {
  /** The `continue` token of the previous page. */
  readonly continue?: string;
}

export interface ListResult<T> {
  readonly items: T[];
  /** The collection's resourceVersion: watch from here to see every later change. */
  readonly resourceVersion: string;
}

export interface ListPage<T> extends ListResult<T> {
  /** Present when more pages follow. */
  readonly continue?: string;
}

export interface ApplyOptions extends CallOptions {
  readonly fieldManager: string;
  /** Take over fields owned by other managers (default true, as controllers do). */
  readonly force?: boolean;
}

export interface DeleteOptions extends CallOptions {
  /** The delete fails with Conflict unless the object still has this uid / resourceVersion. */
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly gracePeriodSeconds?: number;
}

export interface ResourceClientOptions {
  /** Default deadline per call (default 30 s). */
  readonly timeoutMs?: number;
}

/**
 * CustomObjectsApi builds `/apis/<group>/<version>/...` for every resource; for the core group
 * (group '') that is `/apis//v1/...`, which this middleware turns into `/api/v1/...`.
 */
const corePathMiddleware: ObservableMiddleware = {
  pre: (c: RequestContext) => {
    c.setUrl(c.getUrl().replace('/apis//', '/api/'));
    return new Observable(Promise.resolve(c));
  },
  post: (r: ResponseContext) => new Observable(Promise.resolve(r)),
};

function listQuery(opts: ListPageOptions): {
  limit: number;
  labelSelector?: string;
  fieldSelector?: string;
  _continue?: string;
} {
  return {
    limit: opts.pageSize ?? 500,
    ...(opts.labelSelector === undefined ? {} : { labelSelector: opts.labelSelector }),
    ...(opts.fieldSelector === undefined ? {} : { fieldSelector: opts.fieldSelector }),
    ...(opts.continue === undefined ? {} : { _continue: opts.continue }),
  };
}

interface Located {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly name: string;
}

/**
 * Typed CRUD for one resource (custom or built-in, namespaced or cluster-scoped) over
 * CustomObjectsApi, returning plain JSON objects (timestamps stay strings). Every failure is a
 * KubeError. Keys are `name` or `namespace/name`.
 */
export class ResourceClient<T extends KubeObject> {
  readonly resource: ResourceDescriptor;
  private readonly api: CustomObjectsApi;
  private readonly timeoutMs: number;

  constructor(kc: KubeConfig, resource: ResourceDescriptor, opts: ResourceClientOptions = {}) {
    this.resource = resource;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_API_TIMEOUT_MS;
    this.api = makeApiClient(kc, CustomObjectsApi, {
      timeoutMs: this.timeoutMs,
      middleware: resource.group === '' ? [corePathMiddleware] : [],
    });
  }

  /** The object, or a KubeError with code NotFound. */
  async get(key: string, opts: CallOptions = {}): Promise<T> {
    const at = this.locate(key);
    return this.call(opts, undefined, (o) =>
      at.namespace === undefined
        ? this.api.getClusterCustomObject(at, o)
        : this.api.getNamespacedCustomObject({ ...at, namespace: at.namespace }, o),
    );
  }

  /** The object, or undefined when it does not exist. */
  async find(key: string, opts: CallOptions = {}): Promise<T | undefined> {
    try {
      return await this.get(key, opts);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Every matching object, fetched page by page; a consistent snapshot at `resourceVersion`. */
  async list(opts: ListOptions = {}): Promise<ListResult<T>> {
    const items: T[] = [];
    let page = await this.listPage(opts);
    items.push(...page.items);
    while (page.continue !== undefined) {
      page = await this.listPage({ ...opts, continue: page.continue });
      items.push(...page.items);
    }
    return { items, resourceVersion: page.resourceVersion };
  }

  /** One page of a list. */
  async listPage(opts: ListPageOptions = {}): Promise<ListPage<T>> {
    const r = this.resource;
    const q = { group: r.group, version: r.version, plural: r.plural, ...listQuery(opts) };
    const ns = r.namespaced ? opts.namespace : undefined;
    const body = await this.call<{
      items?: T[];
      metadata?: { resourceVersion?: string; continue?: string };
    }>(opts, undefined, (o) =>
      ns === undefined || ns === ''
        ? this.api.listClusterCustomObject(q, o)
        : this.api.listNamespacedCustomObject({ ...q, namespace: ns }, o),
    );
    const cont = body.metadata?.continue;
    return {
      items: body.items ?? [],
      resourceVersion: body.metadata?.resourceVersion ?? '',
      ...(cont === undefined || cont === '' ? {} : { continue: cont }),
    };
  }

  async create(obj: T, opts: CallOptions & { readonly fieldManager?: string } = {}): Promise<T> {
    const body = this.withTypeMeta(obj);
    const r = this.resource;
    const ns = this.namespaceOf(body);
    const q = {
      group: r.group,
      version: r.version,
      plural: r.plural,
      body,
      ...(opts.fieldManager === undefined ? {} : { fieldManager: opts.fieldManager }),
    };
    return this.call(opts, undefined, (o) =>
      ns === undefined
        ? this.api.createClusterCustomObject(q, o)
        : this.api.createNamespacedCustomObject({ ...q, namespace: ns }, o),
    );
  }

  /** PUT: with `metadata.resourceVersion` set, a concurrent change makes this a Conflict. */
  async replace(obj: T, opts: CallOptions = {}): Promise<T> {
    const body = this.withTypeMeta(obj);
    const at = this.locateObject(body);
    return this.call(opts, undefined, (o) =>
      at.namespace === undefined
        ? this.api.replaceClusterCustomObject({ ...at, body }, o)
        : this.api.replaceNamespacedCustomObject({ ...at, namespace: at.namespace, body }, o),
    );
  }

  /** JSON merge patch (RFC 7386): `null` removes a field; lists are replaced whole. */
  async mergePatch(key: string, patch: object, opts: CallOptions = {}): Promise<T> {
    const at = this.locate(key);
    return this.call(opts, PatchStrategy.MergePatch, (o) =>
      at.namespace === undefined
        ? this.api.patchClusterCustomObject({ ...at, body: patch }, o)
        : this.api.patchNamespacedCustomObject({ ...at, namespace: at.namespace, body: patch }, o),
    );
  }

  /** Server-side apply of the fields in `obj` as `fieldManager`; creates the object if missing. */
  async apply(obj: T, opts: ApplyOptions): Promise<T> {
    const body = this.withTypeMeta(obj);
    const at = this.locateObject(body);
    const q = { ...at, body, fieldManager: opts.fieldManager, force: opts.force ?? true };
    return this.call(opts, PatchStrategy.ServerSideApply, (o) =>
      at.namespace === undefined
        ? this.api.patchClusterCustomObject(q, o)
        : this.api.patchNamespacedCustomObject({ ...q, namespace: at.namespace }, o),
    );
  }

  /** Deletes the object; NotFound is reported as a KubeError like any other failure. */
  async delete(key: string, opts: DeleteOptions = {}): Promise<void> {
    const at = this.locate(key);
    const q = {
      ...at,
      ...(opts.propagationPolicy === undefined ? {} : { propagationPolicy: opts.propagationPolicy }),
      ...(opts.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: opts.gracePeriodSeconds }),
      ...(opts.preconditions === undefined ? {} : { body: { preconditions: { ...opts.preconditions } } }),
    };
    await this.call<unknown>(opts, undefined, (o) =>
      at.namespace === undefined
        ? this.api.deleteClusterCustomObject(q, o)
        : this.api.deleteNamespacedCustomObject({ ...q, namespace: at.namespace }, o),
    );
  }

  /** PUT of the status subresource (only `status` is taken; resourceVersion guards it). */
  async replaceStatus(obj: T, opts: CallOptions = {}): Promise<T> {
    const body = this.withTypeMeta(obj);
    const at = this.locateObject(body);
    return this.call(opts, undefined, (o) =>
      at.namespace === undefined
        ? this.api.replaceClusterCustomObjectStatus({ ...at, body }, o)
        : this.api.replaceNamespacedCustomObjectStatus({ ...at, namespace: at.namespace, body }, o),
    );
  }

  /** Merge patch of the status subresource: `patchStatus(key, { status: { conditions } })`. */
  async patchStatus(key: string, patch: object, opts: CallOptions = {}): Promise<T> {
    const at = this.locate(key);
    return this.call(opts, PatchStrategy.MergePatch, (o) =>
      at.namespace === undefined
        ? this.api.patchClusterCustomObjectStatus({ ...at, body: patch }, o)
        : this.api.patchNamespacedCustomObjectStatus({ ...at, namespace: at.namespace, body: patch }, o),
    );
  }

  /** Runs one generated-client call with this client's options; its JSON body is taken as R. */
  private async call<R = T>(
    opts: CallOptions,
    contentType: string | undefined,
    fn: (o: ConfigurationOptions | undefined) => Promise<unknown>,
  ): Promise<R> {
    let o: ConfigurationOptions | undefined =
      opts.signal !== undefined || opts.timeoutMs !== undefined
        ? apiTimeout(opts.timeoutMs ?? this.timeoutMs, opts.signal)
        : undefined;
    if (contentType !== undefined) o = setHeaderOptions('Content-Type', contentType, o);
    try {
      return (await fn(o)) as R;
    } catch (err) {
      throw toKubeError(err);
    }
  }

  private locate(key: string): Located & { readonly namespace?: string } {
    const { namespace, name } = splitKey(key);
    const r = this.resource;
    const base = { group: r.group, version: r.version, plural: r.plural, name };
    if (!r.namespaced) return base;
    if (namespace === undefined || namespace === '') {
      throw new KubeError('Invalid', `${r.plural} are namespaced: key ${key} needs namespace/name`);
    }
    return { ...base, namespace };
  }

  private locateObject(obj: KubeObject): Located & { readonly namespace?: string } {
    const name = obj.metadata?.name;
    if (name === undefined || name === '') throw new KubeError('Invalid', 'metadata.name is required');
    const ns = this.namespaceOf(obj);
    return this.locate(ns === undefined ? name : `${ns}/${name}`);
  }

  private namespaceOf(obj: KubeObject): string | undefined {
    if (!this.resource.namespaced) return undefined;
    const ns = obj.metadata?.namespace;
    if (ns === undefined || ns === '') {
      throw new KubeError(
        'Invalid',
        `${this.resource.plural} are namespaced: metadata.namespace is required`,
      );
    }
    return ns;
  }

  private withTypeMeta(obj: T): T {
    const kind = obj.kind ?? this.resource.kind;
    return {
      ...obj,
      apiVersion: obj.apiVersion ?? apiVersionOf(this.resource),
      ...(kind === undefined ? {} : { kind }),
    };
  }
}
