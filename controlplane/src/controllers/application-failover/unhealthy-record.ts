/**
 * The "since when" half of the timers, kept on the binding (annotation
 * `failover.karmada-failover.io/unhealthy-since`, a JSON object of cluster → RFC 3339 time with
 * milliseconds): when application failover first saw the workload Unhealthy on each timed cluster.
 * In memory only, a restart of the controller (or a new leader) would start every timer again, and
 * a leader that keeps restarting would postpone an unhealthy workload's failover for ever. Read
 * back, the eviction comes `tolerationSeconds` after the first sighting, whoever made it.
 *
 * The times are the control plane's own wall clock, never a member's: every replica of the control
 * plane runs on nodes whose clocks share one time source (NTP), as Kubernetes' own leases assume, so
 * a time written by one leader means the same to the next. A recorded time later than now (a
 * replica whose clock ran ahead) counts as now: the wait is then at most tolerationSeconds from
 * now, never longer. An entry goes when its cluster is timed no more (the workload Healthy or of
 * Unknown health there, the cluster out of the placement or being evicted, failover switched off).
 *
 * A value that cannot be read is treated as absent, entry by entry where possible, with each
 * problem named for the log: a hand-edited annotation starts its timers afresh, never stops the
 * controller.
 */
import type { BindingHealthMemory, ClusterHealthMemory } from './unhealthy-timing.ts';

/** Cluster → epoch ms of its first unhealthy sighting. */
export type UnhealthySince = Readonly<Record<string, number>>;

export interface ParsedUnhealthySince {
  readonly since: UnhealthySince;
  /** One sentence per part that could not be read (and was left out). */
  readonly problems: readonly string[];
}

/** `2026-01-01T12:00:00Z`, `…:00.123Z`, `…:00+02:00`: what RFC 3339 allows, nothing Date.parse guesses. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** The annotation value read; absent is no entry and no problem. */
export function parseUnhealthySince(value: string | undefined): ParsedUnhealthySince {
  if (value === undefined) return { since: {}, problems: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err: unknown) {
    return { since: {}, problems: [`not JSON (${(err as Error).message})`] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { since: {}, problems: ['not a JSON object of cluster → time'] };
  }
  const since: Record<string, number> = {};
  const problems: string[] = [];
  for (const [cluster, time] of Object.entries(parsed as Record<string, unknown>)) {
    const ms = typeof time === 'string' && RFC3339.test(time) ? Date.parse(time) : Number.NaN;
    if (cluster === '' || Number.isNaN(ms))
      problems.push(`entry ${JSON.stringify({ [cluster]: time })} is not a cluster and a time`);
    else since[cluster] = ms;
  }
  return { since, problems };
}

/** The annotation value for `since`, clusters sorted, times with milliseconds; undefined for none. */
export function formatUnhealthySince(since: UnhealthySince): string | undefined {
  const clusters = Object.keys(since).sort();
  if (clusters.length === 0) return undefined;
  return JSON.stringify(Object.fromEntries(clusters.map((c) => [c, new Date(since[c] ?? 0).toISOString()])));
}

/**
 * The memory with every cluster's unhealthy streak as recorded, and no other: the record is the
 * truth shared by every leader. Times later than `nowMs` count as `nowMs`.
 */
export function seedUnhealthy(
  memory: BindingHealthMemory,
  since: UnhealthySince,
  nowMs: number,
): BindingHealthMemory {
  const seeded: Record<string, ClusterHealthMemory> = {};
  for (const [cluster, m] of Object.entries(memory)) {
    if (m.healthySeen === true) seeded[cluster] = { healthySeen: true };
  }
  for (const [cluster, ms] of Object.entries(since)) {
    seeded[cluster] = { ...seeded[cluster], unhealthySinceMs: Math.min(ms, nowMs) };
  }
  return seeded;
}

/** The streaks the memory times, but those of `leaving` clusters (evicted by this write). */
export function unhealthySinceOf(memory: BindingHealthMemory, leaving: ReadonlySet<string>): UnhealthySince {
  const since: Record<string, number> = {};
  for (const [cluster, m] of Object.entries(memory)) {
    if (m.unhealthySinceMs !== undefined && !leaving.has(cluster)) since[cluster] = m.unhealthySinceMs;
  }
  return since;
}
