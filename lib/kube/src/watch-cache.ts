import { callDeadline } from './call-deadline.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  systemClock,
  type BackoffPolicy,
  type Clock,
  type Logger,
  type ObjectEventHandler,
  type ObjectSource,
} from '@kf/runtime';
import { requestWithin } from './request-within.ts';
import { CacheIndex } from './cache-index.ts';
import { applyDeltas, deepFreeze, diffRelist, planWatchEvent, type CacheDelta } from './cache-store.ts';
import { kubeErrorFromResponse, kubeErrorFromStatus, toKubeError } from './errors.ts';
import { LineSplitter } from './ndjson.ts';
import { collectionPath, joinKey, type KubeObject, type ResourceDescriptor } from './resource.ts';
import { KubeTransport, type Connection, type TransportOptions } from './transport.ts';
import { readPagesAhead } from './pages-ahead.ts';
import { parseWatchEvent } from './watch-event.ts';
import type { BoundWatchMetrics, WatchCacheMetrics } from './watch-metrics.ts';
import {
  WATCH_BACKOFF,
  afterSuccess,
  decideRecovery,
  initialRecovery,
  type Failure,
  type FailureKind,
  type RecoveryState,
  type RecoveryStep,
  type RecoverySuccess,
} from './watch-recovery.ts';

/** Items of built-in lists come without apiVersion/kind: put them back from the list. */
function withTypeMeta<T extends KubeObject>(
  o: T,
  apiVersion: string | undefined,
  kind: string | undefined,
): T {
  const addVersion = o.apiVersion === undefined && apiVersion !== undefined;
  const addKind = o.kind === undefined && kind !== undefined;
  // Custom resources carry both already: no copy for them.
  if (!addVersion && !addKind) return o;
  return { ...o, ...(addVersion ? { apiVersion } : {}), ...(addKind ? { kind } : {}) };
}

/** A LIST response as read: the items untouched until the cache takes them in. */
interface ListBody {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly items?: KubeObject[];
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
}

export interface WatchCacheOptions<T> {
  readonly kubeConfig: KubeConfig;
  /** How the cache's own connection pool connects (default: HTTP/2 offered). */
  readonly transport?: TransportOptions;
  readonly resource: ResourceDescriptor;
  readonly log: Logger;
  /** Watch one namespace only (namespaced resources). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Items per LIST page (default 500). */
  readonly pageSize?: number;
  /**
   * What is cached of each object the server sends (listed or watched), instead of the whole
   * object: a projection to the few fields the consumers read, so that a cache of thousands of
   * objects keeps kilobytes per object out of the heap. It runs on each LIST page as it arrives,
   * so the full objects of a page are garbage before the next page is read. The result must keep
   * `metadata.name`, `metadata.namespace` and `metadata.resourceVersion` (keys and change
   * detection use them). Seed items are cached as they are given.
   */
  readonly transform?: (obj: KubeObject) => T;
  /**
   * Each watch asks the server to end it after a random number of seconds in this range
   * (default 300–600, as client-go does) so that reconnects of many clients spread out.
   */
  readonly watchSeconds?: { readonly min: number; readonly max: number };
  /**
   * A watch that sends nothing for this long is considered dead and reconnected (default
   * {@link DEFAULT_WATCH_IDLE_MS}, or its timeoutSeconds + 30 s if that is shorter).
   */
  readonly idleTimeoutMs?: number;
  /** Deadline of each LIST page and of the watch's response headers (default 60 s). */
  readonly requestTimeoutMs?: number;
  /**
   * Reconnect backoff after errors other than 410 (default {@link WATCH_BACKOFF}: 0.5 s doubling
   * to 5 s, ±20 %). It restarts from its first delay once a LIST succeeds or the server accepts a
   * WATCH. Its cap is how late a cache may notice that its API server is back, so keep it low:
   * with 30 s an agent missed 15 s of a recovered control plane. A connection down for longer
   * than the cap relists when it comes back instead of resuming from its resourceVersion.
   */
  readonly backoff?: BackoffPolicy;
  readonly clock?: Clock;
  /** Source of randomness in [0, 1) for the backoff jitter. */
  readonly random?: () => number;
  /**
   * Start from a state saved earlier instead of listing: the watch resumes at its
   * resourceVersion; when that is too old the server answers 410 and the cache relists and
   * reports the differences. `synced()` resolves once the watch is established.
   */
  readonly seed?: { readonly resourceVersion: string; readonly items: readonly T[] };
  /**
   * Restart and backoff metrics; make them once per registry with `createWatchCacheMetrics` and
   * pass the same object to every cache of the process.
   */
  readonly metrics?: WatchCacheMetrics;
}

