/**
 * Which bindings the scheduler takes and which Cluster changes bring them back: a
 * binding for this scheduler, not suspended, and created from a policy; a Cluster whose labels
 * or spec changed (or that began deleting) requeues the bindings its affinity concerns (a taint
 * taken off is a spec change). Cluster status changes (Ready flips) do not requeue anything.
 */
import { defaultSchedulerName, isSameJson, labels, type Cluster, type ResourceBinding } from '@kf/api';
import { healthByCluster } from '../../controllers/graceful-eviction/cause.ts';
import { matchesAffinity } from '../../scheduler/affinity.ts';
import { cachedClusterView } from '../../scheduler/cluster-view.ts';

/**
 * Rules 1–3 of the binding filter. The dependencies distributor's attached bindings carry no
 * policy label and no placement (their clusters come from `requiredBy`), so they are skipped
 * silently, as upstream's scheduler skips them.
 */
export function isForScheduler(b: ResourceBinding, schedulerName: string): boolean {
  if ((b.spec.schedulerName ?? defaultSchedulerName) !== schedulerName) return false;
  if (b.spec.suspension?.scheduling === true) return false;
  const l = b.metadata.labels ?? {};
  return (
    l[labels.propagationPolicyPermanentId] !== undefined ||
    l[labels.clusterPropagationPolicyPermanentId] !== undefined ||
    l[labels.bindingManagedBy] !== undefined
  );
}

/**
 * A binding event the scheduler acts on: creation, a new generation, or, while the binding has
 * graceful eviction tasks, a change of the workload's health on some cluster (an application
 * healthy again where it was evicted from may take that cluster back; see
 * plugins/cluster-eviction.ts). Other status writes are not.
 */
export function isSchedulingEvent(
  type: string,
  b: ResourceBinding,
  old: ResourceBinding | undefined,
): boolean {
  if (type === 'ADDED') return true;
  if (type !== 'MODIFIED' || old === undefined) return false;
  if (b.metadata.generation !== old.metadata.generation) return true;
  return (b.spec.gracefulEvictionTasks ?? []).length > 0 && !isSameHealth(b, old);
}

function isSameHealth(b: ResourceBinding, old: ResourceBinding): boolean {
  const now = healthByCluster(b.status?.aggregatedStatus);
  const before = healthByCluster(old.status?.aggregatedStatus);
  return now.size === before.size && [...now].every(([c, h]) => before.get(c) === h);
}

/** Which versions of a changed cluster to match bindings against; none when the change does not matter. */
export function clustersToMatch(type: string, c: Cluster, old: Cluster | undefined): readonly Cluster[] {
  if (type !== 'MODIFIED' || old === undefined) return [];
  if (old.metadata.deletionTimestamp === undefined && c.metadata.deletionTimestamp !== undefined) return [c];
  const relabelled = !isSameJson(old.metadata.labels, c.metadata.labels);
  if (relabelled || old.metadata.generation !== c.metadata.generation) return [old, c];
  return [];
}

/**
 * Whether a change of `c` may change `b`'s placement: its generation was not yet scheduled and
 * it uses `clusterAffinities`, or its current affinity is unset or matches the cluster.
 */
export function isAffectedBy(b: ResourceBinding, c: Cluster): boolean {
  const placement = b.spec.placement;
  if (placement === undefined) return false;
  const terms = placement.clusterAffinities ?? [];
  if (terms.length > 0 && b.status?.schedulerObservedGeneration !== b.metadata.generation) return true;
  const observed = b.status?.schedulerObservingAffinityName;
  const affinity =
    terms.length > 0
      ? (terms.find((t) => t.affinityName === observed) ?? terms[0])
      : placement.clusterAffinity;
  return affinity === undefined || matchesAffinity(cachedClusterView(c), affinity);
}
