/**
 * Debounce of the `Ready` condition across the True / not-True boundary (upstream's
 * cluster-success-threshold and cluster-failure-threshold): a new observation replaces the stored
 * condition only after it has been seen without interruption for the threshold of its direction.
 */
import type { ClusterCondition, ConditionStatus, ConditionUpdate } from '@kf/api';

/** What the agent remembers between probes (in memory only, as upstream). */
export interface ReadyMemory {
  /** The status the last probe observed. */
  readonly lastObserved: ConditionStatus;
  /** When that status was first observed in a row; 0 for "at start-up" (never holds back). */
  readonly sinceMs: number;
}

export interface Thresholds {
  /** How long True must be observed before a not-True Ready becomes True. */
  readonly successMs: number;
  /** How long not-True must be observed before a True Ready becomes not-True. */
  readonly failureMs: number;
}

/** One probe's outcome with what it is judged against. */
export interface ReadyObservation {
  readonly memory: ReadyMemory | undefined;
  /** The `Ready` condition stored in the Cluster now. */
  readonly stored: ClusterCondition | undefined;
  readonly observed: ConditionUpdate;
  readonly nowMs: number;
  /**
   * Since when the observation holds, when that is before `nowMs`: a probe that got no answer at
   * all has heard nothing from the member since it was sent, however long it waited.
   */
  readonly heldSinceMs?: number;
}

export type ReadyDecision =
  /** Write the observed condition. */
  | { readonly kind: 'observed'; readonly memory: ReadyMemory; readonly condition: ConditionUpdate }
  /** Keep the stored condition; the observation wins at `flipAtMs` if it lasts. */
  | { readonly kind: 'held'; readonly memory: ReadyMemory; readonly flipAtMs: number };

/**
 * Folds one observation in, with upstream's rules in order:
 * 1. first observation since start: remembered with time 0 and reported as it is;
 * 2. no stored Ready: reported as it is (memory unchanged);
 * 3. a status different from the last observed one restarts the clock at `nowMs`, or earlier at
 *    `heldSinceMs`: a member that has not answered a probe for 5 s has been unreachable for 5 s
 *    when the probe gives up, and the failure threshold counts them;
 * 4. crossing the True / not-True boundary (False ↔ Unknown is not a crossing) is held back until
 *    the observation is as old as the threshold of its direction.
 */
export function decideReady(input: ReadyObservation, thresholds: Thresholds): ReadyDecision {
  const { memory, stored, observed, nowMs } = input;
  const sinceMs = Math.min(nowMs, input.heldSinceMs ?? nowMs);
  if (memory === undefined) {
    return { kind: 'observed', memory: { lastObserved: observed.status, sinceMs: 0 }, condition: observed };
  }
  if (stored === undefined) return { kind: 'observed', memory, condition: observed };
  const next = memory.lastObserved === observed.status ? memory : { lastObserved: observed.status, sinceMs };
  const toTrue = observed.status === 'True';
  const crossing = toTrue !== (stored.status === 'True');
  const flipAtMs = next.sinceMs + (toTrue ? thresholds.successMs : thresholds.failureMs);
  if (crossing && nowMs < flipAtMs) return { kind: 'held', memory: next, flipAtMs };
  return { kind: 'observed', memory: next, condition: observed };
}
