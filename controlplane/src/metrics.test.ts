import { describe, expect, it } from 'vitest';
import type { Cluster } from '@kf/api';
import { createRegistry } from '@kf/runtime';
import { FAIL_BACK_RESULTS, createControlPlaneMetrics } from './metrics.ts';

const cluster = (name: string, ready?: 'True' | 'False' | 'Unknown'): Cluster => ({
  metadata: { name },
  spec: { syncMode: 'Pull' },
  ...(ready === undefined ? {} : { status: { conditions: [{ type: 'Ready', status: ready }] } }),
});

describe('control-plane metrics', () => {
  it('exposes every family with zero values before the first event', async () => {
    const registry = createRegistry({ component: 'controlplane', version: 'test' });
    createControlPlaneMetrics(registry, () => []);
    const text = await registry.metrics();
    expect(text).toContain('karmada_failover_evictions_total{reason="TaintUntolerated"} 0');
    expect(text).toContain('karmada_failover_eviction_queue_depth 0');
    expect(text).toContain('karmada_failover_fleet_guard_paused 0');
    expect(text).toContain('karmada_failover_health_to_taint_seconds_count{effect="NoExecute"} 0');
    expect(text).toContain('karmada_failover_clusters{state="unknown"} 0');
    expect(text).toContain('karmada_failover_workload_rebalances_total{result="Successful"} 0');
    expect(text).toContain('karmada_failover_workload_rebalances_total{result="Failed"} 0');
    for (const result of FAIL_BACK_RESULTS) {
      expect(text).toContain(`karmada_failover_fail_backs_total{result="${result}"} 0`);
    }
  });

  it('counts clusters by Ready state at scrape time', async () => {
    const registry = createRegistry({ component: 'controlplane', version: 'test' });
    const fleet = [cluster('a', 'True'), cluster('b', 'True'), cluster('c', 'False'), cluster('d')];
    createControlPlaneMetrics(registry, () => fleet);
    const text = await registry.metrics();
    expect(text).toContain('karmada_failover_clusters{state="ready"} 2');
    expect(text).toContain('karmada_failover_clusters{state="not_ready"} 1');
    expect(text).toContain('karmada_failover_clusters{state="unknown"} 1');
  });

  it("reads the Event recorder's queue at scrape time", async () => {
    const registry = createRegistry({ component: 'controlplane', version: 'test' });
    let pending = 0;
    createControlPlaneMetrics(
      registry,
      () => [],
      () => pending,
    );
    expect(await registry.metrics()).toContain('karmada_failover_events_pending 0');
    pending = 4_000;
    expect(await registry.metrics()).toContain('karmada_failover_events_pending 4000');
  });

  it("shows each cluster's clock offset in seconds at scrape time, and drops a forgotten one", async () => {
    const registry = createRegistry({ component: 'controlplane', version: 'test' });
    let offsets = new Map([
      ['member1', 62_500],
      ['member2', -20_000],
    ]);
    createControlPlaneMetrics(
      registry,
      () => [],
      () => 0,
      () => offsets,
    );
    const text = await registry.metrics();
    expect(text).toContain('karmada_failover_cluster_clock_offset_seconds{cluster="member1"} 62.5');
    expect(text).toContain('karmada_failover_cluster_clock_offset_seconds{cluster="member2"} -20');
    offsets = new Map([['member2', -19_000]]);
    const later = await registry.metrics();
    expect(later).not.toContain('cluster="member1"');
    expect(later).toContain('karmada_failover_cluster_clock_offset_seconds{cluster="member2"} -19');
  });
});
