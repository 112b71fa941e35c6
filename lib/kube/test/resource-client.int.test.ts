import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { createLogger } from '@kf/runtime';
import { TcpProxy } from '@kf/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CORE_EVENT_RESOURCE,
  EventRecorder,
  LEASE_RESOURCE,
  OwnWrites,
  ResourceClient,
  formatMicroTime,
  kubeClients,
  updateWithRetry,
  type CoreEvent,
  type KubeObject,
  type Lease,
  type ResourceDescriptor,
  type TransportOptions,
} from '../src/index.ts';
import { startTestControlPlane, testNamespace, type TestControlPlane } from './control-plane.ts';
import { close, listen, tunnelConnects } from './http-proxy.ts';

interface ConfigMap extends KubeObject {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
  };
  readonly data?: Readonly<Record<string, string>>;
}

interface Namespace extends KubeObject {
  readonly status?: {
    readonly phase?: string;
    readonly conditions?: readonly { type: string; status: string }[];
  };
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
const log = createLogger({ component: 'resource-client-test', level: 'silent' });

describe('ResourceClient against a real API server', () => {
  let cp: TestControlPlane;
  let ns: string;
  let cms: ResourceClient<ConfigMap>;
  let namespaces: ResourceClient<Namespace>;

  beforeAll(async () => {
    cp = await startTestControlPlane('kube-client');
    cms = new ResourceClient<ConfigMap>(cp.cluster.kubeConfig(), CONFIG_MAPS);
    namespaces = new ResourceClient<Namespace>(cp.cluster.kubeConfig(), NAMESPACES);
    ns = testNamespace('client');
    await namespaces.create({ metadata: { name: ns } });
  });

  afterAll(async () => {
    await cp.destroy();
  });

  it('creates, reads, patches, applies and deletes a core object', async () => {
    const created = await cms.create({ metadata: { name: 'one', namespace: ns }, data: { a: '1' } });
    expect(created.metadata?.resourceVersion).toBeTruthy();
    expect((await cms.get(`${ns}/one`)).data).toEqual({ a: '1' });

    const patched = await cms.mergePatch(`${ns}/one`, { data: { b: '2', a: null } });
    expect(patched.data).toEqual({ b: '2' });

    const applied = await cms.apply(
      { metadata: { name: 'one', namespace: ns }, data: { c: '3' } },
      { fieldManager: 'kf-test' },
    );
    expect(applied.data).toMatchObject({ c: '3' });
    const appliedNew = await cms.apply(
      { metadata: { name: 'two', namespace: ns }, data: { x: '1' } },
      { fieldManager: 'kf-test' },
    );
    expect(appliedNew.data).toEqual({ x: '1' });

    await cms.delete(`${ns}/one`);
    await expect(cms.get(`${ns}/one`)).rejects.toMatchObject({
      name: 'KubeError',
      code: 'NotFound',
      status: 404,
    });
    expect(await cms.find(`${ns}/one`)).toBeUndefined();
    await expect(cms.delete(`${ns}/one`)).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('records what each write of a recording client returns, and nothing of its reads or failures', async () => {
    const own = new OwnWrites();
    const recording = cms.withOwnWrites(own);
    const created = await recording.create({ metadata: { name: 'own', namespace: ns }, data: { v: '1' } });
    const patched = await recording.mergePatch(`${ns}/own`, { data: { v: '2' } });
    const replaced = await recording.replace({ ...patched, data: { v: '3' } });
    const applied = await recording.apply(
      { metadata: { name: 'own', namespace: ns }, data: { v: '4' } },
      { fieldManager: 'kf-test' },
    );
    const byOthers = await cms.mergePatch(`${ns}/own`, { data: { v: '5' } });
    await recording.get(`${ns}/own`);
    await expect(recording.create({ metadata: { name: 'own', namespace: ns } })).rejects.toMatchObject({
      code: 'AlreadyExists',
    });
    // Four writes kept per object: each is an echo once, and the plain client's write is none.
    expect(own.isEcho(byOthers)).toBe(false);
    for (const w of [created, patched, replaced, applied]) expect(own.isEcho(w)).toBe(true);
    expect(own.size).toBe(0);
  });

  /** The protocols a fresh client's connections agreed on with the API server. */
  async function negotiated(
    transport: TransportOptions = {},
    kc = cp.cluster.kubeConfig(),
  ): Promise<Set<string | false | null>> {
    const protocols: (string | false | null)[] = [];
    const onConnected = (message: unknown): void => {
      const { alpnProtocol } = (message as { socket: Partial<TLSSocket> }).socket;
      // A plain TCP connection (to a proxy) has none.
      if (alpnProtocol !== undefined) protocols.push(alpnProtocol);
    };
    subscribe('undici:client:connected', onConnected);
    try {
      const fresh = new ResourceClient<ConfigMap>(kc, CONFIG_MAPS, { transport });
      await Promise.all([fresh.list({ namespace: ns }), fresh.list({ namespace: ns })]);
    } finally {
      unsubscribe('undici:client:connected', onConnected);
    }
    return new Set(protocols);
  }

  it('offers HTTP/2, which the API server takes, unless told to speak HTTP/1.1 only', async () => {
    expect(await negotiated()).toEqual(new Set(['h2']));
    expect(await negotiated({ offerHttp2: false })).toEqual(new Set(['http/1.1']));
  });

  it('chooses the protocol the same way through an HTTP proxy (proxy-url)', async () => {
    const tunnelled: string[] = [];
    const proxy = createServer();
    tunnelConnects(proxy, tunnelled);
    const port = await listen(proxy);
    try {
      const viaProxy = cp.cluster.kubeConfig();
      viaProxy.clusters = viaProxy.clusters.map((c) => ({ ...c, proxyUrl: `http://127.0.0.1:${port}` }));
      expect(await negotiated({}, viaProxy)).toEqual(new Set(['h2']));
      expect(await negotiated({ offerHttp2: false }, viaProxy)).toEqual(new Set(['http/1.1']));
      expect(tunnelled.length).toBeGreaterThanOrEqual(2);
    } finally {
      await close(proxy);
    }
  });

  it('reports AlreadyExists, Conflict and Invalid as codes', async () => {
    const obj = await cms.create({ metadata: { name: 'codes', namespace: ns }, data: { v: '1' } });
    await expect(cms.create({ metadata: { name: 'codes', namespace: ns } })).rejects.toMatchObject({
      code: 'AlreadyExists',
    });
    await cms.mergePatch(`${ns}/codes`, { data: { v: '2' } });
    await expect(cms.replace({ ...obj, data: { v: 'stale' } })).rejects.toMatchObject({
      code: 'Conflict',
      status: 409,
    });
    await expect(cms.create({ metadata: { name: 'Not_Valid', namespace: ns } })).rejects.toMatchObject({
      code: 'Invalid',
      status: 422,
    });
    await expect(
      cms.delete(`${ns}/codes`, { preconditions: { resourceVersion: obj.metadata?.resourceVersion ?? '' } }),
    ).rejects.toMatchObject({ code: 'Conflict' });
  });

  it('has every write refuse a field the schema does not know, instead of dropping it', async () => {
    const unknown = { metadata: { name: 'strict', namespace: ns }, data: { v: '1' }, dataa: { v: '2' } };
    await expect(cms.create(unknown as ConfigMap)).rejects.toThrow(
      /unknown field|field not declared in schema/,
    );
    await expect(cms.find(`${ns}/strict`)).resolves.toBeUndefined();
    const obj = await cms.create({ metadata: { name: 'strict', namespace: ns }, data: { v: '1' } });
    await expect(cms.replace({ ...obj, dataa: { v: '2' } } as ConfigMap)).rejects.toThrow(
      /unknown field|field not declared in schema/,
    );
    await expect(cms.mergePatch(`${ns}/strict`, { dataa: { v: '2' } })).rejects.toThrow(
      /unknown field|field not declared in schema/,
    );
    await expect(
      cms.apply({ ...unknown, apiVersion: 'v1', kind: 'ConfigMap' }, { fieldManager: 'test' }),
    ).rejects.toThrow(/unknown field|field not declared in schema/);
    // What was refused left the object as it was.
    expect((await cms.get(`${ns}/strict`)).data).toEqual({ v: '1' });
  });

  it('retries a read-mutate-write on Conflict', async () => {
    await cms.create({ metadata: { name: 'counter', namespace: ns }, data: { n: '0' } });
    let reads = 0;
    const result = await updateWithRetry<ConfigMap>({
      read: async () => {
        reads++;
        const cur = await cms.get(`${ns}/counter`);
        if (reads === 1) await cms.mergePatch(`${ns}/counter`, { data: { n: '10' } }); // a concurrent writer
        return cur;
      },
      mutate: (cur) => ({ ...cur, data: { n: String(Number(cur.data?.n ?? '0') + 1) } }),
      write: (next) => cms.replace(next),
    });
    expect(reads).toBe(2);
    expect(result.data).toEqual({ n: '11' });
  });

  it('lists page by page', async () => {
    const pns = testNamespace('paged');
    await namespaces.create({ metadata: { name: pns } });
    for (let i = 0; i < 7; i++) await cms.create({ metadata: { name: `cm-${i}`, namespace: pns } });
    const page = await cms.listPage({ namespace: pns, pageSize: 3 });
    expect(page.items).toHaveLength(3);
    expect(page.continue).toBeTruthy();
    const all = await cms.list({ namespace: pns, pageSize: 3 });
    expect(all.items.map((o) => o.metadata?.name).sort()).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((i) => `cm-${i}`),
    );
    expect(all.resourceVersion).toMatch(/^\d+$/);
  });

  it('writes status through the status subresource of a cluster-scoped object', async () => {
    const patched = await namespaces.patchStatus(ns, {
      status: { conditions: [{ type: 'KfTest', status: 'True' }] },
    });
    expect(patched.status?.conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'KfTest' })]),
    );
    const replaced = await namespaces.replaceStatus({
      ...patched,
      status: { ...patched.status, conditions: [{ type: 'KfTest', status: 'False' }] },
    });
    expect(replaced.status?.conditions).toEqual([
      expect.objectContaining({ type: 'KfTest', status: 'False' }),
    ]);
  });

  it('writes Leases with MicroTime fields in another API group', async () => {
    const leases = new ResourceClient<Lease>(cp.cluster.kubeConfig(), LEASE_RESOURCE);
    const now = formatMicroTime(Date.now());
    const lease = await leases.create({
      metadata: { name: 'micro', namespace: ns },
      spec: { holderIdentity: 'x', leaseDurationSeconds: 10, renewTime: now, acquireTime: now },
    });
    expect(lease.spec?.renewTime).toBe(now);
  });

  it('gives typed clients with a deadline on every call', async () => {
    const clients = kubeClients(cp.cluster.kubeConfig(), { timeoutMs: 5_000 });
    const list = await clients.core.listNamespace();
    expect(list.items.map((n) => n.metadata?.name)).toContain(ns);
    expect(clients.core).toBe(clients.core);
  });
});

