/** Keeps new placements off clusters with NoSchedule or NoExecute taints the placement does not tolerate. */
import { fits, unfit, type FilterPlugin } from '../framework.ts';
import { findUntoleratedTaint, formatTaint } from '../toleration.ts';

export const taintToleration: FilterPlugin = {
  name: 'TaintToleration',
  /**
   * A cluster already holding the workload passes: evicting it is the taint manager's job
   * (after the toleration period), not the scheduler's.
   */
  filter(a, c) {
    if (a.binding.assigned.has(c.name)) return fits;
    const taint = findUntoleratedTaint(c.taints, a.placement.tolerations, ['NoSchedule', 'NoExecute']);
    return taint === undefined ? fits : unfit(`cluster(s) had untolerated taint {${formatTaint(taint)}}`);
  },
};
