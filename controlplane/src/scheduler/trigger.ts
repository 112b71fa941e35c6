/**
 * Whether a binding needs a scheduling pass, in upstream's order: placement changed since
 * it was last applied, replicas no longer add up, a reschedule was asked for, the binding is one
 * that is always rescheduled, or it sits on a cluster being deleted. Otherwise only the observed
 * generation may need catching up.
 */
import { annotations, isSameJson, parseTime } from '@kf/api';
import type { Placement, ReplicaSchedulingStrategy, ResourceBinding, ResourceBindingSpec } from '@kf/api';

/** Why a pass runs; upstream labels its scheduling metrics with these. */
export type ScheduleReason =
  'ReconcileSchedule' | 'ScaleSchedule' | 'Reschedule' | 'AlwaysSchedule' | 'TerminatingTargets';

export type ScheduleTrigger =
  /** Being deleted: upstream only emits a warning event. */
  | { readonly kind: 'Deleting' }
  /** No placement: an error for the caller to report. */
  | { readonly kind: 'NoPlacement' }
  | { readonly kind: 'Schedule'; readonly reason: ScheduleReason }
  /** Nothing to schedule; `observedGeneration` is set when the status must catch up to it. */
  | { readonly kind: 'Skip'; readonly observedGeneration: number | undefined };

/**
 * Decides for one binding, given the names of clusters that carry a deletion timestamp. Reads the
 * binding object itself: the decision compares API fields and the applied-placement annotation.
 */
export function decideScheduling(
  binding: ResourceBinding,
  terminating: ReadonlySet<string>,
): ScheduleTrigger {
  const { metadata, spec, status } = binding;
  if (metadata.deletionTimestamp !== undefined) return { kind: 'Deleting' };
  const placement = spec.placement;
  if (placement === undefined) return { kind: 'NoPlacement' };
  const reason = reasonToSchedule(binding, placement, terminating);
  if (reason !== undefined) return { kind: 'Schedule', reason };
  const generation = metadata.generation;
  const lagging = generation !== undefined && status?.schedulerObservedGeneration !== generation;
  return { kind: 'Skip', observedGeneration: lagging ? generation : undefined };
}

function reasonToSchedule(
  binding: ResourceBinding,
  placement: Placement,
  terminating: ReadonlySet<string>,
): ScheduleReason | undefined {
  const { spec, status } = binding;
  const applied = binding.metadata.annotations?.[annotations.appliedPlacement];
  if (isPlacementChanged(placement, applied, status?.schedulerObservingAffinityName ?? ''))
    return 'ReconcileSchedule';
  if (areReplicasChanged(spec, placement.replicaScheduling)) return 'ScaleSchedule';
  if (isRescheduleRequested(spec.rescheduleTriggeredAt, status?.lastScheduledTime)) return 'Reschedule';
  if (isAlwaysScheduled(spec, placement.replicaScheduling)) return 'AlwaysSchedule';
  if ((spec.clusters ?? []).some((c) => terminating.has(c.name))) return 'TerminatingTargets';
  return undefined;
}

/**
 * Against the last applied placement (JSON in the annotation): none → changed; unreadable → not
 * changed; a change to affinity, tolerations, spread constraints or replica scheduling → changed;
 * with `clusterAffinities`, only the observed term counts (unknown or missing term → changed).
 */
export function isPlacementChanged(
  placement: Placement,
  appliedJson: string | undefined,
  observedTerm: string,
): boolean {
  if (appliedJson === undefined || appliedJson === '') return true;
  let applied: Placement;
  try {
    applied = JSON.parse(appliedJson) as Placement;
  } catch {
    return false;
  }
  if (isSameJson(placement, applied)) return false;
  const fields = ['clusterAffinity', 'clusterTolerations', 'spreadConstraints', 'replicaScheduling'] as const;
  if (fields.some((f) => !isSameJson(placement[f], applied[f]))) return true;
  if (observedTerm === '') return true;
  const now = placement.clusterAffinities?.find((t) => t.affinityName === observedTerm);
  const before = applied.clusterAffinities?.find((t) => t.affinityName === observedTerm);
  return now === undefined || before === undefined || !isSameJson(now, before);
}

/**
 * Duplicated: some cluster does not hold all replicas; Divided: the clusters' replicas do not add
 * up to the binding's. Without replica scheduling: never.
 */
export function areReplicasChanged(
  spec: ResourceBindingSpec,
  s: ReplicaSchedulingStrategy | undefined,
): boolean {
  if (s === undefined) return false;
  const replicas = spec.replicas ?? 0;
  const clusters = spec.clusters ?? [];
  if (s.replicaSchedulingType === 'Duplicated') return clusters.some((c) => (c.replicas ?? 0) !== replicas);
  return clusters.reduce((sum, c) => sum + (c.replicas ?? 0), 0) !== replicas;
}

function isRescheduleRequested(triggeredAt: string | undefined, lastScheduled: string | undefined): boolean {
  const t = parseTime(triggeredAt);
  const last = parseTime(lastScheduled);
  return t !== undefined && last !== undefined && t > last;
}

/** Bindings without replicas and Duplicated ones are scheduled on every change. */
function isAlwaysScheduled(spec: ResourceBindingSpec, s: ReplicaSchedulingStrategy | undefined): boolean {
  const noReplicas =
    (spec.replicas ?? 0) === 0 &&
    spec.replicaRequirements === undefined &&
    (spec.components ?? []).length === 0;
  return noReplicas || s === undefined || s.replicaSchedulingType === 'Duplicated';
}
