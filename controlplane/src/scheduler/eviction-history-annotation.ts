/**
 * A binding's eviction history as it is stored: the annotation
 * `failover.karmada-failover.io/eviction-history` (a JSON array of entries), which Karmada's own
 * CRDs keep, plus `spec.evictionHistory`, which only the project's CRD accepts (Karmada's API
 * server drops it, or rejects the object under strict validation). Application failover writes
 * only the annotation; entries an earlier version left in the spec field are still read, until
 * application failover's next write moves them into the annotation.
 *
 * An annotation that is not a JSON array counts as no entries, and an element without a cluster
 * name or a creation time is skipped: a hand-edited value never stops the scheduler.
 */
import { annotations, type EvictionHistoryEntry } from '@kf/api';

/** The entries of an annotation value; an unreadable value has none. */
export function parseEvictionHistory(value: string | undefined): EvictionHistoryEntry[] {
  if (value === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const entries: EvictionHistoryEntry[] = [];
  for (const item of parsed as unknown[]) {
    const entry = entryOf(item);
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}

function entryOf(item: unknown): EvictionHistoryEntry | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const { clusterName, creationTimestamp, reason, producer } = item as Record<string, unknown>;
  if (typeof clusterName !== 'string' || clusterName === '' || typeof creationTimestamp !== 'string') {
    return undefined;
  }
  return {
    clusterName,
    creationTimestamp,
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(typeof producer === 'string' ? { producer } : {}),
  };
}

/** The annotation value holding `entries`, fields in a fixed order. */
export function formatEvictionHistory(entries: readonly EvictionHistoryEntry[]): string {
  return JSON.stringify(
    entries.map((e) => ({
      clusterName: e.clusterName,
      creationTimestamp: e.creationTimestamp,
      ...(e.reason === undefined ? {} : { reason: e.reason }),
      ...(e.producer === undefined ? {} : { producer: e.producer }),
    })),
  );
}

/**
 * Every entry of a binding, from its annotations and `spec.evictionHistory`: the annotation's
 * first, then the spec field's; an entry met twice (same cluster, same time) counts once.
 */
export function evictionHistoryOf(
  bindingAnnotations: Readonly<Record<string, string>> | undefined,
  specHistory: readonly EvictionHistoryEntry[] | undefined,
): EvictionHistoryEntry[] {
  const seen = new Set<string>();
  const entries: EvictionHistoryEntry[] = [];
  const all = [
    ...parseEvictionHistory(bindingAnnotations?.[annotations.evictionHistory]),
    ...(specHistory ?? []),
  ];
  for (const e of all) {
    const key = JSON.stringify([e.clusterName, e.creationTimestamp]);
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push(e);
  }
  return entries;
}
