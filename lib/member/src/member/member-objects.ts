/**
 * The member objects Karmada manages (label `karmada.io/managed=true`), cached per resource on
 * first use, plus a dynamic client per resource and the resourceVersions this agent last wrote.
 * Caches live until the agent stops; their events fan out to every subscriber (drift repair,
 * status reflection). A cache that relists reports differences, but nothing here deletes
 * anything: deletions happen only when a Work is deleted.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { labels } from '@kf/api';
import { ResourceClient, WatchCache, type ResourceDescriptor, type WatchCacheMetrics } from '@kf/kube';
import { whenAborted, type Logger, type ObjectEventType, type Runnable } from '@kf/runtime';
import { objectRecordKey, type MemberObject } from '../controllers/execution/manifest-plan.ts';

export type MemberEventHandler = (
  type: ObjectEventType,
  obj: MemberObject,
  old: MemberObject | undefined,
) => void;

interface Entry {
  readonly cache: WatchCache<MemberObject>;
  readonly client: ResourceClient<MemberObject>;
}

export class MemberObjects {
  private readonly kc: KubeConfig;
  private readonly log: Logger;
  private readonly metrics: WatchCacheMetrics | undefined;
  private readonly entries = new Map<string, Entry>();
  private readonly handlers = new Set<MemberEventHandler>();
  private readonly applied = new Map<string, string>();
  private readonly stop = new AbortController();

  constructor(kc: KubeConfig, log: Logger, metrics?: WatchCacheMetrics) {
    this.kc = kc;
    this.log = log;
    this.metrics = metrics;
  }

  /** Cache and client of one resource; the cache starts watching on the first call. */
  resource(r: ResourceDescriptor): Entry {
    const id = `${r.group}/${r.version}/${r.plural}`;
    let entry = this.entries.get(id);
    if (entry === undefined) {
      const cache = new WatchCache<MemberObject>({
        kubeConfig: this.kc,
        resource: r,
        labelSelector: `${labels.managed}=true`,
        log: this.log,
        ...(this.metrics === undefined ? {} : { metrics: this.metrics }),
      });
      cache.onEvent((type, obj, old) => {
        for (const h of this.handlers) h(type, obj, old);
      });
      entry = { cache, client: new ResourceClient<MemberObject>(this.kc, r) };
      this.entries.set(id, entry);
      if (!this.stop.signal.aborted) cache.start(this.stop.signal);
    }
    return entry;
  }

  /** The live object: from the cache once synced, else straight from the API server. */
  async live(r: ResourceDescriptor, key: string, signal: AbortSignal): Promise<MemberObject | undefined> {
    const { cache, client } = this.resource(r);
    if (cache.isSynced()) {
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
    }
    // Not cached: absent, not (yet) managed, or the cache is still listing. Ask the server.
    return client.find(key, { signal });
  }

  /** Subscribes to events of every cache, present and future. */
  onEvent(handler: MemberEventHandler): () => void {
    const h: MemberEventHandler = (type, obj, old) => {
      handler(type, obj, old);
    };
    this.handlers.add(h);
    return () => {
      this.handlers.delete(h);
    };
  }

  recordApplied(obj: MemberObject): void {
    const rv = obj.metadata?.resourceVersion;
    if (rv !== undefined) this.applied.set(objectRecordKey(obj), rv);
  }

  forgetApplied(obj: MemberObject): void {
    this.applied.delete(objectRecordKey(obj));
  }

  appliedVersion(obj: MemberObject): string | undefined {
    return this.applied.get(objectRecordKey(obj));
  }

  /** Runs until aborted, then stops every cache. */
  runnable(): Runnable {
    return {
      name: 'member-object-caches',
      needLeaderElection: false,
      start: async (signal) => {
        await whenAborted(signal);
        this.stop.abort();
        await Promise.all([...this.entries.values()].map((e) => e.cache.stop()));
      },
    };
  }
}
