import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';

/** Prefix of every metric family this project defines. */
export const DEFAULT_METRIC_PREFIX = 'karmada_failover_';

/**
 * Buckets for durations in seconds: 5 ms to 10 s covers a reconcile, an API call and a DNS query;
 * slower work lands in +Inf, which is itself the signal.
 */
export const SECONDS_BUCKETS: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
]);

export interface RegistryOptions {
  /** The program: `agent`, `probe`, `controlplane`… */
  readonly component: string;
  /** The build's version, as printed by `--version`. */
  readonly version: string;
  /** Prefix of `build_info` (default {@link DEFAULT_METRIC_PREFIX}). */
  readonly prefix?: string;
}

/**
 * Makes the one registry of a process: Node's default process metrics (unprefixed, as every
 * Prometheus client names them) plus `<prefix>build_info{component,version,node_version} 1`.
 * Never the global default registry, so tests and embedded uses do not collide.
 */
export function createRegistry(options: RegistryOptions): Registry {
  const registry = new Registry();
  // prom-client samples event-loop delay every 10 ms by default, which costs an idle pod more
  // CPU than its own work; 100 ms still shows the stalls worth alerting on.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const buildInfo = makeGauge(registry, {
    name: `${options.prefix ?? DEFAULT_METRIC_PREFIX}build_info`,
    help: 'Always 1; labels say which build is running.',
    labelNames: ['component', 'version', 'node_version'] as const,
  });
  buildInfo.set({ component: options.component, version: options.version, node_version: process.version }, 1);
  return registry;
}

/** A counter registered only in `registry`. Names must end in `_total`. */
export function makeCounter<L extends string>(
  registry: Registry,
  config: Omit<CounterConfiguration<L>, 'registers'>,
): Counter<L> {
  return new Counter<L>({ ...config, registers: [registry] });
}

/** A gauge registered only in `registry`; point-in-time values are best read in `collect()`. */
export function makeGauge<L extends string>(
  registry: Registry,
  config: Omit<GaugeConfiguration<L>, 'registers'>,
): Gauge<L> {
  return new Gauge<L>({ ...config, registers: [registry] });
}

/** A histogram registered only in `registry`, with {@link SECONDS_BUCKETS} unless told otherwise. */
export function makeHistogram<L extends string>(
  registry: Registry,
  config: Omit<HistogramConfiguration<L>, 'registers'>,
): Histogram<L> {
  return new Histogram<L>({ buckets: [...SECONDS_BUCKETS], ...config, registers: [registry] });
}
