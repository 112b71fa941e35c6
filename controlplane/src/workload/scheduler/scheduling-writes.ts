/**
 * What a scheduling pass writes: the placement result with the applied-placement
 * annotation, then the status (`Scheduled` condition; on success also the observed generation,
 * `lastScheduledTime` and the chosen affinity term). Each part is left out when it would not change
 * anything. The status is planned from the binding as the placement write left it: the generation
 * that write made is the scheduler's own result, so it is the one observed, and no later pass has
 * to catch the status up with it.
 */
import { annotations, formatTime, isSameJson, setCondition, type ResourceBinding } from '@kf/api';
import { describeResult, type ScheduleResult } from '../../scheduler/schedule.ts';

/** Merge patch of the binding (guarded by its resourceVersion); undefined: nothing to write. */
export function planPlacementPatch(b: ResourceBinding, r: ScheduleResult): object | undefined {
  if (!r.writeClusters) return undefined;
  const applied = JSON.stringify(b.spec.placement ?? {});
  const sameAnnotation = b.metadata.annotations?.[annotations.appliedPlacement] === applied;
  if (sameAnnotation && isSameJson(b.spec.clusters ?? [], r.clusters)) return undefined;
  return {
    metadata: {
      resourceVersion: b.metadata.resourceVersion,
      annotations: { [annotations.appliedPlacement]: applied },
    },
    spec: { clusters: r.clusters },
  };
}

/**
 * Merge patch of the status subresource; undefined: nothing to write. `b` is the binding as the
 * placement write returned it (as read when nothing was written).
 */
export function planStatusPatch(b: ResourceBinding, r: ScheduleResult, nowMs: number): object | undefined {
  const status = b.status ?? {};
  const conditions = setCondition(status.conditions, r.condition, nowMs);
  const success = r.condition.status === 'True';
  const next = {
    conditions,
    ...(success && b.metadata.generation !== undefined
      ? { schedulerObservedGeneration: b.metadata.generation }
      : {}),
    ...(r.affinityName === undefined ? {} : { schedulerObservingAffinityName: r.affinityName }),
  };
  const changed =
    !isSameJson(status.conditions, conditions) ||
    (next.schedulerObservedGeneration !== undefined &&
      next.schedulerObservedGeneration !== status.schedulerObservedGeneration) ||
    (next.schedulerObservingAffinityName !== undefined &&
      next.schedulerObservingAffinityName !== status.schedulerObservingAffinityName);
  // A successful pass always records when it happened (the graceful eviction controller and
  // explicit reschedules compare against it), even when it placed nothing new.
  if (!changed && !success) return undefined;
  return { status: { ...next, ...(success ? { lastScheduledTime: formatTime(nowMs) } : {}) } };
}

/** The event message of a pass: upstream's text plus, on failure, why each cluster was refused. */
export function describePass(r: ScheduleResult): { readonly ok: boolean; readonly message: string } {
  if (r.condition.status === 'True') {
    return {
      ok: true,
      message: `Binding has been scheduled successfully. Result: ${describeResult(r.clusters)}`,
    };
  }
  const details = r.rejected.map((x) => `${x.cluster}: ${x.plugin}: ${x.reason}`).join('; ');
  return { ok: false, message: details === '' ? r.condition.message : `${r.condition.message} (${details})` };
}
