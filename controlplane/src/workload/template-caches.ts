/**
 * One list+watch cache per template type, started on demand: Deployments always, and every kind a
 * PropagationPolicy or ClusterPropagationPolicy selects (see {@link TemplateCaches.followSelectors}). A kind the catalog cannot
 * resolve yet (a CRD not installed) stays pending and gets its cache as soon as the catalog
 * learns it; the new cache's first list then reports every existing template as ADDED, which
 * queues them like any other template event. Handlers subscribed here see the events of every
 * cache, present and future, so it serves as one ObjectSource for the controllers.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { PropagationPolicy } from '@kf/api';
import type { ResourceClient } from '@kf/kube';
import {
  OwnWrites,
  WatchCache,
  apiVersionOf,
  keyOf,
  type ResourceDescriptor,
  type WatchCacheMetrics,
} from '@kf/kube';
import { whenAborted, type Logger, type ObjectEventHandler, type ObjectSource } from '@kf/runtime';
import { cachedFormFor } from '../cached-forms.ts';
import { isPropagatableType, type KindCatalog } from './kinds.ts';
import { typeKey, type ResourceTemplate } from './template.ts';
import { CONTROL_PLANE_TRANSPORT, controlPlaneClient } from '../connections.ts';

interface TypeEntry {
  readonly resource: ResourceDescriptor;
  readonly cache: WatchCache<ResourceTemplate>;
  readonly client: ResourceClient<ResourceTemplate>;
}

export interface TemplateCachesOptions {
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  readonly kinds: KindCatalog;
  /** Types watched from the start, as `[apiVersion, kind]`. */
  readonly initial?: readonly (readonly [string, string])[];
  /** Restart and backoff metrics of the process's watch caches. */
  readonly metrics?: WatchCacheMetrics;
}

export class TemplateCaches implements ObjectSource<ResourceTemplate> {
  private readonly opts: TemplateCachesOptions;
  private readonly entries = new Map<string, TypeEntry>();
  private readonly handlers = new Set<ObjectEventHandler<ResourceTemplate>>();
  private readonly unsubscribes: (() => void)[] = [];
  /** Types asked for that could not be resolved yet, by type key. */
  private readonly pending = new Map<string, readonly [string, string]>();
  /** Set while running: caches added later start at once under it. */
  private signal: AbortSignal | undefined;

  constructor(opts: TemplateCachesOptions) {
    this.opts = opts;
    const unsubscribe = opts.kinds.onLearned?.(() => {
      this.retryPending();
    });
    if (unsubscribe !== undefined) this.unsubscribes.push(unsubscribe);
    for (const [apiVersion, kind] of opts.initial ?? []) this.ensure(apiVersion, kind);
  }

  /**
   * Watches the type from now on; false when it cannot be resolved yet (it is then watched once
   * the catalog learns it).
   */
  ensure(apiVersion: string, kind: string): boolean {
    const key = typeKey(apiVersion, kind);
    if (this.entries.has(key)) return true;
    const resource = this.opts.kinds.resolve(apiVersion, kind);
    if (resource === undefined) {
      this.pending.set(key, [apiVersion, kind]);
      return false;
    }
    this.pending.delete(key);
    const cachedForm = cachedFormFor(resource);
    const cache = new WatchCache<ResourceTemplate>({
      kubeConfig: this.opts.kubeConfig,
      transport: CONTROL_PLANE_TRANSPORT,
      resource,
      log: this.opts.log,
      // What the process's caches keep of an object (cached-forms.ts).
      transform: (o) => cachedForm(o) as unknown as ResourceTemplate,
      ...(this.opts.metrics === undefined ? {} : { metrics: this.opts.metrics }),
    });
    this.unsubscribes.push(
      cache.onEvent((type, obj, old) => {
        this.emit(type, obj, old);
      }),
    );
    this.entries.set(key, { resource, cache, client: controlPlaneClient(this.opts.kubeConfig, resource) });
    if (this.signal !== undefined) cache.start(this.signal);
    this.opts.log.info({ apiVersion, kind }, 'watching resource templates');
    return true;
  }

  /**
   * Watches every kind the policies select: those of the policies listed now, and from then on of
   * each policy added or changed (a kind a policy no longer selects stays watched: another may).
   */
  followSelectors(policies: ObjectSource<PropagationPolicy>): void {
    for (const p of policies.list()) this.watchSelected(p);
    this.unsubscribes.push(
      policies.onEvent((type, p) => {
        if (type !== 'DELETED') this.watchSelected(p);
      }),
    );
  }

