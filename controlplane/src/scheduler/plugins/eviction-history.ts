/**
 * Keeps a binding off a cluster it was evicted from until `blockPredecessorSeconds` have passed
 * since the eviction (for good when that is 0), so that a failover does not bounce straight back
 * to a cluster that has just recovered. Not in upstream Karmada, whose proposal left it unbuilt;
 * it reads the binding's eviction history (its annotation `failover.karmada-failover.io/eviction-history`
 * and, as written by earlier versions, `spec.evictionHistory`).
 */
import type { BindingView } from '../binding-view.ts';
import { fits, unfit, type FilterPlugin } from '../framework.ts';
import { mayTakeBack } from './cluster-eviction.ts';

export const evictionHistory: FilterPlugin = {
  name: 'EvictionHistory',
  /**
   * A cluster already holding the workload passes: the filter prevents returns, it never moves.
   * So does a cluster whose eviction task lets the binding take it back (cluster-eviction.ts): its
   * copy never left, and no other cluster runs a healthy one.
   */
  filter(a, c) {
    const b = a.binding;
    if (b.assigned.has(c.name) || mayTakeBack(a, c)) return fits;
    const blocked = b.evictionHistory.some(
      (e) => e.cluster === c.name && a.nowMs < e.evictedAtMs + b.blockPredecessorMs,
    );
    return blocked ? unfit('cluster(s) evicted this workload less than blockPredecessorSeconds ago') : fits;
  },
};

/**
 * Milliseconds until the earliest block of a cluster not holding the workload ends (the scheduler
 * looks again then); undefined when no block is running or every block is for good.
 */
export function nextUnblockInMs(b: BindingView, nowMs: number): number | undefined {
  let next: number | undefined;
  for (const e of b.evictionHistory) {
    const inMs = e.evictedAtMs + b.blockPredecessorMs - nowMs;
    if (b.assigned.has(e.cluster) || inMs <= 0 || !Number.isFinite(inMs)) continue;
    next = Math.min(next ?? inMs, inMs);
  }
  return next;
}
