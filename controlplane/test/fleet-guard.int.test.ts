/**
 * The fleet guard against a real Karmada API server: with the guard at 50%, two of three clusters
 * going down pause evictions (an Event on the binding explains why, the gauge says so), and
 * evictions resume once enough of the fleet is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventsAbout,
  holdsFor,
  metricValue,
  placedBinding,
  startScenario,
  type Scenario,
} from './harness.ts';

let s: Scenario;

const KEY = 'default/guarded';

beforeAll(async () => {
  s = await startScenario(
    ['g1', 'g2', 'g3'],
    [
      '--fleet-guard-pause-threshold=0.5',
      '--fleet-guard-resume-threshold=0.4',
      '--fleet-guard-resume-after=1s',
    ],
  );
  await s.bindings.create(placedBinding('guarded', ['g1', 'g3']));
});

afterAll(async () => {
  await (s as Scenario | undefined)?.stop();
});

const boundTo = async (): Promise<string[]> =>
  ((await s.bindings.get(KEY)).spec.clusters ?? []).map((c) => c.name);
const noExecuteOn = async (cluster: string): Promise<boolean> =>
  ((await s.plane.clusters.get(cluster)).spec.taints ?? []).some((t) => t.effect === 'NoExecute');

describe('fleet guard', () => {
  it('does not evict while 2 of 3 clusters are down, and says why in an Event', async () => {
    // g2 reports itself not ready first, so the guard already counts it when g1 goes silent.
    await s.agents.setCondition('g2', 'Ready', 'False', 'ClusterNotReady');
    await expect.poll(() => noExecuteOn('g2'), { timeout: 10_000 }).toBe(true);
    await s.agents.silence('g1');
    await expect.poll(() => noExecuteOn('g1'), { timeout: 15_000, interval: 200 }).toBe(true);

    await expect
      .poll(async () => (await eventsAbout(s.plane, 'guarded', 'EvictionPaused')).map((e) => e.message), {
        timeout: 10_000,
      })
      .toEqual([expect.stringContaining('Evictions paused: 2 of 3 clusters')]);
    expect(await metricValue(s.app.registry, 'karmada_failover_fleet_guard_paused')).toBe(1);
    expect(await metricValue(s.app.registry, 'karmada_failover_eviction_queue_depth')).toBe(1);
    // Held, not merely late: still bound well after the taint.
    await holdsFor(3_000, 'binding still on g1', async () => (await boundTo()).includes('g1'));
  });

  it('resumes evictions once the fleet recovers below the resume threshold', async () => {
    await s.agents.setCondition('g2', 'Ready', 'True', 'ClusterReady');
    await expect.poll(boundTo, { timeout: 20_000, interval: 200 }).toEqual(['g3']);
    expect(await metricValue(s.app.registry, 'karmada_failover_fleet_guard_paused')).toBe(0);
    expect(await metricValue(s.app.registry, 'karmada_failover_eviction_queue_depth')).toBe(0);
  });
});
