/**
 * A list+watch cache that keeps only a projection of each object (for Pods: node, phase and
 * requests), so that a member with thousands of pods costs the agent kilobytes per pod instead
 * of the whole objects with their managed fields and statuses. Same protocol as @kf/kube's
 * WatchCache: paged LIST, WATCH with bookmarks from the list's resourceVersion, relist on 410,
 * jittered backoff on other errors, credentials from the KubeConfig on every connect.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  KubeTransport,
  LineSplitter,
  collectionPath,
  keyOf,
  kubeErrorFromResponse,
  kubeErrorFromStatus,
  parseWatchEvent,
  toKubeError,
  type KubeObject,
  type ResourceDescriptor,
} from '@kf/kube';
import { DEFAULT_BACKOFF, backoffDelayMs, systemClock, type Clock, type Logger } from '@kf/runtime';
import { request } from 'undici';

export interface ProjectedCacheOptions<T extends KubeObject, V> {
  readonly kubeConfig: KubeConfig;
  readonly resource: ResourceDescriptor;
  readonly project: (obj: T) => V;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly random?: () => number;
}

/** Items per LIST page: one page of pods is a few MB of JSON at most. */
const PAGE_SIZE = 500;
/** Deadline of a LIST page and of a watch's response headers. */
const REQUEST_TIMEOUT_MS = 60_000;

export class ProjectedCache<T extends KubeObject, V> {
  private readonly opts: ProjectedCacheOptions<T, V>;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly transport: KubeTransport;
  private store = new Map<string, V>();
  private rv = '';
  private isSynced = false;
  private resolveSynced: () => void = () => undefined;
  private readonly syncedPromise = new Promise<void>((resolve) => {
    this.resolveSynced = resolve;
  });
  private loop: Promise<void> | undefined;
  private readonly abort = new AbortController();

  constructor(opts: ProjectedCacheOptions<T, V>) {
    this.opts = opts;
    this.log = opts.log.child({ cache: opts.resource.plural });
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? Math.random;
    this.transport = new KubeTransport(opts.kubeConfig);
  }

  /** Resolves once the first complete list is in; never rejects (stop() leaves it pending). */
  synced(): Promise<void> {
    return this.syncedPromise;
  }

  values(): V[] {
    return [...this.store.values()];
  }

  start(): void {
    this.loop ??= this.run(this.abort.signal);
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    await this.transport.close();
  }

  private async run(signal: AbortSignal): Promise<void> {
    let attempt = 0;
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) await this.list(signal);
        needList = false;
        await this.watch(signal);
        attempt = 0;
      } catch (err: unknown) {
        if (this.abort.signal.aborted) return; // stopping
        const e = toKubeError(err);
        if (e.code === 'Gone') {
          needList = true;
          continue; // the resourceVersion is too old: relist at once
        }
        const delayMs = backoffDelayMs(DEFAULT_BACKOFF, attempt++, this.random());
        this.log.warn({ err: e, attempt, delayMs }, 'list or watch failed; retrying');
        await this.clock.sleep(delayMs, signal).catch(() => undefined);
      }
    }
  }

  private async get(query: URLSearchParams, signal: AbortSignal, bodyTimeoutMs: number) {
    const conn = await this.transport.connect();
    const res = await request(`${conn.baseUrl}${collectionPath(this.opts.resource)}?${query.toString()}`, {
      dispatcher: conn.dispatcher,
      headers: { ...conn.headers, accept: 'application/json' },
      signal,
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: bodyTimeoutMs,
    });
    if (res.statusCode !== 200)
      throw kubeErrorFromResponse(res.statusCode, await res.body.text(), res.headers);
    return res;
  }

  private async list(signal: AbortSignal): Promise<void> {
    const next = new Map<string, V>();
    let cont = '';
    do {
      const q = new URLSearchParams({ limit: String(PAGE_SIZE) });
      if (cont !== '') q.set('continue', cont);
      const res = await this.get(q, signal, REQUEST_TIMEOUT_MS);
      const page = (await res.body.json()) as {
        items?: T[];
        metadata?: { resourceVersion?: string; continue?: string };
      };
      for (const item of page.items ?? []) next.set(keyOf(item), this.opts.project(item));
      cont = page.metadata?.continue ?? '';
      this.rv = page.metadata?.resourceVersion ?? '';
    } while (cont !== '');
    this.store = next;
    if (!this.isSynced) {
      this.isSynced = true;
      this.log.info({ objects: next.size }, 'synced');
      this.resolveSynced();
    }
  }

  /** One watch until the server ends it (after timeoutSeconds) or it fails. */
  private async watch(signal: AbortSignal): Promise<void> {
    // 5–10 minutes, as client-go: reconnects of many clients spread out.
    const timeoutSeconds = 300 + Math.floor(this.random() * 300);
    const q = new URLSearchParams({
      watch: 'true',
      allowWatchBookmarks: 'true',
      resourceVersion: this.rv,
      timeoutSeconds: String(timeoutSeconds),
    });
    const res = await this.get(q, signal, timeoutSeconds * 1000 + 30_000);
    const lines = new LineSplitter();
    for await (const chunk of res.body) {
      for (const line of lines.push(chunk as Buffer)) this.apply(line);
    }
    for (const line of lines.end()) this.apply(line);
  }

  private apply(line: string): void {
    const ev = parseWatchEvent<T>(line);
    switch (ev.type) {
      case 'BOOKMARK':
        if (ev.resourceVersion !== '') this.rv = ev.resourceVersion;
        return;
      case 'ERROR':
        throw kubeErrorFromStatus(ev.status);
      case 'ADDED':
      case 'MODIFIED':
        this.store.set(keyOf(ev.object), this.opts.project(ev.object));
        break;
      case 'DELETED':
        this.store.delete(keyOf(ev.object));
        break;
    }
    this.rv = ev.object.metadata?.resourceVersion ?? this.rv;
  }
}
