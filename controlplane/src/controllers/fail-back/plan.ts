/**
 * Whether a binding that cluster failover moved goes back now, and how. Pure: the binding's
 * fields, what is known of the clusters, and the time in; a decision out.
 *
 * A binding goes back when every cluster it ran on before the failover (its placement record) is
 * placed-worthy again: it exists, and has been steady for the whole window. Going back is one
 * write: the clusters it fled to leave `spec.clusters` with a graceful eviction task each (their
 * copies stay until the workload is healthy on its new placement, or the graceful eviction
 * timeout ends), and `spec.rescheduleTriggeredAt` asks the scheduler for a fresh placement, which
 * the policy's first choices win again. A cluster it kept throughout only changes replicas.
 *
 * It waits while any eviction of the binding is still running (the previous move has not
 * finished), while the fleet guard holds evictions back, while `maxInFlight` fail-backs are under
 * way, and while the scheduler has scheduled it within the current second (a reschedule asked for
 * in the same second as the last one would not count). The record is dropped without a move when
 * the binding is back already (every recorded cluster placed: a Duplicated workload is placed
 * back as soon as its cluster returns), a recorded cluster no longer exists, the record cannot be
 * read, or fail-back was turned off.
 */
import { parseTime, type GracefulEvictionTask, type TargetCluster } from '@kf/api';
import type { PlacementRecord } from './record.ts';

export interface FailBackBinding {
  readonly deleting: boolean;
  readonly clusters: readonly TargetCluster[];
  readonly tasks: readonly GracefulEvictionTask[];
  readonly rescheduleTriggeredAt: string | undefined;
  readonly lastScheduledTime: string | undefined;
}

export interface FailBackInput {
  readonly binding: FailBackBinding;
  readonly record: PlacementRecord;
  readonly windowMs: number;
  /** Since when `cluster` has been steady; undefined: not steady now (the string says why). */
  readonly steadySince: (cluster: string) => { readonly sinceMs: number } | { readonly why: string };
  readonly exists: (cluster: string) => boolean;
  readonly guardPaused: boolean;
  readonly inFlight: number;
  readonly maxInFlight: number;
  readonly nowMs: number;
}

export type DropReason = 'AlreadyBack' | 'ClusterGone';

export type WaitReason =
  'Evicting' | 'Unsteady' | 'Stabilizing' | 'FleetGuard' | 'Concurrency' | 'SchedulerBusy';

export type FailBackDecision =
  | { readonly kind: 'none' }
  | { readonly kind: 'drop'; readonly reason: DropReason; readonly message: string }
  | {
      readonly kind: 'wait';
      readonly reason: WaitReason;
      readonly message: string;
      /** Look again after this long; absent: a change of the binding or a cluster brings it back. */
      readonly recheckInMs?: number;
    }
  | {
      readonly kind: 'return';
      /** Clusters placed again by the fresh placement. */
      readonly returnTo: readonly string[];
      /** Clusters the workload fled to: they leave with a graceful eviction task each. */
      readonly leave: readonly string[];
    };

/** How often a binding waiting for an unsteady cluster looks again without a change of it. */
export const UNSTEADY_RECHECK_MS = 30_000;

/** How often a binding held back by the guard or the concurrency limit looks again. */
export const HELD_RECHECK_MS = 2_000;

export function decideFailBack(input: FailBackInput): FailBackDecision {
  const { binding, record, nowMs } = input;
  if (binding.deleting) return { kind: 'none' };
  const recorded = record.clusters.map((c) => c.name);
  const gone = recorded.filter((c) => !input.exists(c));
  if (gone.length > 0) {
    return { kind: 'drop', reason: 'ClusterGone', message: `cluster(s) ${gone.join(', ')} no longer exist` };
  }
  const placed = new Set(binding.clusters.map((c) => c.name));
  const returnTo = recorded.filter((c) => !placed.has(c));
  if (returnTo.length === 0) {
    return { kind: 'drop', reason: 'AlreadyBack', message: `placed on ${recorded.join(', ')} again` };
  }
  if (binding.tasks.length > 0) {
    const from = binding.tasks.map((t) => t.fromCluster).join(', ');
    return { kind: 'wait', reason: 'Evicting', message: `an eviction from ${from} is still running` };
  }
  let readyInMs = 0;
  for (const c of recorded) {
    const s = input.steadySince(c);
    if (!('sinceMs' in s)) {
      // A change of the cluster brings it back; the recheck covers a Lease renewed again
      // without one (Ready never left True).
      return {
        kind: 'wait',
        reason: 'Unsteady',
        message: `cluster ${c}: ${s.why}`,
        recheckInMs: UNSTEADY_RECHECK_MS,
      };
    }
    readyInMs = Math.max(readyInMs, s.sinceMs + input.windowMs - nowMs);
  }
  if (readyInMs > 0) {
    return {
      kind: 'wait',
      reason: 'Stabilizing',
      message: `${recorded.join(', ')} steady; going back in ${String(Math.ceil(readyInMs / 1000))} s`,
      recheckInMs: readyInMs,
    };
  }
  if (input.guardPaused) {
    return {
      kind: 'wait',
      reason: 'FleetGuard',
      message: 'the fleet guard holds evictions back',
      recheckInMs: HELD_RECHECK_MS,
    };
  }
  if (input.inFlight >= input.maxInFlight) {
    return {
      kind: 'wait',
      reason: 'Concurrency',
      message: `${String(input.inFlight)} fail-backs under way (at most ${String(input.maxInFlight)})`,
      recheckInMs: HELD_RECHECK_MS,
    };
  }
  const secondStart = Math.floor(nowMs / 1000) * 1000;
  const last = parseTime(binding.lastScheduledTime);
  if (last !== undefined && last >= secondStart) {
    return {
      kind: 'wait',
      reason: 'SchedulerBusy',
      message: 'scheduled within this second',
      recheckInMs: secondStart + 1000 - nowMs,
    };
  }
  const keep = new Set(recorded);
  const leave = binding.clusters.map((c) => c.name).filter((c) => !keep.has(c));
  return { kind: 'return', returnTo, leave };
}

/** A fail-back of this binding is under way: a task it left is running, or its reschedule is pending. */
export function isFailBackInFlight(
  binding: Pick<FailBackBinding, 'tasks' | 'rescheduleTriggeredAt' | 'lastScheduledTime'>,
  producer: string,
): boolean {
  if (binding.tasks.some((t) => t.producer === producer)) return true;
  const asked = parseTime(binding.rescheduleTriggeredAt);
  const last = parseTime(binding.lastScheduledTime);
  return asked !== undefined && (last === undefined || asked > last);
}
