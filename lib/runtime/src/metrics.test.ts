import { describe, expect, it } from 'vitest';
import { createRegistry, makeCounter, makeGauge, makeHistogram, SECONDS_BUCKETS } from './metrics.ts';

describe('createRegistry', () => {
  it('exports build info and the default process metrics', async () => {
    const registry = createRegistry({ component: 'agent', version: '1.2.3' });
    const text = await registry.metrics();
    expect(text).toContain(
      `karmada_failover_build_info{component="agent",version="1.2.3",node_version="${process.version}"} 1`,
    );
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_heap_size_total_bytes');
  });

  it('uses a fresh registry each time, never the global one', async () => {
    const a = createRegistry({ component: 'agent', version: '1' });
    const b = createRegistry({ component: 'probe', version: '1', prefix: 'other_' });
    expect(a).not.toBe(b);
    expect(await b.metrics()).toContain('other_build_info{component="probe"');
  });
});

describe('metric helpers', () => {
  it('register only in the given registry, histograms with the seconds buckets', async () => {
    const registry = createRegistry({ component: 'test', version: '0' });
    makeCounter(registry, { name: 'test_things_total', help: 'Things.', labelNames: ['kind'] as const }).inc({
      kind: 'a',
    });
    makeGauge(registry, { name: 'test_level_ratio', help: 'Level.' }).set(0.5);
    makeHistogram(registry, { name: 'test_wait_seconds', help: 'Wait.' }).observe(0.3);
    const text = await registry.metrics();
    expect(text).toContain('test_things_total{kind="a"} 1');
    expect(text).toContain('test_level_ratio 0.5');
    const buckets = [...text.matchAll(/test_wait_seconds_bucket\{le="([^"]+)"\}/g)].map((m) => m[1]);
    expect(buckets).toEqual([...SECONDS_BUCKETS.map(String), '+Inf']);
    expect(SECONDS_BUCKETS).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  });
});
