import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { ManualClock, createLogger, createRegistry } from '@kf/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import {
  WATCH_BACKOFF,
  WATCH_BACKOFF_NAME,
  WATCH_RESTARTS_NAME,
  WatchCache,
  createWatchCacheMetrics,
  type KubeObject,
  type ResourceDescriptor,
  type WatchCacheOptions,
} from '../src/index.ts';

/**
 * The watch protocol against a scripted loopback HTTP server: every corner a real API server
 * only shows now and then (bookmarks, 410 as event or status, 5xx, a silent connection).
 */

interface Obj extends KubeObject {
  readonly metadata: { readonly name: string; readonly resourceVersion: string };
}

const WORKS: ResourceDescriptor = {
  group: 'work.karmada.io',
  version: 'v1alpha1',
  plural: 'works',
  namespaced: false,
};
const log = createLogger({ component: 'watch-protocol-test', level: 'silent' });
const obj = (name: string, rv: string): Obj => ({ metadata: { name, resourceVersion: rv } });

type Reply = (res: ServerResponse) => void;

/** Ends the watch after writing these events. */
const events =
  (...lines: object[]): Reply =>
  (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    for (const l of lines) res.write(`${JSON.stringify(l)}\n`);
    res.end();
  };
/** Writes these events and keeps the watch open. */
const eventsThenHold =
  (...lines: object[]): Reply =>
  (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders(); // as the API server does: headers first, events when they happen
    for (const l of lines) res.write(`${JSON.stringify(l)}\n`);
  };
const status =
  (code: number, reason: string): Reply =>
  (res) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: reason }),
    );
  };
const list =
  (rv: string, ...items: Obj[]): Reply =>
  (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        apiVersion: 'work.karmada.io/v1alpha1',
        kind: 'WorkList',
        metadata: { resourceVersion: rv },
        items,
      }),
    );
  };

/** A fake API server: replies to LISTs and WATCHes from two scripts, in order; then holds watches open. */
class FakeApiServer {
  readonly requests: { url: URL; headers: IncomingMessage['headers'] }[] = [];
  private readonly server: Server;
  private readonly lists: Reply[];
  private readonly watches: Reply[];

