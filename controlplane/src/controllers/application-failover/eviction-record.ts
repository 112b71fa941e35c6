/**
 * The binding's eviction history (from Karmada's application failover proposal, kept in the
 * annotation `failover.karmada-failover.io/eviction-history`, see
 * scheduler/eviction-history-annotation.ts): one entry per cluster the workload was moved away
 * from, read by the scheduler's EvictionHistory filter to keep the workload off that cluster for
 * `blockPredecessorSeconds`.
 *
 * Each cluster keeps only its latest eviction, and entries whose block has run out are dropped
 * whenever the history is written, so the list stays as short as the set of blocked clusters.
 */
import { formatTime, parseTime, type EvictionHistoryEntry } from '@kf/api';

export interface EvictionRecordOptions {
  readonly nowMs: number;
  readonly reason: string;
  readonly producer: string;
  /** How long an entry blocks its cluster (Infinity: for good). */
  readonly blockPredecessorMs: number;
}

/** The history after evicting `clusters` at `nowMs`. */
export function recordEvictions(
  history: readonly EvictionHistoryEntry[] | undefined,
  clusters: readonly string[],
  o: EvictionRecordOptions,
): EvictionHistoryEntry[] {
  const kept = (history ?? []).filter((e) => !clusters.includes(e.clusterName) && isActive(e, o));
  const added = [...new Set(clusters)].sort().map((clusterName) => ({
    clusterName,
    // Times have second precision: rounded up, so that the block never ends early.
    creationTimestamp: formatTime(Math.ceil(o.nowMs / 1000) * 1000),
    reason: o.reason,
    producer: o.producer,
  }));
  return [...kept, ...added];
}

/** Whether the entry still blocks its cluster at `nowMs`; unreadable times are dropped. */
export function isActive(
  e: EvictionHistoryEntry,
  o: Pick<EvictionRecordOptions, 'nowMs' | 'blockPredecessorMs'>,
): boolean {
  const atMs = parseTime(e.creationTimestamp);
  return atMs !== undefined && o.nowMs < atMs + o.blockPredecessorMs;
}