/** Counters for logs and tests. */
export interface WatchCacheStats {
  /** Complete LISTs done (the first one included). */
  readonly lists: number;
  /** Watch connections the server accepted. */
  readonly watches: number;
  /** 410 Gone answers (HTTP or ERROR event; of a WATCH, or of a LIST's continue token): each led to a relist. */
  readonly expired: number;
  /** Other failures (network, 5xx, timeouts, a watch that ended at once): each led to a backoff. */
  readonly errors: number;
  /** The reconnect delay being waited out now; 0 once a LIST or WATCH succeeded. */
  readonly backoffMs: number;
  /** The resourceVersion the next watch starts from. */
  readonly resourceVersion: string;
}

const DEFAULT_WATCH_SECONDS = { min: 300, max: 600 };
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/**
 * Two and a half minutes. kube-apiserver's watch cache sends a BOOKMARK to every watch that
 * allows them about once a minute (and right before its timeout), so a watch silent for 2.5
 * minutes sits on a dead connection: over HTTP/1.1, with no PING to tell, it would otherwise wait
 * for its own timeout (up to 10 minutes) while changes go unseen. A server that sends no such
 * bookmarks costs a quiet watch a reconnect from its resourceVersion every 2.5 minutes.
 */
export const DEFAULT_WATCH_IDLE_MS = 150_000;

/** How long a watch asked to end after `timeoutSeconds` may stay silent before it counts as dead. */
export function watchIdleTimeoutMs(idleTimeoutMs: number | undefined, timeoutSeconds: number): number {
  return idleTimeoutMs ?? Math.min(DEFAULT_WATCH_IDLE_MS, timeoutSeconds * 1000 + 30_000);
}

/** How one round of LIST (when needed) and WATCH ended. */
interface RoundEnd {
  readonly failure: Failure;
  readonly err?: unknown;
}

/**
 * A list+watch cache (informer) of one resource, over undici:
 * LIST page by page, then WATCH from the list's resourceVersion with bookmarks and a bounded
 * timeoutSeconds; a silent connection is dropped after `idleTimeoutMs`. BOOKMARKs only move the
 * resourceVersion. 410 Gone relists at once and reports the differences (ADDED / MODIFIED /
 * DELETED) so handlers converge; other errors reconnect after a jittered exponential backoff
 * and resume from the last resourceVersion, or relist when the connection was down for longer
 * than the backoff's cap. The rules are those of {@link decideRecovery}. Credentials are taken
 * from the KubeConfig on every connect.
 *
 * Objects handed out are deep-frozen: `structuredClone` before changing one.
 * Handlers run synchronously after the cache was updated.
 */
export class WatchCache<T extends KubeObject> implements ObjectSource<T> {
  private readonly opts: WatchCacheOptions<T>;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly store = new Map<string, T>();
  private readonly indexes = new Map<string, CacheIndex<T>>();
  private readonly handlers = new Set<ObjectEventHandler<T>>();
  private readonly reconnectListeners = new Set<(downForMs: number) => void>();
  private readonly syncedPromise: Promise<void>;
  private resolveSynced!: () => void;
  private rejectSynced!: (err: unknown) => void;
  private isSyncedFlag = false;
  private readonly firstListEndedPromise: Promise<void>;
  private resolveFirstListEnded!: () => void;
  private rv = '';
  private counts = { lists: 0, watches: 0, expired: 0, errors: 0 };
  private recovery: RecoveryState;
  private backoffMs = 0;
  private readonly metrics: BoundWatchMetrics | undefined;
  /** Events the current (or last) watch connection delivered. */
  private watchEvents = 0;
  /** Monotonic time the server accepted the current watch; undefined before it did. */
  private watchAcceptedAtMs: number | undefined;
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private transport: KubeTransport | undefined;

