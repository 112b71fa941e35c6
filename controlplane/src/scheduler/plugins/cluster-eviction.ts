/** Keeps a binding off a cluster it is being gracefully evicted from. */
import { fits, unfit, type FilterPlugin } from '../framework.ts';

export const clusterEviction: FilterPlugin = {
  name: 'ClusterEviction',
  filter(a, c) {
    return a.binding.evicting.has(c.name) ? unfit('cluster(s) is in the process of eviction') : fits;
  },
};
