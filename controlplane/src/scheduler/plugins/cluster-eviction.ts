/**
 * Keeps a binding off a cluster it is being gracefully evicted from, while the eviction's cause
 * holds. Unlike upstream, which keeps the cluster out for the task's whole life, a cluster whose
 * cause has ended (its untolerated NoExecute taint gone, the application healthy there again) is
 * let back in when no other cluster of the placement runs a healthy copy: the copy still running
 * there is the workload's only one, and placing the binding there keeps it (the graceful eviction
 * controller then drops the task). The rule is `judgeReturn` in the graceful eviction controller's
 * cause.ts, judged against the placement's tolerations.
 */
import { judgeReturn } from '../../controllers/graceful-eviction/cause.ts';
import type { ClusterView } from '../cluster-view.ts';
import { fits, unfit, type Attempt, type FilterPlugin } from '../framework.ts';

export const clusterEviction: FilterPlugin = {
  name: 'ClusterEviction',
  filter(a, c) {
    if (!a.binding.evicting.has(c.name)) return fits;
    return mayTakeBack(a, c) ? fits : unfit('cluster(s) is in the process of eviction');
  },
};

/**
 * Every eviction task from `c` lets the binding take `c` back now (false when there is none): the
 * copy there survives its eviction and is placed again.
 */
export function mayTakeBack(a: Attempt, c: ClusterView): boolean {
  const tasks = a.binding.evictionTasks.filter((t) => t.fromCluster === c.name);
  if (tasks.length === 0) return false;
  const input = {
    cluster: { taints: c.taints, deleting: c.deleting },
    tolerations: a.placement.tolerations,
    health: a.binding.health,
    placed: a.binding.clusters.map((t) => t.name),
    nowMs: a.nowMs,
  };
  return tasks.every((t) => judgeReturn(t, input).mayReturn);
}
