import { callDeadline } from './call-deadline.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import { requestWithin } from './request-within.ts';
import { KubeError, isNotFound, kubeErrorFromResponse, toKubeError } from './errors.ts';
import { DEFAULT_API_TIMEOUT_MS } from './kubeconfig.ts';
import {
  apiVersionOf,
  collectionPath,
  splitKey,
  type KubeObject,
  type ResourceDescriptor,
} from './resource.ts';
import type { OwnWrites } from './own-writes.ts';
import { KubeTransport, type TransportOptions } from './transport.ts';

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
  /** How to connect (a new pool of this client's own), or another client's transport to share. */
  readonly transport?: TransportOptions | KubeTransport | undefined;
}

const USER_AGENT = 'karmada-failover';
const MERGE_PATCH = 'application/merge-patch+json';
/** Server-side apply takes YAML, of which JSON is a subset. */
const APPLY_PATCH = 'application/apply-patch+yaml';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One API request: what to send where; `body` is sent as JSON (or as `contentType`). */
interface Call {
  readonly method: Method;
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
}

/** Where one object lives. */
interface ObjectAt {
  readonly name: string;
  readonly namespace?: string;
}

/**
 * Typed CRUD for one resource (custom or built-in, namespaced or cluster-scoped) over plain
 * undici requests (a connection pool per client unless given one), returning plain JSON objects (timestamps
 * stay strings). Every failure is a KubeError. Keys are `name` or `namespace/name`.
 */
export class ResourceClient<T extends KubeObject> {
  readonly resource: ResourceDescriptor;
  private readonly kc: KubeConfig;
  private readonly transport: KubeTransport;
  private readonly timeoutMs: number;
  /** Where the object each write returns is recorded (see {@link withOwnWrites}). */
  private ownWrites: OwnWrites | undefined;

  constructor(kc: KubeConfig, resource: ResourceDescriptor, opts: ResourceClientOptions = {}) {
    this.kc = kc;
    this.resource = resource;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_API_TIMEOUT_MS;
    this.transport =
      opts.transport instanceof KubeTransport ? opts.transport : new KubeTransport(kc, opts.transport);
  }

  /**
   * This client, over the same connections, recording in `own` the object each create, replace,
   * patch or apply returns: a controller writing through it has its own writes' watch events told
   * apart (`keysFrom`'s `ownWrites`) without recording anything by hand.
   */
  withOwnWrites(own: OwnWrites): ResourceClient<T> {
    const recording = new ResourceClient<T>(this.kc, this.resource, {
      timeoutMs: this.timeoutMs,
      transport: this.transport,
    });
    recording.ownWrites = own;
    return recording;
  }

