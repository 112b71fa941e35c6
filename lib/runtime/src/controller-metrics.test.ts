import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createControllerMetrics, RECONCILE_RESULTS } from './controller-metrics.ts';
import { createRegistry } from './metrics.ts';

describe('createControllerMetrics', () => {
  it('returns the same hooks for a controller bound twice, without resetting its series', async () => {
    const registry = createRegistry({ component: 'test', version: '0' });
    const metrics = createControllerMetrics(registry, { prefix: 'x_' });
    const first = metrics.forController('cluster-health');
    first.reconciled('success', 0.2);
    first.queue.added();
    expect(metrics.forController('cluster-health')).toBe(first);
    const text = await registry.metrics();
    expect(text).toContain('x_reconcile_total{controller="cluster-health",result="success"} 1');
    expect(text).toContain('x_reconcile_duration_seconds_count{controller="cluster-health"} 1');
    expect(text).toContain('x_workqueue_adds_total{controller="cluster-health"} 1');
  });

  it('creates every series at zero when a controller is bound', async () => {
    const registry = new Registry();
    createControllerMetrics(registry).forController('taint-manager');
    const text = await registry.metrics();
    for (const result of RECONCILE_RESULTS) {
      expect(text).toContain(
        `karmada_failover_reconcile_total{controller="taint-manager",result="${result}"} 0`,
      );
    }
    const counters = ['workqueue_adds_total', 'workqueue_retries_total', 'workqueue_pass_keys_total'];
    for (const family of ['workqueue_depth', ...counters]) {
      expect(text).toContain(`karmada_failover_${family}{controller="taint-manager"} 0`);
    }
    for (const family of ['reconcile', 'workqueue_queue', 'workqueue_work']) {
      expect(text).toContain(
        `karmada_failover_${family}_duration_seconds_count{controller="taint-manager"} 0`,
      );
    }
  });

  it('reports queue observations under the controller label', async () => {
    const registry = new Registry();
    const hooks = createControllerMetrics(registry).forController('c');
    hooks.queue.depth(3);
    hooks.queue.retried();
    hooks.queue.passKey();
    hooks.queue.waited(0.02);
    hooks.queue.worked(1.5);
    const text = await registry.metrics();
    expect(text).toContain('karmada_failover_workqueue_depth{controller="c"} 3');
    expect(text).toContain('karmada_failover_workqueue_retries_total{controller="c"} 1');
    expect(text).toContain('karmada_failover_workqueue_pass_keys_total{controller="c"} 1');
    expect(text).toContain(
      'karmada_failover_workqueue_queue_duration_seconds_bucket{le="0.025",controller="c"} 1',
    );
    expect(text).toContain('karmada_failover_workqueue_work_duration_seconds_sum{controller="c"} 1.5');
  });

  it("counts the keys waiting in every controller's queue, each at its last depth", () => {
    const metrics = createControllerMetrics(new Registry());
    expect(metrics.queuedKeys()).toBe(0);
    const a = metrics.forController('a');
    const b = metrics.forController('b');
    a.queue.depth(30);
    b.queue.depth(25);
    expect(metrics.queuedKeys()).toBe(55);
    a.queue.depth(2);
    expect(metrics.queuedKeys()).toBe(27);
    // A controller restarted gets the same hooks: its depth is not counted twice.
    metrics.forController('b').queue.depth(0);
    expect(metrics.queuedKeys()).toBe(2);
  });

  it('refuses to register its families twice in one registry', () => {
    const registry = new Registry();
    createControllerMetrics(registry);
    expect(() => createControllerMetrics(registry)).toThrow(/already been registered/);
  });
});
