/**
 * Crash safety of taint-based eviction: the control plane process (`node controlplane/src/main.ts
 * run`, a child process against a real Karmada API server) is SIGKILLed while it is evicting 200
 * bindings from a cluster with an untolerated NoExecute taint, and started again. Every binding
 * must end evicted exactly once: off the tainted cluster, still on the healthy one, with one
 * graceful eviction task for the tainted cluster — none left behind, none evicted twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceBindingKind, type ResourceBinding } from '@kf/api';
import { ResourceClient, WatchCache, keyOf } from '@kf/kube';
import { createLogger } from '@kf/runtime';
import {
  ControlPlaneProcess,
  FakeAgents,
  forEachLimited,
  placedBinding,
  startPlane,
  taintNoExecute,
  type Plane,
  LEADER_ELECTION_FLAGS,
} from './harness.ts';

const COUNT = 200;
const DOOMED = 'doomed';
const SAFE = 'safe';
/** 10 evictions/s with a burst of one: 200 bindings take about 20s, so a kill lands mid-way. */
const FLAGS = [
  '--resource-eviction-rate=10',
  '--resource-eviction-burst=1',
  // The cluster-facing controllers only: no templates back these bindings.
  '--controllers=*,-resource-detector,-scheduler,-dependencies-distributor,-binding,-binding-status',
  // Leader election as in production: the restarted process takes over the dead one's Lease.
  ...LEADER_ELECTION_FLAGS,
];

let plane: Plane;
let agents: FakeAgents;
let bindings: ResourceClient<ResourceBinding>;
let watch: WatchCache<ResourceBinding>;
const stopWatch = new AbortController();
const processes: ControlPlaneProcess[] = [];
/** Per binding: how often the test saw DOOMED leave its `spec.clusters`, and come back. */
const left = new Map<string, number>();
const returned = new Map<string, number>();

const isOn = (b: ResourceBinding | undefined, cluster: string): boolean =>
  b?.spec.clusters?.some((c) => c.name === cluster) === true;
const bump = (m: Map<string, number>, key: string): void => {
  m.set(key, (m.get(key) ?? 0) + 1);
};
const evictedNow = (): number => watch.list().filter((b) => !isOn(b, DOOMED)).length;

beforeAll(async () => {
  plane = await startPlane();
  agents = new FakeAgents(plane);
  for (const name of [DOOMED, SAFE]) await agents.register(name);
  const kc = plane.cluster.kubeConfig();
  bindings = new ResourceClient<ResourceBinding>(kc, resourceBindingKind);
  const names = Array.from({ length: COUNT }, (_, i) => `app-${String(i).padStart(3, '0')}`);
  await forEachLimited(names, 20, (name) => bindings.create(placedBinding(name, [DOOMED, SAFE])));
  watch = new WatchCache<ResourceBinding>({
    kubeConfig: kc,
    resource: resourceBindingKind,
    log: createLogger({ component: 'test', level: 'silent' }),
  });
  watch.onEvent((type, obj, old) => {
    if (type !== 'MODIFIED') return;
    if (isOn(old, DOOMED) && !isOn(obj, DOOMED)) bump(left, keyOf(obj));
    if (!isOn(old, DOOMED) && isOn(obj, DOOMED)) bump(returned, keyOf(obj));
  });
  watch.start(stopWatch.signal);
  await watch.synced();
});

afterAll(async () => {
  await Promise.allSettled(processes.map((p) => p.stop()));
  stopWatch.abort();
  (agents as FakeAgents | undefined)?.stop();
  await (plane as Plane | undefined)?.cluster.destroy();
});

describe('crash safety of evictions', () => {
  it('evicts every binding exactly once across a SIGKILL mid-way', async () => {
    const first = await ControlPlaneProcess.start(plane.controlPlaneKubeconfig, FLAGS);
    processes.push(first);
    await first.ready();
    await expect
      .poll(() => first.metric('karmada_failover_leader_election_is_leader'), { timeout: 30_000 })
      .toBe(1);
    await taintNoExecute(plane, DOOMED, 'example.com/crash-test');

    // Kill once about a quarter has left, and check that it really was mid-way.
    await expect.poll(evictedNow, { timeout: 60_000, interval: 50 }).toBeGreaterThanOrEqual(COUNT / 4);
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    await new Promise((resolve) => setTimeout(resolve, 500)); // a write the server was still handling lands
    const { items: atKill } = await bindings.list();
    const evictedBeforeKill = atKill.filter((b) => !isOn(b, DOOMED)).length;
    expect(evictedBeforeKill).toBeGreaterThanOrEqual(COUNT / 4);
    expect(evictedBeforeKill).toBeLessThan(COUNT * 0.75);

    const second = await ControlPlaneProcess.start(plane.controlPlaneKubeconfig, FLAGS);
    processes.push(second);
    await second.ready();
    await expect.poll(evictedNow, { timeout: 120_000, interval: 250 }).toBe(COUNT);
    // The graceful eviction controller stamps every task.
    await expect
      .poll(
        async () =>
          (await bindings.list()).items.filter((b) =>
            b.spec.gracefulEvictionTasks?.every((t) => t.creationTimestamp !== undefined),
          ).length,
        { timeout: 30_000 },
      )
      .toBe(COUNT);

    const { items } = await bindings.list();
    expect(items).toHaveLength(COUNT);
    for (const b of items) {
      const key = keyOf(b);
      expect(b.spec.clusters, key).toEqual([{ name: SAFE, replicas: 2 }]);
      expect(b.spec.gracefulEvictionTasks, key).toHaveLength(1);
      expect(b.spec.gracefulEvictionTasks?.[0], key).toMatchObject({
        fromCluster: DOOMED,
        replicas: 2,
        reason: 'TaintUntolerated',
        producer: 'TaintManager',
        purgeMode: 'Gracefully',
      });
      expect(left.get(key) ?? 0, key).toBe(1);
      expect(returned.get(key) ?? 0, key).toBe(0);
    }
    // The restarted process evicted exactly those the first one had not.
    expect(await second.metric('karmada_failover_evictions_total', { reason: 'TaintUntolerated' })).toBe(
      COUNT - evictedBeforeKill,
    );
    const failures = second.logs().filter((l) => l['level'] === 'error' || l['level'] === 'fatal');
    expect(failures).toEqual([]);
  });
});
