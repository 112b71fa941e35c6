/**
 * The "was healthy before" half of the timers, kept on the binding (annotation
 * `failover.karmada-failover.io/healthy-clusters`): without it, a restart of the controller (or a
 * new leader) during an outage would forget that an unhealthy workload had ever been healthy and
 * never move it. Written only when the set changes: a cluster first seen Healthy, or one leaving
 * the placement. The unhealthy timers themselves stay in memory, as upstream.
 */
import type { BindingHealthMemory, ClusterHealthMemory } from './unhealthy-timing.ts';

/** `m1,m2` → `['m1', 'm2']`; blanks dropped. */
export function parseHealthyClusters(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
}

/** The annotation value; undefined (remove it) for no cluster. */
export function formatHealthyClusters(clusters: readonly string[]): string | undefined {
  return clusters.length === 0 ? undefined : [...clusters].sort().join(',');
}

/** The memory with `healthySeen` set for every recorded cluster. */
export function seedHealthy(memory: BindingHealthMemory, recorded: readonly string[]): BindingHealthMemory {
  const seeded: Record<string, ClusterHealthMemory> = { ...memory };
  for (const c of recorded) seeded[c] = { ...seeded[c], healthySeen: true };
  return seeded;
}

/** Clusters the memory has seen Healthy, sorted. */
export function healthyClustersOf(memory: BindingHealthMemory): string[] {
  return Object.keys(memory)
    .filter((c) => memory[c]?.healthySeen === true)
    .sort();
}

export function isSameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  return sa.size === new Set(b).size && b.every((c) => sa.has(c));
}
