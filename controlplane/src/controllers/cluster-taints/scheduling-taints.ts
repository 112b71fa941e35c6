/**
 * The two scheduling taints the cluster controller derives from the `Ready` condition, as
 * upstream: `cluster.karmada.io/not-ready:NoSchedule` while Ready is False or absent,
 * `cluster.karmada.io/unreachable:NoSchedule` while it is Unknown, neither while it is True.
 * These only steer new placements; moving existing ones takes a NoExecute taint, which this rule
 * never touches (a `not-ready:NoExecute` from a ClusterTaintPolicy is a different key and effect).
 */
import {
  addTaint,
  clusterTaintKeys,
  formatTime,
  removeTaint,
  taintEffects,
  type ClusterCondition,
  type Taint,
  type TaintIdentity,
} from '@kf/api';
import { planTaintChange, type TaintPlan } from './taint-diff.ts';

const notReady: TaintIdentity = { key: clusterTaintKeys.notReady, effect: taintEffects.noSchedule };
const unreachable: TaintIdentity = { key: clusterTaintKeys.unreachable, effect: taintEffects.noSchedule };

/**
 * The cluster's taint list with the scheduling taints matching `ready`. Taints are matched by key
 * and effect (a retained taint keeps its value and `timeAdded`); other taints are left as they
 * are; added taints have no value, `timeAdded = nowMs`, and come after the retained ones.
 */
export function planSchedulingTaints(
  current: readonly Taint[] | undefined,
  ready: ClusterCondition | undefined,
  nowMs: number,
): TaintPlan {
  const stamp = (t: TaintIdentity): Taint => ({ ...t, timeAdded: formatTime(nowMs) });
  let taints: readonly Taint[] = current ?? [];
  switch (ready?.status) {
    case undefined:
      taints = addTaint(taints, stamp(notReady));
      break;
    case 'False':
      taints = addTaint(removeTaint(taints, unreachable), stamp(notReady));
      break;
    case 'Unknown':
      taints = addTaint(removeTaint(taints, notReady), stamp(unreachable));
      break;
    case 'True':
      taints = removeTaint(removeTaint(taints, notReady), unreachable);
      break;
  }
  return planTaintChange(current, taints);
}
