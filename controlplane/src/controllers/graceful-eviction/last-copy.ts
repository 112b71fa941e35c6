/**
 * How a binding shows that graceful eviction keeps copies past their timeout because no other
 * cluster runs a healthy one (assessment.ts, verdict `keepLastCopy`): condition `LastCopyKept`,
 * True while such a task exists and naming its clusters, absent otherwise; a Warning Event
 * `LastCopyKept` for each of them when the condition is written, so a copy kept for hours is
 * reported when that begins, not at every look.
 */
import {
  bindingConditionTypes,
  findCondition,
  formatTime,
  removeCondition,
  setCondition,
  type Condition,
} from '@kf/api';
import { compareNames } from '../../scheduler/name-order.ts';

export const LAST_COPY_KEPT = bindingConditionTypes.lastCopyKept;
/** The condition's reason while True. */
export const NO_HEALTHY_REPLACEMENT = 'NoHealthyReplacement';

export interface KeptCopy {
  readonly cluster: string;
  readonly deadlineMs: number;
}

export interface LastCopyPlan {
  /** The binding's conditions to write. */
  readonly conditions: readonly Condition[];
  /** The copies to report with an Event each (all of them, when the condition changes to say so). */
  readonly report: readonly KeptCopy[];
}

/** The binding's conditions for `kept`; undefined when they already say so. */
export function planLastCopyCondition(
  conditions: readonly Condition[] | undefined,
  kept: readonly KeptCopy[],
  nowMs: number,
): LastCopyPlan | undefined {
  const existing = findCondition(conditions, LAST_COPY_KEPT);
  if (kept.length === 0) {
    return existing === undefined
      ? undefined
      : { conditions: removeCondition(conditions, LAST_COPY_KEPT), report: [] };
  }
  const sorted = [...kept].sort((a, b) => compareNames(a.cluster, b.cluster));
  const message = describeKept(sorted);
  if (existing?.status === 'True' && existing.message === message) return undefined;
  return {
    conditions: setCondition<Condition>(
      conditions,
      { type: LAST_COPY_KEPT, status: 'True', reason: NO_HEALTHY_REPLACEMENT, message },
      nowMs,
    ),
    report: sorted,
  };
}

/** The Event's message for one kept copy. */
export function describeKeptCopy(k: KeptCopy): string {
  return (
    `The graceful eviction from cluster ${k.cluster} timed out at ${formatTime(k.deadlineMs)}, but no other ` +
    `cluster runs a healthy copy of the workload: the copy on ${k.cluster} is kept until one does, or ` +
    `until ${k.cluster} can take the workload again.`
  );
}

function describeKept(kept: readonly KeptCopy[]): string {
  return `Graceful eviction timed out with no healthy copy elsewhere; copies kept on: ${kept.map((k) => `${k.cluster} (timed out ${formatTime(k.deadlineMs)})`).join(', ')}.`;
}
