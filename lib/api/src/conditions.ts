/** Reading and writing status conditions with the semantics of apimachinery's SetStatusCondition. */
import type { Condition, ConditionStatus, Time } from './meta.ts';
import { formatTime } from './time.ts';

/** The least a condition has (Cluster conditions written by others may lack the rest). */
export interface ConditionLike {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly observedGeneration?: number;
  readonly lastTransitionTime?: Time;
  readonly reason?: string;
  readonly message?: string;
}

/** A condition list, or a status object holding one. */
export type ConditionSource<C> = readonly C[] | { readonly conditions?: readonly C[] } | undefined;

function isList<C>(source: readonly C[] | { readonly conditions?: readonly C[] }): source is readonly C[] {
  return Array.isArray(source);
}

function listOf<C>(source: ConditionSource<C>): readonly C[] {
  if (source === undefined) return [];
  return isList(source) ? source : (source.conditions ?? []);
}

export function findCondition<C extends ConditionLike>(
  source: ConditionSource<C>,
  type: string,
): C | undefined {
  return listOf(source).find((c) => c.type === type);
}

/** True only when the condition exists and its status is `True`. */
export function isConditionTrue(source: ConditionSource<ConditionLike>, type: string): boolean {
  return findCondition(source, type)?.status === 'True';
}

/** The desired state of one condition; `lastTransitionTime` defaults to now when it changes. */
export interface ConditionUpdate {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
  readonly lastTransitionTime?: Time;
}

/**
 * Returns a new list with `update` applied: appended when the type is new, replaced in place
 * otherwise. The transition time moves only when the status changes; reason, message and
 * observedGeneration are always taken from `update`.
 */
export function setCondition<C extends ConditionLike>(
  conditions: readonly C[] | undefined,
  update: ConditionUpdate,
  nowMs: number,
): readonly (C | Condition)[] {
  const list = conditions ?? [];
  const index = list.findIndex((c) => c.type === update.type);
  const existing = index < 0 ? undefined : list[index];
  const changed = existing?.status !== update.status;
  const transitionTime =
    (changed ? undefined : existing.lastTransitionTime) ?? update.lastTransitionTime ?? formatTime(nowMs);
  const next: Condition = {
    type: update.type,
    status: update.status,
    ...(update.observedGeneration === undefined ? {} : { observedGeneration: update.observedGeneration }),
    lastTransitionTime: transitionTime,
    reason: update.reason,
    message: update.message,
  };
  if (index < 0) return [...list, next];
  return list.map((c, i) => (i === index ? next : c));
}

/** Returns a new list without conditions of `type`. */
export function removeCondition<C extends ConditionLike>(
  conditions: readonly C[] | undefined,
  type: string,
): readonly C[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
