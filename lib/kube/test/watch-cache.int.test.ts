import { setTimeout as delay } from 'node:timers/promises';
import { createLogger, createRegistry } from '@kf/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ResourceClient,
  WATCH_BACKOFF,
  WATCH_BACKOFF_NAME,
  WatchCache,
  createWatchCacheMetrics,
  type KubeObject,
  type ResourceDescriptor,
  type WatchCacheOptions,
} from '../src/index.ts';
import { startTestControlPlane, testNamespace, type TestControlPlane } from './control-plane.ts';

interface ConfigMap extends KubeObject {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly data?: Readonly<Record<string, string>>;
}

const CONFIG_MAPS: ResourceDescriptor = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  namespaced: true,
  kind: 'ConfigMap',
};
const NAMESPACES: ResourceDescriptor = {
  group: '',
  version: 'v1',
  plural: 'namespaces',
  namespaced: false,
  kind: 'Namespace',
};
const LABEL = { 'kf.test/watched': 'yes' };
const log = createLogger({ component: 'watch-cache-test', level: 'silent' });

/** Fast reconnects so that the test does not wait out production backoffs. */
const FAST = {
  backoff: { initialMs: 200, maxMs: 2_000, factor: 2, jitter: 0.2 },
  watchSeconds: { min: 30, max: 40 },
};

type Seen = [type: string, name: string, value: string | undefined];

