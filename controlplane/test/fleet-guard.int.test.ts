/**
 * The fleet guard against a real Karmada API server: with the guard at 50%, two of three clusters
 * going down pause evictions (an Event on the binding explains why, the gauge says so), and
 * evictions resume once enough of the fleet is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotations, resourceBindingKind, type ResourceBinding } from '@kf/api';
import { ResourceClient } from '@kf/kube';
import {
  FakeAgents,
  eventsAbout,
  holdsFor,
  metricValue,
  runControlPlane,
  startPlane,
  type Plane,
  type RunningControlPlane,
} from './harness.ts';

let plane: Plane;
let agents: FakeAgents;
let app: RunningControlPlane;
let bindings: ResourceClient<ResourceBinding>;

const KEY = 'default/guarded';

beforeAll(async () => {
  plane = await startPlane();
  await plane.apply('cluster-taint-policy.yaml');
  bindings = new ResourceClient<ResourceBinding>(plane.cluster.kubeConfig(), resourceBindingKind);
  agents = new FakeAgents(plane);
  for (const name of ['g1', 'g2', 'g3']) await agents.register(name);
  app = await runControlPlane(plane, [
    '--fleet-guard-pause-threshold=0.5',
    '--fleet-guard-resume-threshold=0.4',
    '--fleet-guard-resume-after=1s',
  ]);
  await bindings.create({
    metadata: {
      name: 'guarded',
      namespace: 'default',
      annotations: { [annotations.appliedPlacement]: '{}' },
    },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'guarded' },
      replicas: 4,
      clusters: [
        { name: 'g1', replicas: 2 },
        { name: 'g3', replicas: 2 },
      ],
    },
  });
});

afterAll(async () => {
  (agents as FakeAgents | undefined)?.stop();
  await (app as RunningControlPlane | undefined)?.stop();
  await (plane as Plane | undefined)?.cluster.destroy();
});

const boundTo = async (): Promise<string[]> =>
  ((await bindings.get(KEY)).spec.clusters ?? []).map((c) => c.name);
const noExecuteOn = async (cluster: string): Promise<boolean> =>
  ((await plane.clusters.get(cluster)).spec.taints ?? []).some((t) => t.effect === 'NoExecute');

describe('fleet guard', () => {
  it('does not evict while 2 of 3 clusters are down, and says why in an Event', async () => {
    // g2 reports itself not ready first, so the guard already counts it when g1 goes silent.
    await agents.setCondition('g2', 'Ready', 'False', 'ClusterNotReady');
    await expect.poll(() => noExecuteOn('g2'), { timeout: 10_000 }).toBe(true);
    await agents.silence('g1');
    await expect.poll(() => noExecuteOn('g1'), { timeout: 15_000, interval: 200 }).toBe(true);

    await expect
      .poll(async () => (await eventsAbout(plane, 'guarded', 'EvictionPaused')).map((e) => e.message), {
        timeout: 10_000,
      })
      .toEqual([expect.stringContaining('Evictions paused: 2 of 3 clusters')]);
    expect(await metricValue(app.registry, 'karmada_failover_fleet_guard_paused')).toBe(1);
    expect(await metricValue(app.registry, 'karmada_failover_eviction_queue_depth')).toBe(1);
    // Held, not merely late: still bound well after the taint.
    await holdsFor(3_000, 'binding still on g1', async () => (await boundTo()).includes('g1'));
  });

  it('resumes evictions once the fleet recovers below the resume threshold', async () => {
    await agents.setCondition('g2', 'Ready', 'True', 'ClusterReady');
    await expect.poll(boundTo, { timeout: 20_000, interval: 200 }).toEqual(['g3']);
    expect(await metricValue(app.registry, 'karmada_failover_fleet_guard_paused')).toBe(0);
    expect(await metricValue(app.registry, 'karmada_failover_eviction_queue_depth')).toBe(0);
  });
});
