/** Restricts a binding to the clusters its affinity term (and, for workloads, the overflow affinities) select. */
import type { ClusterAffinity } from '@kf/api';
import { matchesAffinity } from '../affinity.ts';
import { isWorkload } from '../binding-view.ts';
import { fits, unfit, type Attempt, type FilterPlugin, type ScorePlugin } from '../framework.ts';

const name = 'ClusterAffinity';

export const clusterAffinityFilter: FilterPlugin = {
  name,
  filter(a, c) {
    const candidates = affinitiesOf(a);
    if (candidates.length === 0 || candidates.some((x) => matchesAffinity(c, x))) return fits;
    return unfit('cluster(s) did not match the placement cluster affinity constraint');
  },
  // Only the clusters named when every affinity names its clusters: a cluster must be named by
  // one of them to match it.
  onlyClusters(a) {
    const candidates = affinitiesOf(a);
    if (candidates.length === 0) return undefined;
    const names = new Set<string>();
    for (const x of candidates) {
      const listed = x.clusterNames ?? [];
      if (listed.length === 0) return undefined;
      for (const n of listed) names.add(n);
    }
    return names;
  },
};

/** The affinities a cluster may match for the attempt: its term's, and for workloads the overflow. */
function affinitiesOf(a: Attempt): readonly ClusterAffinity[] {
  const { affinity, overflow } = a.term;
  return [...(affinity === undefined ? [] : [affinity]), ...(isWorkload(a.binding) ? overflow : [])];
}

/** Registered as a scorer upstream, where it scores every cluster 0. */
export const clusterAffinityScore: ScorePlugin = {
  name,
  score: () => 0,
};
