/** Placements the tests, benchmarks and the demo ask for by name rather than spell out. */
import type { Placement } from '@kf/api';

/**
 * Divided by static weights over exactly the named clusters, e.g. `{ member1: 1, member2: 2 }`
 * (the demo's placement): replicas split by the weights, no other cluster considered.
 */
export function dividedByStaticWeights(weights: Readonly<Record<string, number>>): Placement {
  const clusters = Object.keys(weights);
  return {
    clusterAffinity: { clusterNames: clusters },
    replicaScheduling: {
      replicaSchedulingType: 'Divided',
      replicaDivisionPreference: 'Weighted',
      weightPreference: {
        staticWeightList: clusters.map((name) => ({
          targetCluster: { clusterNames: [name] },
          weight: weights[name] ?? 0,
        })),
      },
    },
  };
}

/** A copy on each of exactly the named clusters. */
export function duplicatedOnto(clusters: readonly string[]): Placement {
  return {
    clusterAffinity: { clusterNames: [...clusters] },
    replicaScheduling: { replicaSchedulingType: 'Duplicated' },
  };
}
