/** Keeps a resource type away from clusters that do not serve it. */
import { fits, unfit, type FilterPlugin } from '../framework.ts';

export const apiEnablement: FilterPlugin = {
  name: 'APIEnablement',
  /** A cluster already holding the workload passes: losing an API never moves a workload. */
  filter(a, c) {
    if (a.binding.assigned.has(c.name) || c.apis.has(a.binding.apiKey)) return fits;
    return unfit('cluster(s) did not have the API resource');
  },
};
