/** Leaves out clusters that lack a property a spread constraint groups by. */
import { fits, unfit, type FilterPlugin } from '../framework.ts';

export const spreadConstraint: FilterPlugin = {
  name: 'SpreadConstraint',
  filter(a, c) {
    for (const s of a.placement.spreadConstraints) {
      if (s.field === 'provider' && c.provider === '')
        return unfit('cluster(s) did not have provider property');
      if (s.field === 'region' && c.region === '') return unfit('cluster(s) did not have region property');
      if (s.field === 'zone' && c.zones.length === 0) return unfit('cluster(s) did not have zones property');
    }
    return fits;
  },
};