describe('EventRecorder against a real API server', () => {
  let cp: TestControlPlane;

  beforeAll(async () => {
    cp = await startTestControlPlane('kube-events');
  });

  afterAll(async () => {
    await cp.destroy();
  });

  it('writes one Event per repeated occurrence and bumps its count', async () => {
    const kc = cp.cluster.kubeConfig();
    const events = new ResourceClient<CoreEvent>(kc, CORE_EVENT_RESOURCE);
    const recorder = new EventRecorder({ kubeConfig: kc, component: 'kf-test', instance: 'here', log });
    const cluster = {
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'member1', uid: 'u-1' },
    };

    recorder.record(cluster, 'Warning', 'LeaseExpired', 'The agent stopped renewing its lease.');
    recorder.record(cluster, 'Warning', 'LeaseExpired', 'The agent stopped renewing its lease.');
    recorder.record(cluster, 'Warning', 'LeaseExpired', 'The agent stopped renewing its lease.');
    recorder.record(cluster, 'Normal', 'Ready', 'The agent renews its lease again.');
    await recorder.flush();

    const written = (
      await events.list({ namespace: 'default', fieldSelector: 'involvedObject.name=member1' })
    ).items;
    const byReason = Object.fromEntries(written.map((e) => [e.reason, e]));
    expect(written).toHaveLength(2);
    expect(byReason.LeaseExpired).toMatchObject({
      type: 'Warning',
      count: 3,
      message: 'The agent stopped renewing its lease.',
      involvedObject: { kind: 'Cluster', name: 'member1', uid: 'u-1' },
      source: { component: 'kf-test', host: 'here' },
    });
    expect(byReason.Ready).toMatchObject({ type: 'Normal', count: 1 });
  });

  it('drops what a full queue cannot hold and tells of the drops in two log lines, not one each', async () => {
    const lines: { msg?: string; dropped?: number }[] = [];
    const recorder = new EventRecorder({
      kubeConfig: cp.cluster.kubeConfig(),
      component: 'kf-test',
      log: createLogger({
        component: 'drops-test',
        level: 'warn',
        destination: { write: (line: string) => void lines.push(JSON.parse(line) as { dropped?: number }) },
      }),
      pace: { ratePerSecond: 1, burst: 1 },
      maxPending: 2,
    });
    for (let i = 0; i < 50; i++)
      recorder.record({ name: 'crowded' }, 'Normal', 'Crowded', `event ${String(i)}`);
    await recorder.flush();
    recorder.record({ name: 'crowded' }, 'Normal', 'Crowded', 'room again');
    await recorder.flush();

    const told = lines.filter((l) => l.dropped !== undefined);
    expect(told.map((l) => l.msg)).toEqual([
      'too many events pending; events dropped',
      'events dropped while too many were pending',
    ]);
    expect(told.reduce((n, l) => n + (l.dropped ?? 0), 0)).toBe(48);
    const written = await new ResourceClient<CoreEvent>(cp.cluster.kubeConfig(), CORE_EVENT_RESOURCE).list({
      namespace: 'default',
      fieldSelector: 'involvedObject.name=crowded',
    });
    expect(written.items).toHaveLength(3);
  });

  it('writes at its pace, with the time each event was recorded, and lifts the pace to flush', async () => {
    const kc = cp.cluster.kubeConfig();
    const events = new ResourceClient<CoreEvent>(kc, CORE_EVENT_RESOURCE);
    const recorder = new EventRecorder({
      kubeConfig: kc,
      component: 'kf-test',
      log,
      pace: { ratePerSecond: 1, burst: 2 },
    });
    const written = async (): Promise<CoreEvent[]> =>
      (await events.list({ namespace: 'default', fieldSelector: 'involvedObject.name=paced' })).items;
    const recordStartedAt = Date.now();
    for (let i = 0; i < 6; i++) recorder.record({ name: 'paced' }, 'Normal', 'Paced', `event ${String(i)}`);
    // The loop may cross a second boundary, so the stamps are bounded by both ends of it.
    const recordEndedAt = Date.now();

    // The burst of two at once, then one a second: not all six after 1.5 s.
    await new Promise((r) => setTimeout(r, 1_500));
    const early = (await written()).length;
    expect(early).toBeGreaterThanOrEqual(2);
    expect(early).toBeLessThanOrEqual(4);
    expect(recorder.waiting).toBeGreaterThan(0);
    expect(recorder.waiting).toBeLessThanOrEqual(6 - early);

    const flushStartedAt = Date.now();
    await recorder.flush();
    expect(Date.now() - flushStartedAt).toBeLessThan(1_500); // not the 2 s and more the pace would take
    expect(recorder.waiting).toBe(0);
    const all = await written();
    expect(all).toHaveLength(6);
    for (const e of all) {
      // Stamped when recorded (second precision), not when the pace let it through.
      const stampedMs = Date.parse(e.firstTimestamp ?? '');
      expect(stampedMs).toBeGreaterThanOrEqual(Math.floor(recordStartedAt / 1000) * 1000);
      expect(stampedMs).toBeLessThanOrEqual(recordEndedAt);
    }
  });

  it('slows to its busy rate while the process is busy, and comes back to its pace after', async () => {
    const kc = cp.cluster.kubeConfig();
    const events = new ResourceClient<CoreEvent>(kc, CORE_EVENT_RESOURCE);
    let busy = true;
    const recorder = new EventRecorder({
      kubeConfig: kc,
      component: 'kf-test',
      log,
      // Idle, the whole burst of 20 would go at once; busy, one write a second.
      pace: { ratePerSecond: 100, burst: 20, busyRatePerSecond: 1 },
      busy: () => busy,
    });
    const written = async (): Promise<number> =>
      (await events.list({ namespace: 'default', fieldSelector: 'involvedObject.name=busy' })).items.length;
    for (let i = 0; i < 10; i++) recorder.record({ name: 'busy' }, 'Normal', 'Busy', `event ${String(i)}`);

    await new Promise((r) => setTimeout(r, 1_500));
    const whileBusy = await written();
    expect(whileBusy).toBeGreaterThanOrEqual(1);
    expect(whileBusy).toBeLessThanOrEqual(3);
    expect(recorder.waiting).toBeGreaterThan(0);

    busy = false;
    await expect.poll(written, { timeout: 5_000, interval: 100 }).toBe(10);
    expect(recorder.waiting).toBe(0);
  });

  it('writes an event whose first tries met a cut link once the link is back, and only once', async () => {
    const kc = cp.cluster.kubeConfig();
    const proxy = await TcpProxy.start({ target: kc.getCurrentCluster()?.server ?? '' });
    try {
      const viaProxy = cp.cluster.kubeConfig();
      viaProxy.clusters = viaProxy.clusters.map((c) => ({ ...c, server: proxy.url }));
      const recorder = new EventRecorder({
        kubeConfig: viaProxy,
        component: 'kf-test',
        log,
        timeoutMs: 2_000,
      });
      proxy.cut();
      recorder.record({ name: 'retried' }, 'Warning', 'ClockOffset', 'Told once, though the link was cut.');
      // The first try fails at once (connection reset); the second is 1 s later, the third 2 s after.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(recorder.waiting).toBe(1);
      proxy.restore();
      const events = new ResourceClient<CoreEvent>(kc, CORE_EVENT_RESOURCE);
      const written = async () =>
        (await events.list({ namespace: 'default', fieldSelector: 'involvedObject.name=retried' })).items;
      await expect.poll(async () => (await written()).length, { timeout: 10_000, interval: 200 }).toBe(1);
      expect(recorder.waiting).toBe(0);
      expect((await written())[0]).toMatchObject({ reason: 'ClockOffset', count: 1 });
    } finally {
      await proxy.close();
    }
  });

  it('never throws into the caller when writing fails', async () => {
    const kc = cp.cluster.kubeConfig();
    kc.clusters = kc.clusters.map((c) => ({ ...c, server: 'https://127.0.0.1:1' }));
    const recorder = new EventRecorder({ kubeConfig: kc, component: 'kf-test', log, timeoutMs: 2_000 });
    expect(() => {
      recorder.record({ name: 'x' }, 'Normal', 'R', 'm');
    }).not.toThrow();
    await expect(recorder.flush()).resolves.toBeUndefined();
  });
});
