import { KubeError } from '@kf/kube';
import { ManualClock, createLogger, createRegistry } from '@kf/runtime';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Exchanger, ExchangeOutcome } from '../dns/transport.ts';
import type { NodeCondition } from '../health/node-condition.ts';
import { createProbeMetrics, type ProbeMetrics } from '../metrics.ts';
import type { NodeConditionStore } from './node-status.ts';
import { NodeProber, type ProberConfig } from './prober.ts';

const START = Date.UTC(2026, 10, 22, 5, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
const CONFIG: ProberConfig = {
  names: ['kubernetes.default'],
  recordType: 'A',
  resolvConfPath: '/etc/resolv.conf',
  nameserverPort: 53,
  periodMs: 5_000,
  hold: { toFalseMs: 30_000, toTrueMs: 20_000 },
  staleThresholdMs: 60_000,
  heartbeatIntervalMs: 15_000,
};
const RESOLV_CONF = 'nameserver 10.96.0.10\nsearch svc.cluster.local\noptions ndots:5\n';
const ANSWER: ExchangeOutcome = { kind: 'reply', rcode: 'NOERROR', addresses: ['10.96.0.1'] };
const REFUSED: ExchangeOutcome = { kind: 'error', code: 'ECONNREFUSED', message: 'refused' };

interface Harness {
  readonly clock: ManualClock;
  readonly prober: NodeProber;
  readonly writes: { readonly atMs: number; readonly condition: NodeCondition }[];
  readonly metrics: ProbeMetrics;
  /** What the DNS server does now. */
  dns: ExchangeOutcome;
  /** The condition on the Node, or an error for load/write. */
  onNode: NodeCondition | undefined;
  loadError: Error | undefined;
  writeError: Error | undefined;
  resolvConf: string | Error;
  /** Starts the loop and waits until its first round parked. */
  run(): Promise<void>;
  /** Moves time on and waits until the loop parked again. */
  advance(ms: number): Promise<void>;
}

const running: { stop: AbortController; done: Promise<void> }[] = [];

afterEach(async () => {
  for (const r of running.splice(0)) {
    r.stop.abort();
    await r.done;
  }
});

function harness(config: ProberConfig = CONFIG): Harness {
  const clock = new ManualClock(START);
  const metrics = createProbeMetrics(createRegistry({ component: 'probe', version: 'test' }));
  const h: Harness = {
    clock,
    writes: [],
    metrics,
    dns: ANSWER,
    onNode: undefined,
    loadError: undefined,
    writeError: undefined,
    resolvConf: RESOLV_CONF,
    prober: undefined as unknown as NodeProber,
    run: async () => {
      const stop = new AbortController();
      running.push({ stop, done: h.prober.start(stop.signal) });
      await parked();
    },
    advance: async (ms) => {
      await clock.advance(ms);
      await parked();
    },
  };
  const parked = (): Promise<void> =>
    vi.waitFor(() => {
      expect(clock.pendingSleeps()).toBe(1);
    });
  const exchanger: Exchanger = () => Promise.resolve({ transport: 'udp', outcome: h.dns, latencyMs: 1 });
  const store: NodeConditionStore = {
    load: () => (h.loadError === undefined ? Promise.resolve(h.onNode) : Promise.reject(h.loadError)),
    write: (c) => {
      if (h.writeError !== undefined) return Promise.reject(h.writeError);
      h.onNode = c;
      h.writes.push({ atMs: clock.monotonic(), condition: c });
      return Promise.resolve(c);
    },
  };
  Object.assign(h, {
    prober: new NodeProber({
      config,
      store,
      exchanger,
      clock,
      log: createLogger({ component: 'probe', level: 'silent' }),
      metrics,
      readResolvConf: () =>
        typeof h.resolvConf === 'string' ? Promise.resolve(h.resolvConf) : Promise.reject(h.resolvConf),
    }),
  });
  return h;
}

const statuses = (h: Harness): string[] => h.writes.map((w) => w.condition.status);

describe('NodeProber', () => {
  it('publishes the first observation at once when the Node has no verdict', async () => {
    const h = harness();
    await h.run();
    expect(h.writes).toEqual([
      {
        atMs: 0,
        condition: {
          type: 'ServiceDomainNameResolutionReady',
          status: 'True',
          reason: 'ServiceDomainNameResolutionReady',
          message: 'kubernetes.default resolves (kubernetes.default.svc.cluster.local)',
          lastHeartbeatTime: iso(START),
          lastTransitionTime: iso(START),
        },
      },
    ]);
    expect(() => h.prober.readiness()()).not.toThrow();
  });

  it('reports False exactly when failures lasted the failure threshold, not a period later', async () => {
    const h = harness();
    await h.run();
    await h.advance(5_000);
    h.dns = REFUSED;
    await h.advance(2_000); // the round at 10 s sees the first failure
    await h.advance(3_000);
    for (let i = 0; i < 5; i++) await h.advance(5_000); // rounds at 15…35 s: still True
    expect(statuses(h).every((s) => s === 'True')).toBe(true);
    await h.advance(5_000); // the round at 40 s: failures lasted 30 s
    const flip = h.writes.find((w) => w.condition.status === 'False');
    expect(flip?.atMs).toBe(40_000);
    expect(flip?.condition).toMatchObject({
      reason: 'ServiceDomainNameResolutionFailed',
      message:
        'kubernetes.default did not resolve: 10.96.0.10:53 over udp: connection refused for kubernetes.default.svc.cluster.local',
      lastTransitionTime: iso(START + 40_000),
    });
  });

  it('wakes at the threshold even when it falls between rounds', async () => {
    const h = harness({ ...CONFIG, hold: { toFalseMs: 7_000, toTrueMs: 7_000 } });
    await h.run();
    h.dns = REFUSED;
    await h.advance(5_000); // first failure at 5 s; the threshold is crossed at 12 s
    await h.advance(5_000); // round at 10 s
    await h.advance(2_000); // an extra round at 12 s, not 15 s
    expect(h.writes.at(-1)).toMatchObject({ atMs: 12_000, condition: { status: 'False' } });
  });

  it('a failure shorter than the threshold changes nothing on the Node', async () => {
    const h = harness();
    await h.run();
    h.dns = REFUSED;
    await h.advance(5_000);
    h.dns = ANSWER;
    for (let i = 0; i < 12; i++) await h.advance(5_000);
    expect(
      new Set(h.writes.map((w) => `${w.condition.status} ${w.condition.lastTransitionTime ?? ''}`)),
    ).toEqual(new Set([`True ${iso(START)}`]));
  });

  it('writes an unchanged verdict only as a heartbeat, every heartbeat interval', async () => {
    const h = harness();
    await h.run();
    for (let i = 0; i < 6; i++) await h.advance(5_000);
    expect(h.writes.map((w) => w.atMs)).toEqual([0, 15_000, 30_000]);
  });

  it('continues a fresh verdict found on the Node instead of flipping at once', async () => {
    const h = harness();
    h.onNode = {
      type: 'ServiceDomainNameResolutionReady',
      status: 'False',
      reason: 'ServiceDomainNameResolutionFailed',
      message: 'old cause',
      lastHeartbeatTime: iso(START - 10_000),
      lastTransitionTime: iso(START - 600_000),
    };
    await h.run();
    expect(h.writes).toHaveLength(0); // heartbeat 10 s old: nothing due yet
    for (let i = 0; i < 3; i++) await h.advance(5_000);
    expect(statuses(h)).toEqual(['False']); // the heartbeat at 5 s
    expect(h.writes[0]?.condition).toMatchObject({
      message: 'old cause',
      lastTransitionTime: iso(START - 600_000),
    });
    await h.advance(5_000); // successes since 0 s lasted the 20 s success threshold
    expect(h.writes.at(-1)).toMatchObject({
      atMs: 20_000,
      condition: { status: 'True', lastTransitionTime: iso(START + 20_000) },
    });
  });

  it('does not continue a stale verdict found on the Node', async () => {
    const h = harness();
    h.onNode = {
      type: 'ServiceDomainNameResolutionReady',
      status: 'False',
      lastHeartbeatTime: iso(START - 61_000),
      lastTransitionTime: iso(START - 600_000),
    };
    await h.run();
    expect(h.writes[0]?.condition).toMatchObject({ status: 'True', lastTransitionTime: iso(START) });
  });

  it('writes nothing until the Node could be read, then carries on', async () => {
    const h = harness();
    h.loadError = new KubeError('Unavailable', 'down');
    await h.run();
    await h.advance(5_000);
    expect(h.writes).toHaveLength(0);
    expect(() => h.prober.readiness()()).toThrow('the Node could not be read yet');
    h.loadError = undefined;
    await h.advance(5_000);
    expect(statuses(h)).toEqual(['True']);
    expect(() => h.prober.readiness()()).not.toThrow();
  });

  it('is not ready while writes fail, and counts them', async () => {
    const h = harness();
    h.writeError = new KubeError('Forbidden', 'nodes/status is forbidden');
    await h.run();
    expect(() => h.prober.readiness()()).toThrow('writing the Node condition fails');
    h.writeError = undefined;
    await h.advance(5_000);
    expect(() => h.prober.readiness()()).not.toThrow();
    const values = (await h.metrics.nodeWrites.get()).values.map((v) => [v.labels.result, v.value]);
    expect(Object.fromEntries(values)).toEqual({ success: 1, conflict: 0, error: 1 });
  });

  it.each([
    [
      'becomes a directory',
      Object.assign(new Error('illegal operation on a directory'), { code: 'EISDIR' }),
      '--resolv-conf /etc/resolv.conf is a directory, not a file (EISDIR)',
    ],
    [
      'disappears',
      Object.assign(new Error('no such file'), { code: 'ENOENT' }),
      '--resolv-conf /etc/resolv.conf does not exist (ENOENT)',
    ],
    [
      'turns into another file',
      'root:x:0:0:root:/root:/bin/bash\n',
      '--resolv-conf /etc/resolv.conf has no resolv.conf line (nameserver, search, domain, options)',
    ],
  ])(
    'reports nothing new when resolv.conf %s: a configuration error is not a DNS failure',
    async (_name, bad, problem) => {
      const h = harness({ ...CONFIG, hold: { toFalseMs: 0, toTrueMs: 0 } });
      await h.run();
      const before = h.writes.length;
      h.resolvConf = bad;
      for (let i = 0; i < 30; i++) await h.advance(5_000); // well past the heartbeat interval
      expect(h.writes.length).toBe(before); // no False, and no heartbeat keeping True fresh
      expect(h.onNode?.status).toBe('True');
      expect(() => h.prober.readiness()()).toThrow(problem);
      expect(() => h.prober.liveness(10_000)()).not.toThrow();
      expect((await h.metrics.resolvConfUsable.get()).values[0]?.value).toBe(0);
      h.resolvConf = RESOLV_CONF;
      await h.advance(5_000);
      expect(() => h.prober.readiness()()).not.toThrow();
      expect((await h.metrics.resolvConfUsable.get()).values[0]?.value).toBe(1);
      expect(h.writes.at(-1)?.condition.status).toBe('True');
    },
  );

  it('reports the verdict in the node_verdict gauge', async () => {
    const h = harness({ ...CONFIG, hold: { toFalseMs: 0, toTrueMs: 0 } });
    await h.run();
    h.dns = REFUSED;
    await h.advance(5_000);
    const values = (await h.metrics.nodeVerdict.get()).values.map((v) => [v.labels.status, v.value]);
    expect(Object.fromEntries(values)).toEqual({ True: 0, False: 1 });
  });

  it('is healthy while rounds keep finishing', async () => {
    const h = harness();
    await h.run();
    for (let i = 0; i < 4; i++) await h.advance(5_000);
    expect(() => h.prober.liveness(10_000)()).not.toThrow();
  });

  it('is unhealthy when no round finished for the stuck time', async () => {
    const h = harness();
    let release = (): void => undefined;
    const stuck: Exchanger = () =>
      new Promise((resolve) => {
        release = () => {
          resolve({ transport: 'udp', outcome: ANSWER, latencyMs: 1 });
        };
      });
    const prober = new NodeProber({
      config: CONFIG,
      store: { load: () => Promise.resolve(undefined), write: (c) => Promise.resolve(c) },
      exchanger: stuck,
      clock: h.clock,
      log: createLogger({ component: 'probe', level: 'silent' }),
      metrics: h.metrics,
      readResolvConf: () => Promise.resolve(RESOLV_CONF),
    });
    const stop = new AbortController();
    const done = prober.start(stop.signal);
    await h.clock.advance(10_001); // the first lookup never returns
    expect(() => prober.liveness(10_000)()).toThrow('no probe round finished for 10000 ms');
    expect(() => prober.readiness()()).toThrow('no probe round finished yet');
    stop.abort();
    release();
    await done;
  });
});
