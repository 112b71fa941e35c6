/** Restricts a binding to the clusters its affinity term (and, for workloads, the overflow affinities) select. */
import { matchesAffinity } from '../affinity.ts';
import { isWorkload } from '../binding-view.ts';
import { fits, unfit, type FilterPlugin, type ScorePlugin } from '../framework.ts';

const name = 'ClusterAffinity';

export const clusterAffinityFilter: FilterPlugin = {
  name,
  filter(a, c) {
    const { affinity, overflow } = a.term;
    const candidates = [
      ...(affinity === undefined ? [] : [affinity]),
      ...(isWorkload(a.binding) ? overflow : []),
    ];
    if (candidates.length === 0 || candidates.some((x) => matchesAffinity(c, x))) return fits;
    return unfit('cluster(s) did not match the placement cluster affinity constraint');
  },
};

/** Registered as a scorer upstream, where it scores every cluster 0. */
export const clusterAffinityScore: ScorePlugin = {
  name,
  score: () => 0,
};
