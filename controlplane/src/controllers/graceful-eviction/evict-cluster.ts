/**
 * The placement change every eviction producer makes (upstream's `gracefulEvictCluster`): take the
 * cluster out of `spec.clusters` and leave a graceful eviction task behind so that the workload
 * there is kept until it is safe elsewhere. Shared by the taint manager and application failover.
 */
import type { GracefulEvictionTask, ResourceBindingSpec } from '@kf/api';

/**
 * What the producer says about the eviction; `fromCluster` and `replicas` are filled in here.
 * A producer may stamp `creationTimestamp` itself: the taint manager does, since a cluster failure
 * evicts many bindings at once and a task written without one costs each binding a second write
 * when the graceful eviction controller stamps it.
 */
export type EvictionTaskOptions = Omit<GracefulEvictionTask, 'fromCluster' | 'replicas'>;

export interface GracefulEvictionPlan<S extends ResourceBindingSpec> {
  /** The binding spec after the eviction (the input itself when nothing changes). */
  readonly spec: S;
  /** False when the cluster was not in `spec.clusters`: nothing to write. */
  readonly changed: boolean;
  /** The task appended, if any (none when one for the cluster already existed). */
  readonly task?: GracefulEvictionTask;
}

/**
 * As upstream: a cluster not in `spec.clusters` changes nothing; otherwise it is removed from
 * `spec.clusters`, and a task `{fromCluster, replicas (when > 0), ...options}` is appended unless a
 * task for that cluster already exists (the cluster is still removed).
 */
export function planGracefulEviction<S extends ResourceBindingSpec>(
  spec: S,
  cluster: string,
  options: EvictionTaskOptions,
): GracefulEvictionPlan<S> {
  const clusters = spec.clusters ?? [];
  const evicted = clusters.find((c) => c.name === cluster);
  if (evicted === undefined) return { spec, changed: false };
  const remaining = clusters.filter((c) => c.name !== cluster);
  const tasks = spec.gracefulEvictionTasks ?? [];
  if (tasks.some((t) => t.fromCluster === cluster)) {
    return { spec: { ...spec, clusters: remaining }, changed: true };
  }
  const replicas = evicted.replicas ?? 0;
  const task: GracefulEvictionTask = {
    ...options,
    fromCluster: cluster,
    ...(replicas > 0 ? { replicas } : {}),
  };
  return {
    spec: { ...spec, clusters: remaining, gracefulEvictionTasks: [...tasks, task] },
    changed: true,
    task,
  };
}
