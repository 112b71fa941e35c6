import { createRegistry } from '@kf/runtime';
import { describe, expect, it } from 'vitest';
import { WATCH_BACKOFF_NAME, WATCH_RESTARTS_NAME, createWatchCacheMetrics } from './watch-metrics.ts';

const registry = () => createRegistry({ component: 'test', version: '0' });
const text = async (r: ReturnType<typeof registry>, name: string): Promise<string> =>
  r.getSingleMetricAsString(name);

describe('createWatchCacheMetrics', () => {
  it('creates every series of a cache at zero when the cache is bound', async () => {
    const r = registry();
    createWatchCacheMetrics(r).forCache('clusters.cluster.karmada.io');
    const restarts = await text(r, WATCH_RESTARTS_NAME);
    for (const reason of ['gone', 'error', 'closed']) {
      expect(restarts).toContain(
        `karmada_failover_watch_restarts_total{resource="clusters.cluster.karmada.io",reason="${reason}"} 0`,
      );
    }
    expect(await text(r, WATCH_BACKOFF_NAME)).toContain(
      'karmada_failover_watch_backoff_seconds{resource="clusters.cluster.karmada.io"} 0',
    );
  });

  it('counts restarts by reason and shows the current backoff, 0 again once connected', async () => {
    const r = registry();
    const works = createWatchCacheMetrics(r).forCache('works.work.karmada.io');
    works.restarted('error');
    works.restarted('error');
    works.restarted('gone');
    works.backoff(2.5);
    expect(await text(r, WATCH_RESTARTS_NAME)).toContain(
      'karmada_failover_watch_restarts_total{resource="works.work.karmada.io",reason="error"} 2',
    );
    expect(await text(r, WATCH_BACKOFF_NAME)).toContain(
      'karmada_failover_watch_backoff_seconds{resource="works.work.karmada.io"} 2.5',
    );
    works.backoff(0);
    expect(await text(r, WATCH_BACKOFF_NAME)).toContain(
      'karmada_failover_watch_backoff_seconds{resource="works.work.karmada.io"} 0',
    );
  });

  it('shows the longest backoff of the caches of one resource, and adds up their restarts', async () => {
    const r = registry();
    const metrics = createWatchCacheMetrics(r);
    const inOne = metrics.forCache('leases.coordination.k8s.io');
    const inOther = metrics.forCache('leases.coordination.k8s.io');
    inOne.backoff(5);
    inOther.backoff(0.5);
    inOne.restarted('closed');
    inOther.restarted('closed');
    const gauge = 'karmada_failover_watch_backoff_seconds{resource="leases.coordination.k8s.io"}';
    expect(await text(r, WATCH_BACKOFF_NAME)).toContain(`${gauge} 5`);
    inOne.backoff(0); // reconnected: the other one is still waiting
    expect(await text(r, WATCH_BACKOFF_NAME)).toContain(`${gauge} 0.5`);
    inOther.backoff(0);
    expect(await text(r, WATCH_BACKOFF_NAME)).toContain(`${gauge} 0`);
    expect(await text(r, WATCH_RESTARTS_NAME)).toContain(
      'karmada_failover_watch_restarts_total{resource="leases.coordination.k8s.io",reason="closed"} 2',
    );
  });

  it('keeps the series of a resource when another cache of it is bound later', async () => {
    const r = registry();
    const metrics = createWatchCacheMetrics(r);
    metrics.forCache('nodes').restarted('gone');
    metrics.forCache('nodes').backoff(1);
    metrics.forCache('nodes');
    expect(await text(r, WATCH_RESTARTS_NAME)).toContain(
      'karmada_failover_watch_restarts_total{resource="nodes",reason="gone"} 1',
    );
    expect(await text(r, WATCH_BACKOFF_NAME)).toContain(
      'karmada_failover_watch_backoff_seconds{resource="nodes"} 1',
    );
  });

  it('refuses to register twice in one registry', () => {
    const r = registry();
    createWatchCacheMetrics(r);
    expect(() => createWatchCacheMetrics(r)).toThrow(/already been registered/);
  });
});
