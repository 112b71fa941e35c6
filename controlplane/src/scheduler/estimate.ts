/**
 * How many more replicas of a binding a cluster can take, from the cluster's resource summary
 * (upstream's general estimator). Resource models and the gRPC estimator are not consulted.
 */
import { wholeUnits } from '@kf/api';
import type { BindingView, ComponentSetDemand } from './binding-view.ts';
import type { ClusterView } from './cluster-view.ts';

/** Upstream counts replicas in int32; "unlimited" is its maximum. */
export const MAX_REPLICAS = 2_147_483_647;

/**
 * Replicas the cluster can still take: no summary → 0; else the free pod slots, lowered by
 * every positive resource request (CPU in millicores, the rest in whole units, rounded up);
 * a requested resource the cluster does not list → 0.
 */
export function estimateFromSummary(b: BindingView, c: ClusterView): number {
  const capacity = c.capacity;
  if (capacity === undefined || capacity.allowedPods <= 0) return 0;
  if (!b.hasReplicaRequirements) return capacity.allowedPods;
  return fitWithin(capacity, b.requestMilli, capacity.allowedPods);
}

/**
 * `bound` lowered by every positive request: how many times it fits in what is free of that
 * resource (CPU in millicores, the rest in whole units, rounded up); a requested resource with
 * nothing free (or not listed) → 0.
 */
function fitWithin(
  capacity: NonNullable<ClusterView['capacity']>,
  requestMilli: ReadonlyMap<string, number>,
  bound: number,
): number {
  let fits = bound;
  for (const [resource, request] of requestMilli) {
    if (request <= 0) continue;
    const freeMilli = capacity.freeMilli.get(resource) ?? 0;
    if (wholeUnits(freeMilli) <= 0) return 0;
    const fit =
      resource === 'cpu'
        ? Math.floor(freeMilli / request)
        : Math.floor(wholeUnits(freeMilli) / wholeUnits(request));
    fits = Math.min(fits, fit);
  }
  return fits;
}

/**
 * Whole sets of a multi-template workload's components the cluster can still take (upstream's
 * general estimator for component sets): no summary or no free pod slot → 0; components without
 * pods → every free pod slot; else the free pod slots divided by the pods of one set, lowered by
 * every resource one set requests (a requested resource with nothing free → 0).
 * Deliberate difference: every quantity is compared in the same unit (CPU in millicores, the rest
 * in whole units, requests rounded up), where upstream's units follow how each quantity was
 * written (`1G` of memory counts in thousandths of a byte, `1Gi` in bytes).
 */
export function estimateComponentSets(set: ComponentSetDemand, c: ClusterView): number {
  const capacity = c.capacity;
  if (capacity === undefined || capacity.allowedPods <= 0) return 0;
  if (set.pods <= 0) return capacity.allowedPods;
  return fitWithin(capacity, set.requestMilli, Math.floor(capacity.allowedPods / set.pods));
}

/**
 * As upstream's `AllocatableReplicas`: unlimited for bindings without replicas; a workload placed
 * whole (`wholeSets`: multi-template scheduling applies) counts the sets of its components that
 * fit; otherwise the estimate capped to int32, where an "unlimited" answer falls back to the
 * binding's replicas.
 */
export function allocatableReplicas(b: BindingView, c: ClusterView, wholeSets = false): number {
  if (wholeSets) return Math.min(MAX_REPLICAS, estimateComponentSets(b.componentSet, c));
  if (b.replicas === 0 && b.componentCount === 0) return MAX_REPLICAS;
  const estimate = Math.min(MAX_REPLICAS, estimateFromSummary(b, c));
  return estimate === MAX_REPLICAS ? b.replicas : estimate;
}