describe('WatchCache against a real API server', () => {
  let cp: TestControlPlane;
  let cms: ResourceClient<ConfigMap>;
  const caches: WatchCache<ConfigMap>[] = [];

  beforeAll(async () => {
    cp = await startTestControlPlane('kube-watch');
    cms = new ResourceClient<ConfigMap>(cp.cluster.kubeConfig(), CONFIG_MAPS);
  });

  afterEach(async () => {
    await Promise.all(caches.splice(0).map((c) => c.stop()));
  });

  afterAll(async () => {
    await cp.destroy();
  });

  async function namespace(prefix: string): Promise<string> {
    const name = testNamespace(prefix);
    await new ResourceClient<KubeObject>(cp.cluster.kubeConfig(), NAMESPACES).create({ metadata: { name } });
    return name;
  }

  const cm = (
    ns: string,
    name: string,
    value: string,
    labels: Record<string, string> = LABEL,
  ): ConfigMap => ({
    metadata: { name, namespace: ns, labels },
    data: { value },
  });

  function cache(
    ns: string,
    extra: Partial<WatchCacheOptions<ConfigMap>> = {},
  ): {
    cache: WatchCache<ConfigMap>;
    seen: Seen[];
  } {
    const c = new WatchCache<ConfigMap>({
      kubeConfig: cp.cluster.kubeConfig(),
      resource: CONFIG_MAPS,
      namespace: ns,
      labelSelector: 'kf.test/watched=yes',
      pageSize: 2,
      log,
      ...FAST,
      ...extra,
    });
    const seen: Seen[] = [];
    c.onEvent((type, obj) => seen.push([type, obj.metadata?.name ?? '', obj.data?.value]));
    caches.push(c);
    return { cache: c, seen };
  }

  const contents = (c: WatchCache<ConfigMap>): Record<string, string | undefined> =>
    Object.fromEntries(c.list().map((o) => [o.metadata?.name ?? '', o.data?.value]));

  it('lists page by page, applies the label selector and follows changes', async () => {
    const ns = await namespace('follow');
    for (const n of ['a', 'b', 'c', 'd', 'e']) await cms.create(cm(ns, n, '1'));
    await cms.create(cm(ns, 'unlabelled', '1', {}));
    const { cache: c, seen } = cache(ns);
    c.start();
    await c.synced();
    expect(c.isSynced()).toBe(true);
    await c.firstListEnded();
    expect(contents(c)).toEqual({ a: '1', b: '1', c: '1', d: '1', e: '1' });
    expect(c.get(`${ns}/a`)?.kind).toBe('ConfigMap');
    expect(Object.isFrozen(c.get(`${ns}/a`)?.data)).toBe(true);

    await cms.mergePatch(`${ns}/a`, { data: { value: '2' } });
    await cms.delete(`${ns}/b`);
    await cms.create(cm(ns, 'f', '1'));
    await expect
      .poll(() => contents(c), { timeout: 10_000 })
      .toEqual({ a: '2', c: '1', d: '1', e: '1', f: '1' });
    expect(seen.slice(5)).toEqual([
      ['MODIFIED', 'a', '2'],
      ['DELETED', 'b', '1'],
      ['ADDED', 'f', '1'],
    ]);
  });

  it('reconnects after an API server restart and ends with the current state', async () => {
    const ns = await namespace('restart');
    for (const n of ['keep', 'change', 'drop']) await cms.create(cm(ns, n, '1'));
    const { cache: c, seen } = cache(ns);
    c.start();
    await c.synced();
    const watchesBefore = c.stats().watches;

    await cp.cluster.restartApiServer();
    // Changed right after the restart: the cache is still reconnecting (backing off).
    await cms.mergePatch(`${ns}/change`, { data: { value: '2' } });
    await cms.delete(`${ns}/drop`);
    await cms.create(cm(ns, 'new', '1'));

    await expect
      .poll(() => contents(c), { timeout: 60_000, interval: 250 })
      .toEqual({ keep: '1', change: '2', new: '1' });
    expect(c.stats().watches).toBeGreaterThan(watchesBefore);
    expect(c.stats().errors).toBeGreaterThan(0);
    expect(seen).toEqual(
      expect.arrayContaining<Seen>([
        ['MODIFIED', 'change', '2'],
        ['DELETED', 'drop', '1'],
        ['ADDED', 'new', '1'],
      ]),
    );

    await cms.mergePatch(`${ns}/keep`, { data: { value: '3' } });
    await expect.poll(() => c.get(`${ns}/keep`)?.data?.value, { timeout: 10_000 }).toBe('3');
  });

  it('is watching again within the backoff cap + 1 s after an outage longer than the cap, having relisted', async () => {
    const ns = await namespace('outage');
    await cms.create(cm(ns, 'a', '1'));
    const registry = createRegistry({ component: 'test', version: '0' });
    // The default backoff (0.5 s doubling to a 5 s cap, WATCH_BACKOFF), not the fast one of the other tests.
    const c = new WatchCache<ConfigMap>({
      kubeConfig: cp.cluster.kubeConfig(),
      resource: CONFIG_MAPS,
      namespace: ns,
      log,
      metrics: createWatchCacheMetrics(registry),
    });
    caches.push(c);
    const downs: number[] = [];
    c.onReconnected((downForMs) => downs.push(downForMs));
    c.start();
    await c.synced();
    const before = c.stats();
    expect(downs).toEqual([]); // the first connection is not a reconnection
    expect(c.isLive()).toBe(true);

    await cp.cluster.killApiServer();
    let backAtMs: number;
    try {
      // The outage itself: unreachable for longer than the cap, so the backoff has reached it.
      await delay(WATCH_BACKOFF.maxMs + 1_500);
      expect(c.stats().backoffMs).toBeGreaterThan(0);
      expect(c.isLive()).toBe(false); // its content may be stale now
      expect(await registry.getSingleMetricAsString(WATCH_BACKOFF_NAME)).toMatch(
        /karmada_failover_watch_backoff_seconds\{resource="configmaps"\} [1-9]/,
      );
    } finally {
      await cp.cluster.resumeApiServer(); // returns once /readyz answers 200
      backAtMs = performance.now();
    }

    await expect
      .poll(() => c.stats().watches > before.watches && c.stats().backoffMs === 0, {
        timeout: WATCH_BACKOFF.maxMs + 1_000,
        interval: 50,
      })
      .toBe(true);
    expect(performance.now() - backAtMs).toBeLessThan(WATCH_BACKOFF.maxMs + 1_000);
    // Down for longer than the cap: it listed afresh instead of resuming (and meeting a 410).
    expect(c.stats().lists).toBeGreaterThan(before.lists);
    expect(c.stats().expired).toBe(0);
    expect(c.stats().errors).toBeGreaterThan(before.errors);
    // Told once, with the length of the outage.
    expect(downs).toHaveLength(1);
    expect(c.isLive()).toBe(true);
    expect(downs[0]).toBeGreaterThan(WATCH_BACKOFF.maxMs);
    expect(await registry.getSingleMetricAsString(WATCH_BACKOFF_NAME)).toContain(
      'karmada_failover_watch_backoff_seconds{resource="configmaps"} 0',
    );

    await cms.mergePatch(`${ns}/a`, { data: { value: '2' } });
    await expect.poll(() => c.get(`${ns}/a`)?.data?.value, { timeout: 10_000 }).toBe('2');
  });

  it('relists when its resourceVersion is too old (410) and reports the differences', async () => {
    const ns = await namespace('expired');
    const same = await cms.create(cm(ns, 'same', '1'));
    const changed = await cms.create(cm(ns, 'changed', '1'));
    await cms.mergePatch(`${ns}/changed`, { data: { value: '2' } });
    await cms.create(cm(ns, 'added', '1'));
    const ghost: ConfigMap = {
      ...cm(ns, 'ghost', '1'),
      metadata: { name: 'ghost', namespace: ns, resourceVersion: '1' },
    };

    // A state saved long ago: resourceVersion 1 is far older than the server's watch window.
    const { cache: c, seen } = cache(ns, { seed: { resourceVersion: '1', items: [same, changed, ghost] } });
    c.start();
    await expect.poll(() => c.stats().expired, { timeout: 20_000 }).toBeGreaterThan(0);
    await c.synced();
    await expect
      .poll(() => contents(c), { timeout: 20_000 })
      .toEqual({ same: '1', changed: '2', added: '1' });
    expect(c.stats().lists).toBeGreaterThan(0);
    // The seed itself comes first (three ADDED), then the differences in list order, deletions last.
    expect(seen.slice(3)).toEqual([
      ['ADDED', 'added', '1'],
      ['MODIFIED', 'changed', '2'],
      ['DELETED', 'ghost', '1'],
    ]);
  });

  it('ends its first list without syncing when the resource is not served, and keeps trying', async () => {
    const c = new WatchCache<KubeObject>({
      kubeConfig: cp.cluster.kubeConfig(),
      resource: { group: 'nowhere.kf.test', version: 'v1', plural: 'ghosts', namespaced: true },
      log,
      ...FAST,
    });
    let synced = false;
    void c.synced().then(
      () => (synced = true),
      () => undefined,
    );
    c.start();
    try {
      await c.firstListEnded();
      expect(c.isSynced()).toBe(false);
      await expect.poll(() => c.stats().errors, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      expect(synced).toBe(false);
    } finally {
      await c.stop();
    }
  });

  it('rejects synced() when stopped before the first list', async () => {
    const { cache: c } = cache('never-synced', {
      kubeConfig: (() => {
        const kc = cp.cluster.kubeConfig();
        kc.clusters = kc.clusters.map((cl) => ({ ...cl, server: 'https://127.0.0.1:1' }));
        return kc;
      })(),
    });
    c.start();
    await c.stop();
    await expect(c.synced()).rejects.toThrow(/stopped before it synced/);
  });
});
