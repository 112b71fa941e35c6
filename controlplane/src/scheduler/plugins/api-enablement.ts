/**
 * Keeps a resource type away from clusters that do not serve it. Only a type the cluster lists
 * passes (as upstream, a new placement never goes where the type may be missing); the reason says
 * whether the type is not served (the cluster's API list is complete) or unknown (the list is
 * partial, e.g. some of the member's discovery failed), so that a user knows which to fix.
 */
import { fits, unfit, type FilterPlugin } from '../framework.ts';

export const API_DISABLED_REASON = 'cluster(s) did not have the API resource';
export const API_UNKNOWN_REASON = 'cluster(s) reported a partial API list without the API resource';

export const apiEnablement: FilterPlugin = {
  name: 'APIEnablement',
  /** A cluster already holding the workload passes: losing an API never moves a workload. */
  filter(a, c) {
    if (a.binding.assigned.has(c.name) || c.apis.has(a.binding.apiKey)) return fits;
    return unfit(c.apiListComplete ? API_DISABLED_REASON : API_UNKNOWN_REASON);
  },
};