  /** The object, or a KubeError with code NotFound. */
  async get(key: string, opts: CallOptions = {}): Promise<T> {
    return this.send<T>({ method: 'GET', path: this.objectPath(this.locate(key)) }, opts);
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
    const ns = this.resource.namespaced ? opts.namespace : undefined;
    const body = await this.send<{
      items?: T[];
      metadata?: { resourceVersion?: string; continue?: string };
    }>(
      {
        method: 'GET',
        path: collectionPath(this.resource, ns),
        query: {
          limit: String(opts.pageSize ?? 500),
          labelSelector: opts.labelSelector,
          fieldSelector: opts.fieldSelector,
          continue: opts.continue,
        },
      },
      opts,
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
    const path = collectionPath(this.resource, this.namespaceOf(body));
    return this.write({ method: 'POST', path, query: { fieldManager: opts.fieldManager }, body }, opts);
  }

  /** PUT: with `metadata.resourceVersion` set, a concurrent change makes this a Conflict. */
  async replace(obj: T, opts: CallOptions = {}): Promise<T> {
    const body = this.withTypeMeta(obj);
    return this.write({ method: 'PUT', path: this.objectPath(this.locateObject(body)), body }, opts);
  }

  /** JSON merge patch (RFC 7386): `null` removes a field; lists are replaced whole. */
  async mergePatch(key: string, patch: object, opts: CallOptions = {}): Promise<T> {
    const path = this.objectPath(this.locate(key));
    return this.write({ method: 'PATCH', path, body: patch, contentType: MERGE_PATCH }, opts);
  }

  /** Server-side apply of the fields in `obj` as `fieldManager`; creates the object if missing. */
  async apply(obj: T, opts: ApplyOptions): Promise<T> {
    const body = this.withTypeMeta(obj);
    const query = { fieldManager: opts.fieldManager, force: String(opts.force ?? true) };
    const path = this.objectPath(this.locateObject(body));
    return this.write({ method: 'PATCH', path, query, body, contentType: APPLY_PATCH }, opts);
  }

  /** Deletes the object; NotFound is reported as a KubeError like any other failure. */
  async delete(key: string, opts: DeleteOptions = {}): Promise<void> {
    const query = {
      propagationPolicy: opts.propagationPolicy,
      gracePeriodSeconds: opts.gracePeriodSeconds === undefined ? undefined : String(opts.gracePeriodSeconds),
    };
    const body = opts.preconditions === undefined ? undefined : { preconditions: { ...opts.preconditions } };
    await this.send<unknown>(
      { method: 'DELETE', path: this.objectPath(this.locate(key)), query, body },
      opts,
    );
  }

  /** PUT of the status subresource (only `status` is taken; resourceVersion guards it). */
  async replaceStatus(obj: T, opts: CallOptions = {}): Promise<T> {
    const body = this.withTypeMeta(obj);
    const path = `${this.objectPath(this.locateObject(body))}/status`;
    return this.write({ method: 'PUT', path, body }, opts);
  }

  /** Merge patch of the status subresource: `patchStatus(key, { status: { conditions } })`. */
  async patchStatus(key: string, patch: object, opts: CallOptions = {}): Promise<T> {
    const path = `${this.objectPath(this.locate(key))}/status`;
    return this.write({ method: 'PATCH', path, body: patch, contentType: MERGE_PATCH }, opts);
  }

  /** Sends a write and returns the object it made, recorded in the client's own writes if any. */
  private async write(call: Call, opts: CallOptions): Promise<T> {
    const written = await this.send<T>(call, opts);
    this.ownWrites?.wrote(written);
    return written;
  }

  /**
   * Sends one request and returns its JSON body, taken as R. The client's deadline always
   * applies; a per-call deadline or signal adds to it (the earliest ends the call, body included).
   */
  private async send<R>(call: Call, opts: CallOptions): Promise<R> {
    // Every write asks the server to refuse fields its schema does not know, rather than drop
    // them with a warning: a field lost silently (an extension on a CRD that lacks it, a typo)
    // would change behaviour with nobody told.
    const query =
      call.method === 'GET' || call.method === 'DELETE'
        ? call.query
        : { ...call.query, fieldValidation: 'Strict' };
    const deadline = callDeadline(Math.min(this.timeoutMs, opts.timeoutMs ?? Infinity), opts.signal);
    try {
      const conn = await this.transport.connect();
      const res = await requestWithin(`${conn.baseUrl}${call.path}${queryString(query)}`, {
        method: call.method,
        dispatcher: conn.dispatcher,
        headers: {
          ...conn.headers,
          accept: 'application/json',
          'user-agent': USER_AGENT,
          ...(call.body === undefined ? {} : { 'content-type': call.contentType ?? 'application/json' }),
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        signal: deadline.signal,
      });
      const text = await res.body.text();
      if (res.statusCode < 200 || res.statusCode > 299) {
        throw kubeErrorFromResponse(res.statusCode, text, res.headers);
      }
      return (text === '' ? undefined : JSON.parse(text)) as R;
    } catch (err) {
      throw toKubeError(err);
    } finally {
      deadline.release();
    }
  }

  private objectPath(at: ObjectAt): string {
    return `${collectionPath(this.resource, at.namespace)}/${encodeURIComponent(at.name)}`;
  }

  private locate(key: string): ObjectAt {
    const { namespace, name } = splitKey(key);
    const r = this.resource;
    if (!r.namespaced) return { name };
    if (namespace === undefined || namespace === '') {
      throw new KubeError('Invalid', `${r.plural} are namespaced: key ${key} needs namespace/name`);
    }
    return { name, namespace };
  }

  private locateObject(obj: KubeObject): ObjectAt {
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

/** `?a=1&b=2` of the defined parameters, or '' when there are none. */
function queryString(query: Call['query']): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q.set(k, v);
  const text = q.toString();
  return text === '' ? '' : `?${text}`;
}
