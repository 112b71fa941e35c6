/**
 * Where a binding ran before cluster failover moved it, kept on the binding itself (annotation
 * `failover.karmada-failover.io/placement-before-failover`) so that a restarted control plane still
 * knows where to send it back. The taint manager writes it with the first eviction, in the same
 * write; a second eviction before the workload went back keeps the first record (the placement the
 * user had). Fail-back removes it.
 */
import { annotations, formatTime, parseTime, type TargetCluster } from '@kf/api';

export interface PlacementRecord {
  /** `spec.clusters` before the first eviction. */
  readonly clusters: readonly TargetCluster[];
  /** When the first eviction was written. */
  readonly evictedAtMs: number;
}

/** The annotation's value for `clusters` evicted at `nowMs`. */
export function formatPlacementRecord(clusters: readonly TargetCluster[], nowMs: number): string {
  return JSON.stringify({
    clusters: clusters.map((c) =>
      c.replicas === undefined ? { name: c.name } : { name: c.name, replicas: c.replicas },
    ),
    evictedAt: formatTime(nowMs),
  });
}

export type ParsedRecord =
  | { readonly kind: 'none' }
  | { readonly kind: 'record'; readonly record: PlacementRecord }
  /** Present but unreadable (someone edited it): dropped, with this problem in the Event. */
  | { readonly kind: 'invalid'; readonly problem: string };

/** The record on a binding's annotations. */
export function readPlacementRecord(
  bindingAnnotations: Readonly<Record<string, string>> | undefined,
): ParsedRecord {
  const raw = bindingAnnotations?.[annotations.placementBeforeFailover];
  if (raw === undefined) return { kind: 'none' };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { kind: 'invalid', problem: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null) return { kind: 'invalid', problem: 'not a JSON object' };
  const { clusters, evictedAt } = value as { clusters?: unknown; evictedAt?: unknown };
  const evictedAtMs = typeof evictedAt === 'string' ? parseTime(evictedAt) : undefined;
  if (evictedAtMs === undefined) return { kind: 'invalid', problem: 'evictedAt is not an RFC 3339 time' };
  if (!Array.isArray(clusters) || clusters.length === 0) {
    return { kind: 'invalid', problem: 'clusters is not a non-empty list' };
  }
  const parsed: TargetCluster[] = [];
  for (const c of clusters as unknown[]) {
    const one = parseCluster(c);
    if (typeof one === 'string') return { kind: 'invalid', problem: one };
    parsed.push(one);
  }
  return { kind: 'record', record: { clusters: parsed, evictedAtMs } };
}

/** One recorded cluster, or what is wrong with it. */
function parseCluster(c: unknown): TargetCluster | string {
  const { name, replicas } = (typeof c === 'object' && c !== null ? c : {}) as {
    name?: unknown;
    replicas?: unknown;
  };
  if (typeof name !== 'string' || name === '') return 'a cluster has no name';
  if (replicas === undefined) return { name };
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    return `cluster ${name}: replicas is not a whole number`;
  }
  return { name, replicas };
}

/**
 * The annotation patch an eviction of `clusters` (the binding's placement now) adds at `nowMs`:
 * a record when there is none, nothing when one is kept from an earlier eviction.
 */
export function recordOnEviction(
  bindingAnnotations: Readonly<Record<string, string>> | undefined,
  clusters: readonly TargetCluster[],
  nowMs: number,
): Record<string, string> | undefined {
  if (readPlacementRecord(bindingAnnotations).kind === 'record') return undefined;
  if (clusters.length === 0) return undefined;
  return { [annotations.placementBeforeFailover]: formatPlacementRecord(clusters, nowMs) };
}
