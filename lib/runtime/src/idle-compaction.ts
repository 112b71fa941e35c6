/**
 * Gives memory back to the system once a busy spell is over.
 *
 * V8 keeps the pages a burst of work made it commit: after the control plane placed 10,000
 * bindings its heap held 91 MiB of live objects in 182 MiB of pages, and the process stayed at
 * that size for as long as it ran, idle or not. V8's own memory reducer starts a shrinking
 * collection only when the process allocates next to nothing, which a control plane that renews
 * Leases and takes members' status posts never does. A memory-reducing full collection (the one a
 * heap profiler asks for) moves the live objects together and returns the pages left empty: at
 * 10,000 bindings the first one took the heap from 167 to 96 MiB of pages in a pause of 0.2 to
 * 0.5 s.
 *
 * So the process looks at itself every period and compacts when three things hold: it was mostly
 * idle over the period (the event loop busy for at most a share of it: a process placing or
 * moving workloads is not paused for it), the heap holds much more than it uses (by an absolute amount and
 * a share), and no compaction was made recently (so a process whose heap regrows to the same
 * slack pays for one collection per interval at most).
 */
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { systemClock, type Clock } from './clock.ts';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.ts';
import type { Runnable } from './manager.ts';
import { DEFAULT_METRIC_PREFIX, makeHistogram } from './metrics.ts';

/** One look at the process: how busy it was since the last look, and its heap. */
export interface ProcessLook {
  /** Share of the time since the last look the event loop spent working, 0 to 1. */
  readonly busyRatio: number;
  /** Bytes of pages the V8 heap holds. */
  readonly heapCommittedBytes: number;
  /** Bytes of those pages in use (live objects and garbage not yet collected). */
  readonly heapUsedBytes: number;
}

export interface CompactionPolicy {
  /** Compact only after a period the event loop was busy for at most this share of. */
  readonly maxBusyRatio: number;
  /** Compact only when the heap holds at least this many bytes more than it uses… */
  readonly minSlackBytes: number;
  /** …and that slack is at least this share of what it holds. */
  readonly minSlackRatio: number;
  /** At most one compaction per this many milliseconds. */
  readonly minIntervalMs: number;
}

/**
 * At 10,000 bindings the heap held 55 to 90 MiB it did not use once the work queues emptied (30 to
 * 50 % of it); at 5,000, 111 MiB of pages for 66 MiB in use, which a floor of 32 MiB of slack
 * missed whenever a look fell late between two collections (used memory includes the garbage not
 * yet collected), so the floor is 16 MiB: a smaller heap compacts in a shorter pause. A heap that
 * regrows between full collections in steady state (by half of what survived, with the control
 * plane's `--heap-growing-percent=50`, and a young generation of up to 16 MiB) can reach a third of
 * slack too, so an idle process may compact every few minutes: the interval bounds that to one
 * pause per five minutes. Events written at their pace (50 a second) keep the loop busy for 5 to
 * 7 % of the time, well under the busy limit.
 */
export const DEFAULT_COMPACTION_POLICY: CompactionPolicy = {
  maxBusyRatio: 0.25,
  minSlackBytes: 16 * 2 ** 20,
  minSlackRatio: 0.25,
  minIntervalMs: 5 * 60_000,
};

/** How often the process looks at itself. */
export const DEFAULT_COMPACTION_PERIOD_MS = 10_000;

/** Whether to compact now; `sinceLastMs` is undefined before the first compaction. */
export function shouldCompact(
  look: ProcessLook,
  sinceLastMs: number | undefined,
  policy: CompactionPolicy = DEFAULT_COMPACTION_POLICY,
): boolean {
  if (look.busyRatio > policy.maxBusyRatio) return false;
  if (sinceLastMs !== undefined && sinceLastMs < policy.minIntervalMs) return false;
  const slack = look.heapCommittedBytes - look.heapUsedBytes;
  return slack >= policy.minSlackBytes && slack >= policy.minSlackRatio * look.heapCommittedBytes;
}

export interface IdleCompactionOptions {
  readonly log: Logger;
  readonly clock?: Clock;
  readonly periodMs?: number;
  readonly policy?: CompactionPolicy;
  /** The process as it is now; by default from the event loop's utilization and V8's statistics. */
  readonly look?: () => ProcessLook;
  /** Makes the collection; by default {@link memoryReducingCollection}. */
  readonly compact?: () => Promise<void>;
  /** Told of each compaction made, with its seconds. */
  readonly onCompacted?: (seconds: number) => void;
}

/** The runnable that looks every period and compacts when {@link shouldCompact} says so. */
export function idleCompaction(options: IdleCompactionOptions): Runnable {
  const clock = options.clock ?? systemClock;
  const periodMs = options.periodMs ?? DEFAULT_COMPACTION_PERIOD_MS;
  const policy = options.policy ?? DEFAULT_COMPACTION_POLICY;
  const compact = options.compact ?? memoryReducingCollection;
  return {
    name: 'idle-compaction',
    needLeaderElection: false,
    start: async (signal) => {
      const look = options.look ?? processLooker();
      look(); // the first period starts now
      let lastAtMs: number | undefined;
      for (;;) {
        try {
          await clock.sleep(periodMs, signal);
        } catch {
          return;
        }
        const seen = look();
        const nowMs = clock.monotonic();
        if (!shouldCompact(seen, lastAtMs === undefined ? undefined : nowMs - lastAtMs, policy)) continue;
        lastAtMs = nowMs;
        try {
          await compact();
        } catch (err) {
          options.log.warn({ err }, 'heap compaction failed; not trying again');
          return;
        }
        const seconds = (clock.monotonic() - nowMs) / 1000;
        const after = look();
        options.log.info(
          {
            seconds,
            heapCommittedMiB: mib(seen.heapCommittedBytes),
            heapUsedMiB: mib(seen.heapUsedBytes),
            heapCommittedAfterMiB: mib(after.heapCommittedBytes),
            heapUsedAfterMiB: mib(after.heapUsedBytes),
          },
          'heap compacted after a busy spell',
        );
        options.onCompacted?.(seconds);
      }
    },
  };
}

/** `heap_compaction_duration_seconds` in `registry`; the function records one compaction. */
export function heapCompactionMetrics(registry: Registry): (seconds: number) => void {
  const pauses = makeHistogram(registry, {
    name: `${DEFAULT_METRIC_PREFIX}heap_compaction_duration_seconds`,
    help: 'Memory-reducing collections made once the process was mostly idle, by the pause each took.',
  });
  return (seconds) => {
    pauses.observe(seconds);
  };
}

/** Looks that measure the event loop's utilization since the previous look. */
function processLooker(): () => ProcessLook {
  let previous = performance.eventLoopUtilization();
  return () => {
    const current = performance.eventLoopUtilization();
    const busyRatio = performance.eventLoopUtilization(current, previous).utilization;
    previous = current;
    const heap = getHeapStatistics();
    return { busyRatio, heapCommittedBytes: heap.total_heap_size, heapUsedBytes: heap.used_heap_size };
  };
}

/**
 * A full collection that also compacts the heap and returns its empty pages: what the inspector's
 * `HeapProfiler.collectGarbage` asks of V8, through an in-process session (no port is opened).
 * Rejects when this Node has no inspector.
 */
export async function memoryReducingCollection(): Promise<void> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.collectGarbage');
  } finally {
    session.disconnect();
  }
}

function mib(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}
