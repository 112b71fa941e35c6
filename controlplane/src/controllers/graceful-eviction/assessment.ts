/**
 * When a graceful eviction task may go: the rules of upstream's graceful-eviction controller, in
 * its order, for every task of a binding, with this project's two safeguards for the last copy.
 *
 * 1. A task without `creationTimestamp` is stamped now and kept; nothing else is judged this round.
 * 2. Its timeout is its own `gracePeriodSeconds`, else `--graceful-eviction-timeout` (10m).
 * 3. `suppressDeletion: false` removes it (a person confirmed).
 * 4. Extension: the scheduler placed the binding on the task's cluster again (any purge mode but
 *    `Directly`): removed, and the copy there stays as it is, now as part of the placement. The
 *    scheduler does so only once the eviction's cause has ended and no other cluster runs a
 *    healthy copy (cause.ts). The task goes after the placement, never before it: dropped first,
 *    it would leave the cluster neither placed nor evicted for a moment, and the binding
 *    controller would delete the Work, and the member's copy with it, only to write it again.
 * 5. `suppressDeletion: true` keeps it; extension: `purgeMode: Never` without `suppressDeletion`
 *    keeps it too (see below).
 * 6. Past its timeout: removed (a `Directly` task, whose copy is gone already, always). Extension:
 *    a task that keeps a copy is removed only when another cluster of `spec.clusters` runs a
 *    `Healthy` copy, or when its cluster holds no Work any more (nothing to keep); otherwise it is
 *    kept, the copy with it (`keepLastCopy`: the controller says so with a binding condition and an
 *    Event), until a healthy copy appears elsewhere (rule 7) or the cluster is placed again (rule 4).
 * 7. The scheduler has observed the binding's generation and the workload is `Healthy` on every
 *    cluster in `spec.clusters`: removed.
 * 8. Otherwise kept, to be looked at again at its deadline (health changes arrive as binding events).
 *
 * Deliberate differences from upstream:
 * - A timeout never removes the last copy (rule 6): upstream deletes the old copy at the timeout
 *   even when the workload runs nowhere else.
 * - `purgeMode: Never` means "until a person removes it". Upstream only honours that through the
 *   `suppressDeletion: true` its application failover writes alongside; a Never task written by
 *   anything else would time out after 10 minutes and have its workload deleted. Here Never alone
 *   is enough, and `suppressDeletion: false` still removes it.
 * - An empty `spec.clusters` is not "healthy everywhere". Upstream's check is vacuously true there,
 *   so a binding the scheduler could not place anywhere loses its old copies at once; here the task
 *   stays.
 * - The timeout is reached at `creation + timeout` exactly (upstream: strictly after), so the
 *   recheck it asks for is never zero.
 */
import {
  formatTime,
  givenPurgeMode,
  parseTime,
  purgeModes,
  resourceHealths,
  type AggregatedStatusItem,
  type GracefulEvictionTask,
  type ResourceBindingSpec,
  type ResourceBindingStatus,
} from '@kf/api';
import { healthByCluster, healthyCopyElsewhere } from './cause.ts';

/** Upstream's `--graceful-eviction-timeout`. */
export const DEFAULT_GRACEFUL_EVICTION_TIMEOUT_MS = 10 * 60_000;

/** What the rules read from the binding. */
export interface BindingProgress {
  readonly generation: number | undefined;
  readonly spec: Pick<ResourceBindingSpec, 'clusters' | 'gracefulEvictionTasks'>;
  readonly status:
    Pick<ResourceBindingStatus, 'schedulerObservedGeneration' | 'aggregatedStatus'> | undefined;
}

/** Why a task was removed (for the `EvictWorkloadFromClusterSucceed` Event and logs). */
export type RemovalReason = 'DeletionConfirmed' | 'TimedOut' | 'HealthyElsewhere' | 'PlacedAgain';

export type TaskVerdict =
  /** First sight: keep with `creationTimestamp` set to now; recheck at its deadline if it has one. */
  | { readonly kind: 'stamp'; readonly task: GracefulEvictionTask; readonly recheckInMs?: number }
  /** Keep; recheck after `recheckInMs`, or only on change when it is absent. */
  | { readonly kind: 'keep'; readonly recheckInMs?: number }
  /**
   * Past its deadline, but no other cluster runs a healthy copy: kept, and the copy with it. No
   * recheck: what ends it (a healthy copy elsewhere, the cluster placed again) is a binding change.
   */
  | { readonly kind: 'keepLastCopy'; readonly deadlineMs: number }
  | { readonly kind: 'remove'; readonly reason: RemovalReason };

/** Judges one task of a binding by the rules above. */
export function judgeEvictionTask(
  task: GracefulEvictionTask,
  binding: BindingProgress,
  nowMs: number,
  defaultTimeoutMs: number,
): TaskVerdict {
  const timeoutMs = task.gracePeriodSeconds === undefined ? defaultTimeoutMs : task.gracePeriodSeconds * 1000;
  const createdAtMs = parseTime(task.creationTimestamp);
  if (createdAtMs === undefined) return stamp(task, nowMs, timeoutMs);
  if (task.suppressDeletion === false) return { kind: 'remove', reason: 'DeletionConfirmed' };
  if (isPlacedAgain(task, binding)) return { kind: 'remove', reason: 'PlacedAgain' };
  if (!canTimeOut(task)) return { kind: 'keep' };
  const deadlineMs = createdAtMs + timeoutMs;
  if (nowMs >= deadlineMs) return judgeTimedOut(task, binding, deadlineMs);
  if (isHealthyElsewhere(binding)) return { kind: 'remove', reason: 'HealthyElsewhere' };
  return { kind: 'keep', recheckInMs: deadlineMs - nowMs };
}