  private watchSelected(p: PropagationPolicy): void {
    for (const s of p.spec.resourceSelectors) {
      if (!isPropagatableType(s.apiVersion, s.kind)) continue;
      // Not served yet (its CRD not installed): watched once discovery finds it.
      if (!this.ensure(s.apiVersion, s.kind)) {
        this.opts.log.warn(
          { apiVersion: s.apiVersion, kind: s.kind },
          'policy selects a kind the API server does not serve yet',
        );
      }
    }
  }

  /** Types asked for that are not served (yet), as `[apiVersion, kind]`. */
  pendingTypes(): readonly (readonly [string, string])[] {
    return [...this.pending.values()];
  }

  /** Whether the type is watched and its first list is complete. */
  isWatched(apiVersion: string, kind: string): boolean {
    return this.entries.get(typeKey(apiVersion, kind))?.cache.isSynced() === true;
  }

  /** Watched types as `{ apiVersion, kind, namespaced }`. */
  types(): readonly { readonly apiVersion: string; readonly kind: string; readonly namespaced: boolean }[] {
    return [...this.entries.values()].map((e) => ({
      apiVersion: apiVersionOf(e.resource),
      kind: e.resource.kind ?? '',
      namespaced: e.resource.namespaced,
    }));
  }

  get(apiVersion: string, kind: string, key: string): ResourceTemplate | undefined {
    return this.entries.get(typeKey(apiVersion, kind))?.cache.get(key);
  }

  /** A client for the type; undefined when it is not watched. */
  client(apiVersion: string, kind: string): ResourceClient<ResourceTemplate> | undefined {
    return this.entries.get(typeKey(apiVersion, kind))?.client;
  }

  list(): readonly ResourceTemplate[] {
    return [...this.entries.values()].flatMap((e) => e.cache.list());
  }

  /** The templates of one type (none when it is not watched). */
  listOf(apiVersion: string, kind: string): readonly ResourceTemplate[] {
    return this.entries.get(typeKey(apiVersion, kind))?.cache.list() ?? [];
  }

  onEvent(handler: ObjectEventHandler<ResourceTemplate>): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** Template types whose cache has not listed yet, as `templates/<apiVersion>/<kind>`. */
  unsynced(): readonly string[] {
    return [...this.entries.values()]
      .filter((e) => !e.cache.isSynced())
      .map((e) => `templates/${apiVersionOf(e.resource)}/${e.resource.kind ?? e.resource.plural}`);
  }

  /** Resolves once every cache started so far has ended its first list, listed or failed. */
  async firstListsEnded(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.cache.firstListEnded()));
  }

  /** Resolves once every cache started so far has listed. */
  async synced(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.cache.synced()));
  }

  /** Runs every cache, present and future, until `signal` aborts (a Manager runnable's `start`). */
  async run(signal: AbortSignal): Promise<void> {
    this.signal = signal;
    for (const e of this.entries.values()) e.cache.start(signal);
    await whenAborted(signal);
    await Promise.all([...this.entries.values()].map((e) => e.cache.stop()));
    for (const u of this.unsubscribes.splice(0)) u();
  }

  private retryPending(): void {
    for (const [apiVersion, kind] of [...this.pending.values()]) this.ensure(apiVersion, kind);
  }

  private emit(...args: Parameters<ObjectEventHandler<ResourceTemplate>>): void {
    for (const h of this.handlers) h(...args);
  }
}

/**
 * One controller's writes to templates of every kind: `client` is {@link TemplateCaches.client}
 * recording what each write returns in `record`, for the controller's template source
 * (`ownWrites: record`). Templates of every kind share the record, so the kind is part of a
 * template's name there.
 */
export interface OwnTemplateWrites {
  readonly record: OwnWrites;
  client(apiVersion: string, kind: string): ResourceClient<ResourceTemplate> | undefined;
}

export function ownTemplateWrites(templates: TemplateCaches): OwnTemplateWrites {
  const record = new OwnWrites({
    identify: (t) => `${t.apiVersion ?? ''}/${t.kind ?? ''}/${keyOf(t)}`,
  });
  const recording = new WeakMap<ResourceClient<ResourceTemplate>, ResourceClient<ResourceTemplate>>();
  return {
    record,
    client: (apiVersion, kind) => {
      const plain = templates.client(apiVersion, kind);
      if (plain === undefined) return undefined;
      let client = recording.get(plain);
      if (client === undefined) {
        client = plain.withOwnWrites(record);
        recording.set(plain, client);
      }
      return client;
    },
  };
}
