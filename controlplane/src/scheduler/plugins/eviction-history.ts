/**
 * Keeps a binding off a cluster it was evicted from until `blockPredecessorSeconds` have passed
 * since the eviction (for good when that is 0), so that a failover does not bounce straight back
 * to a cluster that has just recovered. Not in upstream Karmada, whose proposal left it unbuilt;
 * it reads the binding's `spec.evictionHistory`.
 */
import { fits, unfit, type FilterPlugin } from '../framework.ts';

export const evictionHistory: FilterPlugin = {
  name: 'EvictionHistory',
  /** A cluster already holding the workload passes: the filter prevents returns, it never moves. */
  filter(a, c) {
    const b = a.binding;
    if (b.assigned.has(c.name)) return fits;
    const blocked = b.evictionHistory.some(
      (e) => e.cluster === c.name && a.nowMs < e.evictedAtMs + b.blockPredecessorMs,
    );
    return blocked ? unfit('cluster(s) evicted this workload less than blockPredecessorSeconds ago') : fits;
  },
};