/**
 * Past the deadline: removed, unless the task keeps a copy that no healthy one replaces (rule 6).
 * The binding's status has an item for every Work not being deleted that its member reported on:
 * without one for the task's cluster (its Work went with the cluster, say, or was never applied
 * there) there is no copy left to keep.
 */
function judgeTimedOut(
  task: GracefulEvictionTask,
  binding: BindingProgress,
  deadlineMs: number,
): TaskVerdict {
  if (givenPurgeMode(task.purgeMode) === purgeModes.directly) return { kind: 'remove', reason: 'TimedOut' };
  const placed = (binding.spec.clusters ?? []).map((c) => c.name);
  const health = healthByCluster(binding.status?.aggregatedStatus);
  const kept = health.has(task.fromCluster);
  return kept && healthyCopyElsewhere(task.fromCluster, placed, health) === undefined
    ? { kind: 'keepLastCopy', deadlineMs }
    : { kind: 'remove', reason: 'TimedOut' };
}

/** The task's cluster is in `spec.clusters` again and the task kept a copy there (rule 4). */
function isPlacedAgain(task: GracefulEvictionTask, binding: BindingProgress): boolean {
  if (givenPurgeMode(task.purgeMode) === purgeModes.directly) return false;
  return (binding.spec.clusters ?? []).some((c) => c.name === task.fromCluster);
}

/** First sight: the task stamped now, with a recheck at its deadline when it can time out. */
function stamp(task: GracefulEvictionTask, nowMs: number, timeoutMs: number): TaskVerdict {
  const creationTimestamp = formatTime(nowMs);
  const stamped = { kind: 'stamp', task: { ...task, creationTimestamp } } as const;
  if (!canTimeOut(task)) return stamped;
  // The stamp has second precision: the deadline counts from it, not from nowMs.
  return {
    ...stamped,
    recheckInMs: Math.max(1, (parseTime(creationTimestamp) ?? nowMs) + timeoutMs - nowMs),
  };
}

/** Tasks kept until a person acts never time out. */
function canTimeOut(task: GracefulEvictionTask): boolean {
  return task.suppressDeletion === undefined && givenPurgeMode(task.purgeMode) !== purgeModes.never;
}

/**
 * True when the scheduler has caught up with the binding and every cluster it now places the
 * workload on reports it `Healthy`; false when it places it nowhere.
 */
export function isHealthyElsewhere(binding: BindingProgress): boolean {
  const clusters = binding.spec.clusters ?? [];
  if (clusters.length === 0) return false;
  const observed = binding.status?.schedulerObservedGeneration;
  if (observed === undefined || observed !== binding.generation) return false;
  const items = binding.status?.aggregatedStatus ?? [];
  return clusters.every((c) => isHealthyOn(items, c.name));
}

function isHealthyOn(items: readonly AggregatedStatusItem[], cluster: string): boolean {
  return items.some((i) => i.clusterName === cluster && i.health === resourceHealths.healthy);
}

export interface EvictionTaskPlan {
  /** The tasks to keep, in their order, first-seen ones stamped. */
  readonly tasks: readonly GracefulEvictionTask[];
  /** Tasks removed this round, each with why. */
  readonly removed: readonly { readonly task: GracefulEvictionTask; readonly reason: RemovalReason }[];
  /** True when `tasks` differs from the binding's list (write `spec.gracefulEvictionTasks`). */
  readonly changed: boolean;
  /** The earliest deadline among kept tasks that have one. */
  readonly recheckInMs?: number;
  /** Tasks past their deadline kept for the copy no other cluster replaces (verdict `keepLastCopy`). */
  readonly lastCopies: readonly { readonly task: GracefulEvictionTask; readonly deadlineMs: number }[];
}

/** Judges every task of a binding and assembles the new list. */
export function planEvictionTasks(
  binding: BindingProgress,
  nowMs: number,
  defaultTimeoutMs: number,
): EvictionTaskPlan {
  const tasks: GracefulEvictionTask[] = [];
  const removed: { task: GracefulEvictionTask; reason: RemovalReason }[] = [];
  const lastCopies: { task: GracefulEvictionTask; deadlineMs: number }[] = [];
  let recheckInMs: number | undefined;
  let stamped = false;
  for (const task of binding.spec.gracefulEvictionTasks ?? []) {
    const verdict = judgeEvictionTask(task, binding, nowMs, defaultTimeoutMs);
    if (verdict.kind === 'remove') {
      removed.push({ task, reason: verdict.reason });
      continue;
    }
    tasks.push(verdict.kind === 'stamp' ? verdict.task : task);
    if (verdict.kind === 'keepLastCopy') {
      lastCopies.push({ task, deadlineMs: verdict.deadlineMs });
      continue;
    }
    stamped ||= verdict.kind === 'stamp';
    if (verdict.recheckInMs !== undefined)
      recheckInMs = Math.min(recheckInMs ?? verdict.recheckInMs, verdict.recheckInMs);
  }
  const changed = stamped || removed.length > 0;
  return { tasks, removed, changed, lastCopies, ...(recheckInMs === undefined ? {} : { recheckInMs }) };
}