  constructor(lists: Reply[], watches: Reply[]) {
    this.lists = lists;
    this.watches = watches;
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      this.requests.push({ url, headers: req.headers });
      const isWatch = url.searchParams.get('watch') === 'true';
      const reply = (isWatch ? this.watches : this.lists).shift();
      if (reply !== undefined) reply(res);
      else if (isWatch) eventsThenHold()(res);
      else status(500, 'InternalError')(res);
    });
  }

  async start(): Promise<KubeConfig> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    const { port } = this.server.address() as AddressInfo;
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'robot', token: 'secret-token' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'robot' }],
      currentContext: 'fake',
    });
    return kc;
  }

  watchRequests(): URLSearchParams[] {
    return this.requests
      .filter((r) => r.url.searchParams.get('watch') === 'true')
      .map((r) => r.url.searchParams);
  }

  listRequests(): number {
    return this.requests.filter((r) => r.url.searchParams.get('watch') !== 'true').length;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

describe('WatchCache protocol', () => {
  const cleanups: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(
    lists: Reply[],
    watches: Reply[],
    extra: Partial<WatchCacheOptions<Obj>> = {},
  ): Promise<{ server: FakeApiServer; cache: WatchCache<Obj>; seen: string[] }> {
    const server = new FakeApiServer(lists, watches);
    const kubeConfig = await server.start();
    cleanups.push(() => server.stop());
    const cache = new WatchCache<Obj>({
      kubeConfig,
      resource: WORKS,
      labelSelector: 'app=x',
      log,
      backoff: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0 },
      watchSeconds: { min: 300, max: 600 },
      ...extra,
    });
    const seen: string[] = [];
    cache.onEvent((type, o) => seen.push(`${type} ${o.metadata.name}@${o.metadata.resourceVersion}`));
    cleanups.push(() => cache.stop());
    cache.start();
    return { server, cache, seen };
  }

  const state = (c: WatchCache<Obj>): string[] =>
    c
      .list()
      .map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`)
      .sort();

  it('watches from the list, resumes from the last bookmark, and sends credentials and options', async () => {
    const { server, cache } = await setup(
      [list('10', obj('a', '1'))],
      [
        events(
          { type: 'ADDED', object: obj('b', '11') },
          { type: 'BOOKMARK', object: { metadata: { resourceVersion: '15' } } },
        ),
        eventsThenHold({ type: 'MODIFIED', object: obj('a', '16') }),
      ],
    );
    await expect.poll(() => state(cache)).toEqual(['a@16', 'b@11']);
    const [first, second] = server.watchRequests();
    expect(first?.get('resourceVersion')).toBe('10');
    expect(first?.get('allowWatchBookmarks')).toBe('true');
    expect(first?.get('labelSelector')).toBe('app=x');
    expect(Number(first?.get('timeoutSeconds'))).toBeGreaterThanOrEqual(300);
    expect(Number(first?.get('timeoutSeconds'))).toBeLessThanOrEqual(600);
    expect(second?.get('resourceVersion')).toBe('15');
    expect(server.requests.every((r) => r.headers.authorization === 'Bearer secret-token')).toBe(true);
    expect(server.requests[0]?.url.pathname).toBe('/apis/work.karmada.io/v1alpha1/works');
    expect(server.listRequests()).toBe(1);
  });

  it.each([
    [
      'an ERROR event with code 410',
      events({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } }),
    ],
    ['an HTTP 410', status(410, 'Gone')],
  ])('relists on %s and reports the differences', async (_name, expiry) => {
    const { server, cache, seen } = await setup(
      [list('10', obj('a', '1'), obj('b', '1')), list('20', obj('a', '2'), obj('c', '3'))],
      [expiry],
    );
    await expect.poll(() => state(cache)).toEqual(['a@2', 'c@3']);
    expect(seen).toEqual(['ADDED a@1', 'ADDED b@1', 'MODIFIED a@2', 'ADDED c@3', 'DELETED b@1']);
    await expect.poll(() => server.watchRequests().length).toBe(2);
    expect(server.watchRequests()[1]?.get('resourceVersion')).toBe('20');
    expect(cache.stats()).toMatchObject({ lists: 2, expired: 1, errors: 0 });
  });

  it('relists with backoff, not in a tight loop, when every watch answers 410 at once', async () => {
    const clock = new ManualClock();
    const { server, cache } = await setup(
      [list('10', obj('a', '1')), list('20', obj('a', '1')), list('30', obj('a', '2'))],
      [status(410, 'Gone'), status(410, 'Gone'), eventsThenHold()],
      { clock },
    );
    await expect.poll(() => clock.pendingSleeps()).toBe(1);
    expect(server.listRequests()).toBe(2);
    expect(server.watchRequests()).toHaveLength(2);
    await clock.advance(60_000);
    await expect.poll(() => state(cache)).toEqual(['a@2']);
    expect(server.listRequests()).toBe(3);
    expect(cache.stats()).toMatchObject({ lists: 3, expired: 2 });
  });

  it('backs off after a 500 and resumes from its resourceVersion without relisting', async () => {
    const { server, cache } = await setup(
      [list('10', obj('a', '1'))],
      [
        status(500, 'InternalError'),
        status(503, 'ServiceUnavailable'),
        eventsThenHold({ type: 'ADDED', object: obj('b', '11') }),
      ],
    );
    await expect.poll(() => state(cache)).toEqual(['a@1', 'b@11']);
    expect(server.watchRequests().map((q) => q.get('resourceVersion'))).toEqual(['10', '10', '10']);
    expect(server.listRequests()).toBe(1);
    expect(cache.stats()).toMatchObject({ lists: 1, errors: 2, expired: 0 });
  });

  /** The default backoff without jitter: 0.5, 1, 2, 4 s, then 5 s. */
  const exactDefault = { ...WATCH_BACKOFF, jitter: 0 };

  /** Lets the backoff sleep the cache is parked in run out, once it is parked in one. */
  async function sleepOut(clock: ManualClock, ms: number): Promise<void> {
    await expect.poll(() => clock.pendingSleeps()).toBe(1);
    await clock.advance(ms);
  }

  it('relists at once on a 410 after an outage, whatever the backoff counter says', async () => {
    const clock = new ManualClock();
    const registry = createRegistry({ component: 'test', version: '0' });
    const { server, cache, seen } = await setup(
      [list('10', obj('a', '1'), obj('b', '1')), list('20', obj('a', '2'))],
      [
        status(503, 'ServiceUnavailable'),
        status(503, 'ServiceUnavailable'),
        status(503, 'ServiceUnavailable'),
        status(410, 'Gone'),
        eventsThenHold(),
      ],
      { clock, backoff: exactDefault, metrics: createWatchCacheMetrics(registry) },
    );
    const gauge = 'karmada_failover_watch_backoff_seconds{resource="works.work.karmada.io"}';
    await expect.poll(() => clock.pendingSleeps()).toBe(1);
    expect(await registry.getSingleMetricAsString(WATCH_BACKOFF_NAME)).toContain(`${gauge} 0.5`);
    await sleepOut(clock, 500);
    await sleepOut(clock, 1_000);
    // 3.5 s down, within the 5 s cap: the next watch resumes from resourceVersion 10 and gets 410.
    await sleepOut(clock, 2_000);
    await expect.poll(() => state(cache)).toEqual(['a@2']);
    await expect.poll(() => server.watchRequests().length).toBe(5);
    expect(clock.pendingSleeps()).toBe(0); // relisted without waiting out the 4 s of a fourth attempt
    expect(server.watchRequests().map((q) => q.get('resourceVersion'))).toEqual([
      '10',
      '10',
      '10',
      '10',
      '20',
    ]);
    expect(seen.slice(2)).toEqual(['MODIFIED a@2', 'DELETED b@1']);
    expect(cache.stats()).toMatchObject({ lists: 2, expired: 1, errors: 3, backoffMs: 0 });
    const restarts = await registry.getSingleMetricAsString(WATCH_RESTARTS_NAME);
    expect(restarts).toContain('{resource="works.work.karmada.io",reason="error"} 3');
    expect(restarts).toContain('{resource="works.work.karmada.io",reason="gone"} 1');
    expect(await registry.getSingleMetricAsString(WATCH_BACKOFF_NAME)).toContain(`${gauge} 0`);
  });

  it('relists instead of resuming once it has been down for longer than the backoff cap', async () => {
    const clock = new ManualClock();
    const { server, cache, seen } = await setup(
      [list('10', obj('a', '1'), obj('b', '1')), list('30', obj('a', '3'), obj('c', '3'))],
      [
        status(503, 'ServiceUnavailable'),
        status(503, 'ServiceUnavailable'),
        status(503, 'ServiceUnavailable'),
        status(503, 'ServiceUnavailable'),
        eventsThenHold(),
      ],
      { clock, backoff: exactDefault },
    );
    await sleepOut(clock, 500);
    await sleepOut(clock, 1_000);
    await sleepOut(clock, 2_000);
    // The fourth failure at 3.5 s waits 4 s: the connection will have been down 7.5 s.
    await sleepOut(clock, 4_000);
    await expect.poll(() => state(cache)).toEqual(['a@3', 'c@3']);
    expect(seen.slice(2)).toEqual(['MODIFIED a@3', 'ADDED c@3', 'DELETED b@1']);
    expect(server.listRequests()).toBe(2);
    await expect.poll(() => server.watchRequests().length).toBe(5);
    expect(server.watchRequests()[4]?.get('resourceVersion')).toBe('30');
    expect(cache.stats()).toMatchObject({ lists: 2, watches: 1, expired: 0, errors: 4, backoffMs: 0 });
  });

  it('starts its backoff over after a watch the server accepted, even one that ended without events', async () => {
    const clock = new ManualClock();
    const dropped: Reply = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(); // accepted, then cut: no events
    };
    const { server } = await setup(
      [list('10', obj('a', '1'))],
      [status(503, 'ServiceUnavailable'), status(503, 'ServiceUnavailable'), dropped, status(503, 'x')],
      { clock, backoff: exactDefault },
    );
    await sleepOut(clock, 500);
    await sleepOut(clock, 1_000);
    // The third watch was accepted and dropped: its retry waits 0.5 s again, not 2 s.
    await sleepOut(clock, 500);
    await sleepOut(clock, 1_000);
    await expect.poll(() => server.watchRequests().length).toBe(5);
  });

  it('retries a failed first list and then syncs', async () => {
    const { cache } = await setup([status(503, 'ServiceUnavailable'), list('10', obj('a', '1'))], []);
    await cache.synced();
    expect(state(cache)).toEqual(['a@1']);
    expect(cache.stats().errors).toBe(1);
  });

  it('drops a watch that stays silent longer than idleTimeoutMs and reconnects', async () => {
    const { server, cache } = await setup(
      [list('10', obj('a', '1'))],
      [eventsThenHold(), eventsThenHold({ type: 'ADDED', object: obj('b', '11') })],
      { idleTimeoutMs: 300 },
    );
    await expect.poll(() => state(cache), { timeout: 5_000 }).toEqual(['a@1', 'b@11']);
    expect(server.watchRequests().length).toBeGreaterThanOrEqual(2);
    expect(cache.stats().errors).toBeGreaterThanOrEqual(1);
  });

  it('restarts the watch after a line that is not a watch event', async () => {
    const garbage: Reply = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"type":"ADDED","object":{"metadata":{"name":"b","resourceVersion":"11"}}}\nnot json\n');
    };
    const { server, cache } = await setup(
      [list('10', obj('a', '1'))],
      [garbage, eventsThenHold({ type: 'ADDED', object: obj('c', '12') })],
    );
    await expect.poll(() => state(cache)).toEqual(['a@1', 'b@11', 'c@12']);
    expect(server.watchRequests()[1]?.get('resourceVersion')).toBe('11');
  });

  it('keeps calling the other handlers when one throws, and unsubscribes', async () => {
    const { cache, seen } = await setup([list('10', obj('a', '1'))], [eventsThenHold()]);
    const off = cache.onEvent(() => {
      throw new Error('handler bug');
    });
    const second: string[] = [];
    const offSecond = cache.onEvent((type, o) => second.push(`${type} ${o.metadata.name}`));
    await cache.synced();
    expect(seen).toEqual(['ADDED a@1']);
    expect(second).toEqual(['ADDED a']);
    off();
    offSecond();
    offSecond();
  });

  it('caches and hands out what transform keeps of listed and watched objects', async () => {
    const big = (name: string, rv: string, size: number): object => ({
      ...obj(name, rv),
      spec: { size, payload: 'x'.repeat(1_000) },
    });
    const { cache, seen } = await setup(
      [list('10', big('a', '1', 1) as Obj, big('b', '1', 2) as Obj)],
      [
        eventsThenHold(
          { type: 'MODIFIED', object: big('a', '11', 3) },
          { type: 'DELETED', object: big('b', '12', 2) },
        ),
      ],
      {
        transform: (o) => {
          const m = o.metadata ?? {};
          const size = (o as { spec?: { size?: number } }).spec?.size ?? 0;
          return { metadata: { name: m.name ?? '', resourceVersion: `${m.resourceVersion ?? ''}/${size}` } };
        },
      },
    );
    await expect.poll(() => state(cache)).toEqual(['a@11/3']);
    expect(seen).toEqual(['ADDED a@1/1', 'ADDED b@1/2', 'MODIFIED a@11/3', 'DELETED b@12/2']);
    expect(cache.get('a')).toEqual({ metadata: { name: 'a', resourceVersion: '11/3' } });
    expect(Object.isFrozen(cache.get('a'))).toBe(true);
    // The watch resumes from the server's resourceVersion, whatever the transform kept.
    expect(cache.stats().resourceVersion).toBe('12');
  });

  it('hands out frozen objects with apiVersion and kind', async () => {
    const { cache } = await setup([list('10', obj('a', '1'))], [eventsThenHold()]);
    await cache.synced();
    const a = cache.get('a');
    expect(a).toMatchObject({ apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work' }); // filled in from the list
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a?.metadata)).toBe(true);
  });
});