  constructor(opts: WatchCacheOptions<T>) {
    this.opts = opts;
    const r = opts.resource;
    const resource = r.group === '' ? r.plural : `${r.plural}.${r.group}`;
    this.log = opts.log.child({
      cache: resource,
      ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }),
    });
    this.metrics = opts.metrics?.forCache(resource);
    this.recovery = initialRecovery(opts.seed !== undefined);
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? Math.random;
    this.syncedPromise = new Promise<void>((resolve, reject) => {
      this.resolveSynced = resolve;
      this.rejectSynced = reject;
    });
    // Rejected only when stopped before the first list; awaiting callers still see it.
    this.syncedPromise.catch(() => undefined);
    this.firstListEndedPromise = new Promise<void>((resolve) => (this.resolveFirstListEnded = resolve));
  }

  /** The cached object for `name` or `namespace/name`. */
  get(key: string): T | undefined {
    return this.store.get(key);
  }

  /** The cached object for a name in a namespace (or a cluster-scoped name). */
  getIn(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(joinKey(namespace, name));
  }

  list(): readonly T[] {
    return [...this.store.values()];
  }

  /**
   * The index `name` of this cache (see {@link CacheIndex}), made from `valuesOf` on the first call
   * and returned as it is by later ones: a cache shared by several controllers is indexed once per
   * name, so every caller of one name must pass the same function.
   */
  index(name: string, valuesOf: (obj: T) => readonly string[]): CacheIndex<T> {
    let index = this.indexes.get(name);
    if (index === undefined) {
      index = new CacheIndex(valuesOf);
      index.addAll(this.store);
      this.indexes.set(name, index);
    }
    return index;
  }

  keys(): readonly string[] {
    return [...this.store.keys()];
  }

  /**
   * Calls `listener` each time the cache is connected again after failures (a complete LIST, or
   * a WATCH the server accepted), with how long it was down. Whoever judges others by silence
   * seen through this cache learns that it was blind meanwhile. Returns an unsubscribe function.
   */
  onReconnected(listener: (downForMs: number) => void): () => void {
    const l = (downForMs: number): void => {
      listener(downForMs);
    };
    this.reconnectListeners.add(l);
    return () => {
      this.reconnectListeners.delete(l);
    };
  }

  /** Calls `handler` for every later change; the returned function unsubscribes (idempotent). */
  onEvent(handler: ObjectEventHandler<T>): () => void {
    // A wrapper per subscription, so that subscribing the same function twice is two subscriptions.
    const h: ObjectEventHandler<T> = (type, obj, old) => {
      handler(type, obj, old);
    };
    this.handlers.add(h);
    return () => {
      this.handlers.delete(h);
    };
  }

  /** Resolves once the first complete list is in the cache; rejects if stopped before. */
  synced(): Promise<void> {
    return this.syncedPromise;
  }

  isSynced(): boolean {
    return this.isSyncedFlag;
  }

  /**
   * Resolves once the first attempt to fill the cache has ended: listed (see {@link synced}), failed
   * (a resource not served, the API server unreachable: the cache goes on retrying), or stopped.
   * Whoever waits for a whole process's caches to fill is then not held back by one that cannot.
   */
  firstListEnded(): Promise<void> {
    return this.firstListEndedPromise;
  }

  /**
   * Synced and connected: no LIST or WATCH has failed since the last success. While this is false
   * the content may be stale however recent it looks, so whoever judges others by silence seen
   * through this cache should wait (see {@link WatchCache.onReconnected}).
   */
  isLive(): boolean {
    return this.isSyncedFlag && this.recovery.downSinceMs === undefined;
  }

  stats(): WatchCacheStats {
    return { ...this.counts, backoffMs: this.backoffMs, resourceVersion: this.rv };
  }

  /** Starts listing and watching in the background (once); `signal` stops it like {@link stop}. */
  start(signal?: AbortSignal): void {
    if (this.abort !== undefined) return;
    const abort = new AbortController();
    this.abort = abort;
    if (signal !== undefined) {
      if (signal.aborted) abort.abort();
      else signal.addEventListener('abort', () => void this.stop(), { once: true });
    }
    this.transport = new KubeTransport(this.opts.kubeConfig, this.opts.transport);
    this.loop = this.runLoop(abort.signal);
  }

  /**
   * Starts (if needed) and resolves when `signal` aborted and the cache has stopped; the shape
   * of a Manager runnable: `manager.add({ name: 'clusters', start: (s) => cache.run(s) })`.
   * A cache runs once: after a stop it cannot be started again.
   */
  async run(signal: AbortSignal): Promise<void> {
    this.start(signal);
    await this.loop;
    await this.stop();
  }

  /** Stops watching, closes connections; resolves when done. The cache keeps its last content. */
  async stop(): Promise<void> {
    if (this.abort === undefined) {
      this.abort = new AbortController();
    }
    this.abort.abort();
    await this.loop;
    await this.transport?.close();
    this.setBackoff(0); // a stopped cache waits for nothing
    // An abort, not a failure: the runner and Manager treat AbortError as "asked to stop".
    if (!this.isSyncedFlag)
      this.rejectSynced(new DOMException('watch cache stopped before it synced', 'AbortError'));
    this.resolveFirstListEnded();
  }

  private async runLoop(signal: AbortSignal): Promise<void> {
    const seed = this.opts.seed;
    if (seed !== undefined) {
      this.relisted(
        seed.items.map((o) => deepFreeze(structuredClone(o))),
        seed.resourceVersion,
      );
    }
    while (!signal.aborted) {
      const end = await this.round(signal);
      const step = decideRecovery({
        state: this.recovery,
        failure: end.failure,
        nowMs: this.clock.monotonic(),
        policy: this.opts.backoff ?? WATCH_BACKOFF,
        random: this.random(),
      });
      if (step.kind === 'stop') return;
      this.recovery = step.state;
      this.report(step, end.err);
      if (step.delayMs > 0 && !(await this.wait(step.delayMs, signal))) return;
    }
  }

  /** One LIST (when the recovery state wants one) and one WATCH, until either ends. */
  private async round(signal: AbortSignal): Promise<RoundEnd> {
    let during: Failure['during'] = 'list';
    this.watchEvents = 0;
    this.watchAcceptedAtMs = undefined;
    try {
      if (this.recovery.needList) {
        await this.listAll(signal);
        this.succeeded('listed');
      }
      during = 'watch';
      await this.watchOnce(signal);
      return { failure: this.failure('closed', during) };
    } catch (err) {
      return { failure: this.failure(failureKind(err, signal), during), err };
    }
  }

  private failure(kind: FailureKind, during: Failure['during']): Failure {
    const accepted = this.watchAcceptedAtMs;
    return {
      kind,
      during,
      events: during === 'watch' ? this.watchEvents : 0,
      connectedMs: accepted === undefined ? 0 : this.clock.monotonic() - accepted,
    };
  }

  /** A complete LIST, or a WATCH the server accepted: the backoff starts over. */
  private succeeded(success: RecoverySuccess): void {
    const downSinceMs = this.recovery.downSinceMs;
    if (downSinceMs !== undefined) {
      const downForMs = Math.round(this.clock.monotonic() - downSinceMs);
      this.log.info({ downForMs, relisted: success === 'listed' }, 'reconnected');
      for (const l of [...this.reconnectListeners]) {
        try {
          l(downForMs);
        } catch (err) {
          this.log.error({ err }, 'reconnect listener threw');
        }
      }
    }
    this.recovery = afterSuccess(this.recovery, success);
    this.setBackoff(0);
  }

  /** Counts and logs a restart. */
  private report(step: Extract<RecoveryStep, { kind: 'retry' }>, err: unknown): void {
    this.metrics?.restarted(step.reason);
    if (!this.isSyncedFlag) this.resolveFirstListEnded();
    const relist = step.state.needList;
    if (step.reason === 'gone') {
      this.counts.expired++;
      this.log.info(
        { resourceVersion: this.rv, delayMs: step.delayMs },
        'resource version expired; relisting',
      );
    } else if (step.failed) {
      this.counts.errors++;
      const e = err === undefined ? new Error('watch ended at once without events') : toKubeError(err);
      this.log.warn(
        { err: e, attempt: step.state.attempt, delayMs: step.delayMs, relist },
        'watch failed; retrying',
      );
    } else {
      this.log.debug({ resourceVersion: this.rv }, 'watch closed by the server; resuming');
    }
  }

  /** Sleeps out a backoff; false when stopped meanwhile. */
  private async wait(delayMs: number, signal: AbortSignal): Promise<boolean> {
    this.setBackoff(delayMs);
    try {
      await this.clock.sleep(delayMs, signal);
      return true;
    } catch {
      return false;
    }
  }

  private setBackoff(delayMs: number): void {
    this.backoffMs = delayMs;
    this.metrics?.backoff(delayMs / 1000);
  }

  /**
   * LISTs page by page, one page ahead (see pages-ahead.ts), and replaces the cache content,
   * reporting the differences.
   */
  private async listAll(signal: AbortSignal): Promise<void> {
    const items: T[] = [];
    const last = await readPagesAhead(
      (cont) => this.fetchPage(signal, cont),
      (page) => {
        const kind = this.opts.resource.kind ?? page.kind?.replace(/List$/, '');
        for (const o of page.items ?? []) {
          items.push(deepFreeze(this.cached(withTypeMeta(o, page.apiVersion, kind))));
        }
      },
    );
    this.counts.lists++;
    this.relisted(items, last.metadata?.resourceVersion ?? '');
  }

  /** One page of the collection as the API server sent it. */
  private async fetchPage(signal: AbortSignal, cont: string | undefined): Promise<ListBody> {
    const q = this.query();
    q.set('limit', String(this.opts.pageSize ?? 500));
    if (cont !== undefined) q.set('continue', cont);
    return this.getJson<ListBody>(q, signal);
  }

  /** GET of the collection with a deadline; the JSON body, or a KubeError. */
  private async getJson<B>(q: URLSearchParams, signal: AbortSignal): Promise<B> {
    const conn = await this.connect();
    const timeoutMs = this.opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const deadline = callDeadline(timeoutMs, signal);
    try {
      const res = await requestWithin(`${conn.baseUrl}${this.path()}?${q.toString()}`, {
        dispatcher: conn.dispatcher,
        headers: { ...conn.headers, accept: 'application/json' },
        signal: deadline.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw kubeErrorFromResponse(res.statusCode, text, res.headers);
      return JSON.parse(text) as B;
    } finally {
      deadline.release();
    }
  }

  private relisted(items: readonly T[], rv: string): void {
    const deltas = diffRelist(this.store, items);
    this.applyChanges(deltas);
    this.rv = rv;
    this.log.debug({ items: items.length, changes: deltas.length, resourceVersion: rv }, 'listed');
    this.emitAll(deltas);
    if (this.opts.seed === undefined || this.counts.lists > 0) this.markSynced();
  }

  /**
   * One WATCH connection until the server ends it, an error is thrown, or the signal aborts.
   * Whether an end was healthy is {@link decideRecovery}'s call.
   */
  private async watchOnce(signal: AbortSignal): Promise<void> {
    const range = this.opts.watchSeconds ?? DEFAULT_WATCH_SECONDS;
    const timeoutSeconds = range.min + Math.floor(this.random() * (range.max - range.min + 1));
    const q = this.query();
    q.set('watch', 'true');
    q.set('allowWatchBookmarks', 'true');
    q.set('resourceVersion', this.rv);
    q.set('timeoutSeconds', String(timeoutSeconds));
    const conn = await this.connect();
    const res = await requestWithin(`${conn.baseUrl}${this.path()}?${q.toString()}`, {
      dispatcher: conn.dispatcher,
      headers: { ...conn.headers, accept: 'application/json' },
      signal,
      headersTimeout: this.opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      bodyTimeout: watchIdleTimeoutMs(this.opts.idleTimeoutMs, timeoutSeconds),
    });
    if (res.statusCode !== 200) {
      throw kubeErrorFromResponse(res.statusCode, await res.body.text(), res.headers);
    }
    this.counts.watches++;
    this.watchAcceptedAtMs = this.clock.monotonic();
    this.succeeded('watching');
    this.log.debug({ resourceVersion: this.rv, timeoutSeconds }, 'watching');
    if (this.opts.seed !== undefined) this.markSynced();
    const splitter = new LineSplitter();
    for await (const chunk of res.body) {
      for (const line of splitter.push(chunk as Buffer)) {
        this.handleLine(line);
        this.watchEvents++;
      }
    }
    for (const line of splitter.end()) {
      this.handleLine(line);
      this.watchEvents++;
    }
  }

  private handleLine(line: string): void {
    const ev = parseWatchEvent(line);
    switch (ev.type) {
      case 'BOOKMARK':
        if (ev.resourceVersion !== '') this.rv = ev.resourceVersion;
        return;
      case 'ERROR':
        throw kubeErrorFromStatus(ev.status);
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED': {
        const obj = deepFreeze(this.cached(ev.object));
        const delta = planWatchEvent(this.store, ev.type, obj);
        const rv = ev.object.metadata?.resourceVersion;
        if (rv !== undefined && rv !== '') this.rv = rv;
        if (delta === undefined) return;
        this.applyChanges([delta]);
        this.emit(delta);
        return;
      }
    }
  }

  /** Updates the store and its indexes (before any handler runs). */
  private applyChanges(deltas: readonly CacheDelta<T>[]): void {
    applyDeltas(this.store, deltas);
    for (const index of this.indexes.values()) index.apply(deltas);
  }

  /** What the cache keeps of an object from the server. */
  private cached(obj: KubeObject): T {
    return this.opts.transform === undefined ? (obj as T) : this.opts.transform(obj);
  }

  private emitAll(deltas: readonly CacheDelta<T>[]): void {
    for (const d of deltas) this.emit(d);
  }

  private emit(d: CacheDelta<T>): void {
    for (const h of [...this.handlers]) {
      try {
        if (d.type === 'ADDED') h(d.type, d.obj);
        else h(d.type, d.obj, d.old);
      } catch (err) {
        this.log.error({ err, key: d.key, event: d.type }, 'event handler threw');
      }
    }
  }

  private markSynced(): void {
    if (this.isSyncedFlag) return;
    this.isSyncedFlag = true;
    this.log.info({ objects: this.store.size }, 'synced');
    this.resolveSynced();
    this.resolveFirstListEnded();
  }

  private connect(): Promise<Connection> {
    if (this.transport === undefined) throw new Error('watch cache not started');
    return this.transport.connect();
  }

  private path(): string {
    return collectionPath(this.opts.resource, this.opts.namespace);
  }

  private query(): URLSearchParams {
    const q = new URLSearchParams();
    if (this.opts.labelSelector !== undefined) q.set('labelSelector', this.opts.labelSelector);
    if (this.opts.fieldSelector !== undefined) q.set('fieldSelector', this.opts.fieldSelector);
    return q;
  }
}

function failureKind(err: unknown, signal: AbortSignal): FailureKind {
  if (signal.aborted) return 'aborted';
  return toKubeError(err).code === 'Gone' ? 'gone' : 'error';
}
