import { DEFAULT_METRIC_PREFIX, makeCounter, makeGauge } from '@kf/runtime';
import { RESTART_REASONS, type RestartReason } from './watch-recovery.ts';

type Registry = Parameters<typeof makeGauge>[0];

export const WATCH_RESTARTS_NAME = `${DEFAULT_METRIC_PREFIX}watch_restarts_total`;
export const WATCH_BACKOFF_NAME = `${DEFAULT_METRIC_PREFIX}watch_backoff_seconds`;

/** The watch metric families of a process, shared by all its watch caches. */
export interface WatchCacheMetrics {
  /**
   * Hooks for one cache of `resource` (`plural` or `plural.group`). Its series exist at zero from
   * this call on. Caches of the same resource share the series: restarts add up, and the backoff
   * shown is the longest any of them is waiting out.
   */
  forCache(resource: string): BoundWatchMetrics;
}

/** Metric hooks of one watch cache. */
export interface BoundWatchMetrics {
  /** The list+watch ended and starts over, for `reason`. */
  restarted(reason: RestartReason): void;
  /** The delay the cache is waiting out before it reconnects; 0 once a LIST or WATCH succeeded. */
  backoff(seconds: number): void;
}

/**
 * Registers in `registry`, labelled by `resource` (bounded: the resources a process watches):
 * `karmada_failover_watch_restarts_total{resource,reason}`, every time a cache's list+watch ended
 * and started over (`gone`: a 410 made it relist; `error`: a failure it backs off from;
 * `closed`: the server ended the watch), and `karmada_failover_watch_backoff_seconds{resource}`,
 * the reconnect delay being waited out now (0 while connected). A backoff that stays above 0 is
 * a cache that cannot reach its API server. Make it once per registry: registering twice throws.
 */
export function createWatchCacheMetrics(registry: Registry): WatchCacheMetrics {
  const restarts = makeCounter(registry, {
    name: WATCH_RESTARTS_NAME,
    help: 'Times a list+watch cache started over, by resource and reason (gone: relisted after 410 Gone; error: backed off after a failure; closed: the server ended the watch).',
    labelNames: ['resource', 'reason'] as const,
  });
  const backoff = makeGauge(registry, {
    name: WATCH_BACKOFF_NAME,
    help: 'Reconnect delay a list+watch cache is waiting out now, in seconds; 0 while connected.',
    labelNames: ['resource'] as const,
  });
  /** Per resource, the delay of each cache that is waiting (connected caches are left out). */
  const waiting = new Map<string, Map<number, number>>();
  let nextId = 0;
  return {
    forCache(resource) {
      for (const reason of RESTART_REASONS) restarts.inc({ resource, reason }, 0);
      const id = nextId++;
      const delays = waiting.get(resource) ?? new Map<number, number>();
      waiting.set(resource, delays);
      backoff.set({ resource }, Math.max(0, ...delays.values()));
      return {
        restarted(reason) {
          restarts.inc({ resource, reason });
        },
        backoff(seconds) {
          if (seconds > 0) delays.set(id, seconds);
          else delays.delete(id);
          backoff.set({ resource }, Math.max(0, ...delays.values()));
        },
      };
    },
  };
}
