import type { Registry } from 'prom-client';
import { DEFAULT_METRIC_PREFIX, makeCounter, makeGauge, makeHistogram } from './metrics.ts';
import type { WorkQueueMetrics } from './work-queue.ts';

/** How one reconcile ended; the `result` label of `reconcile_total`. */
export type ReconcileResult = 'success' | 'recheck' | 'error' | 'terminal_error';

/** Every {@link ReconcileResult}, so each series exists (at zero) before the first reconcile. */
export const RECONCILE_RESULTS: readonly ReconcileResult[] = Object.freeze([
  'success',
  'recheck',
  'error',
  'terminal_error',
]);

/** The metric families of the runner, shared by every controller of a process. */
export interface ControllerMetrics {
  /**
   * Hooks for one controller. The first call for a name creates its series at zero; later calls
   * (a controller restarted after leadership came back) return the same hooks.
   */
  forController(controller: string): BoundControllerMetrics;
  /** Keys ready and waiting in every controller's queue now (not in flight, not delayed). */
  queuedKeys(): number;
}

/** Metric hooks bound to one controller's label. */
export interface BoundControllerMetrics {
  readonly queue: WorkQueueMetrics;
  /** One reconcile finished after `seconds` with `result`. */
  reconciled(result: ReconcileResult, seconds: number): void;
}

export interface ControllerMetricsOptions {
  /** Family name prefix (default {@link DEFAULT_METRIC_PREFIX}). */
  readonly prefix?: string;
}

/**
 * Registers the runner's families in `registry`, shaped like controller-runtime's, all labelled
 * by `controller` only (bounded: never keys):
 * `reconcile_total{controller,result}`, `reconcile_duration_seconds`, `workqueue_depth`,
 * `workqueue_adds_total`, `workqueue_retries_total`, `workqueue_pass_keys_total`,
 * `workqueue_queue_duration_seconds`, `workqueue_work_duration_seconds`. Make it once per registry:
 * registering twice throws.
 */
export function createControllerMetrics(
  registry: Registry,
  options: ControllerMetricsOptions = {},
): ControllerMetrics {
  const p = options.prefix ?? DEFAULT_METRIC_PREFIX;
  const byController = ['controller'] as const;
  const reconciles = makeCounter(registry, {
    name: `${p}reconcile_total`,
    help: 'Reconciles finished, by controller and result (success, recheck, error, terminal_error).',
    labelNames: ['controller', 'result'] as const,
  });
  const reconcileSeconds = makeHistogram(registry, {
    name: `${p}reconcile_duration_seconds`,
    help: 'Time spent in one reconcile.',
    labelNames: byController,
  });
  const depth = makeGauge(registry, {
    name: `${p}workqueue_depth`,
    help: 'Keys waiting for a worker.',
    labelNames: byController,
  });
  const adds = makeCounter(registry, {
    name: `${p}workqueue_adds_total`,
    help: 'Keys added to the work queue (adds of a key already waiting are not counted).',
    labelNames: byController,
  });
  const retries = makeCounter(registry, {
    name: `${p}workqueue_retries_total`,
    help: 'Keys re-added with backoff after a failed reconcile.',
    labelNames: byController,
  });
  const passKeys = makeCounter(registry, {
    name: `${p}workqueue_pass_keys_total`,
    help: 'Keys handed to a worker by the first pass over every key or by the periodic resync, not by a change.',
    labelNames: byController,
  });
  const queueSeconds = makeHistogram(registry, {
    name: `${p}workqueue_queue_duration_seconds`,
    help: 'Time a key waited in the work queue before a worker took it.',
    labelNames: byController,
  });
  const workSeconds = makeHistogram(registry, {
    name: `${p}workqueue_work_duration_seconds`,
    help: 'Time from taking a key off the work queue to marking it done.',
    labelNames: byController,
  });

  const bound = new Map<string, BoundControllerMetrics>();
  // The last depth each queue reported, summed on demand: a gauge's own value is not at hand.
  const depths = new Map<string, number>();
  const bind = (controller: string): BoundControllerMetrics => {
    const labels = { controller };
    for (const result of RECONCILE_RESULTS) reconciles.inc({ controller, result }, 0);
    reconcileSeconds.zero(labels);
    depth.set(labels, 0);
    adds.inc(labels, 0);
    retries.inc(labels, 0);
    passKeys.inc(labels, 0);
    queueSeconds.zero(labels);
    workSeconds.zero(labels);
    return {
      queue: {
        depth: (keys) => {
          depth.set(labels, keys);
          depths.set(controller, keys);
        },
        added: () => {
          adds.inc(labels);
        },
        retried: () => {
          retries.inc(labels);
        },
        passKey: () => {
          passKeys.inc(labels);
        },
        waited: (seconds) => {
          queueSeconds.observe(labels, seconds);
        },
        worked: (seconds) => {
          workSeconds.observe(labels, seconds);
        },
      },
      reconciled(result, seconds) {
        reconciles.inc({ controller, result });
        reconcileSeconds.observe(labels, seconds);
      },
    };
  };
  return {
    forController(controller) {
      let hooks = bound.get(controller);
      if (hooks === undefined) bound.set(controller, (hooks = bind(controller)));
      return hooks;
    },
    queuedKeys() {
      let keys = 0;
      for (const n of depths.values()) keys += n;
      return keys;
    },
  };
}
