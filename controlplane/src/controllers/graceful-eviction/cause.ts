/**
 * Whether a graceful eviction is still needed: what made it (read from the task's `reason` and
 * `producer`), whether that still holds, and whether the binding may therefore take the cluster
 * back, keeping the copy that still runs there.
 *
 * | Task (reason / producer)                                  | The cause holds while                                                       |
 * | --------------------------------------------------------- | --------------------------------------------------------------------------- |
 * | `TaintUntolerated` / `TaintManager`                       | the taint manager would evict the binding from the cluster now or later     |
 * | `ApplicationFailure` / an application failover controller | the workload is not reported `Healthy` on the cluster                       |
 * | `FailBack` / `fail-back-controller`                       | always: leaving was a decision, not a fault                                 |
 * | anything else                                             | always (a cause this project cannot judge is left as upstream leaves it)    |
 *
 * A taint cause is judged with the taint manager's own rule ({@link judgeEviction}) against the
 * cluster's current taints and the tolerations the binding would be placed with: it has ended
 * when no NoExecute taint is left or every one is tolerated without a time limit. A NoExecute
 * taint tolerated only for a while counts as holding (the binding would be evicted again), and so
 * does a cluster that is gone or being deleted.
 *
 * The binding may take the cluster back when the cause has ended, the task keeps a copy there
 * (any purge mode but `Directly`; not a task whose deletion a person confirmed with
 * `suppressDeletion: false`), and no cluster of `spec.clusters` other than the task's reports a
 * `Healthy` copy. Where another cluster took the workload and runs it healthily, the task runs
 * its course as upstream's: nothing fails back except through fail-back's window. Copies kept by
 * other eviction tasks are not replacements: they are leaving too.
 *
 * Deliberate difference: upstream keeps the cluster out for the task's whole life, so a workload
 * whose only cluster recovered stays unplaced until the task times out, and is then deleted and
 * created again there.
 */
import {
  evictionProducers,
  evictionReasons,
  givenPurgeMode,
  purgeModes,
  resourceHealths,
  type AggregatedStatusItem,
  type GracefulEvictionTask,
  type ResourceHealth,
  type Taint,
  type Toleration,
} from '@kf/api';
import { judgeEviction } from '../taint-manager/eviction.ts';

export type EvictionCause = 'Taint' | 'Application' | 'FailBack' | 'Unknown';

/** Reads what made the task from its `reason` and `producer`. */
export function causeOf(task: Pick<GracefulEvictionTask, 'reason' | 'producer'>): EvictionCause {
  const { reason, producer } = task;
  if (reason === evictionReasons.taintUntolerated && producer === evictionProducers.taintManager)
    return 'Taint';
  if (
    reason === evictionReasons.applicationFailure &&
    (producer === evictionProducers.resourceBindingApplicationFailover ||
      producer === evictionProducers.clusterResourceBindingApplicationFailover)
  )
    return 'Application';
  if (reason === evictionReasons.failBack && producer === evictionProducers.failBack) return 'FailBack';
  return 'Unknown';
}

/** The task's cluster as it is now; undefined when it no longer exists. */
export interface CauseCluster {
  readonly taints: readonly Taint[];
  readonly deleting: boolean;
}

/** What a cause is judged against. */
export interface CauseInput {
  readonly cluster: CauseCluster | undefined;
  /** The tolerations the binding is (or would be) placed with. */
  readonly tolerations: readonly Toleration[];
  /** The workload's health on each cluster (`status.aggregatedStatus`). */
  readonly health: ReadonlyMap<string, ResourceHealth>;
  readonly nowMs: number;
}

export type CauseVerdict = { readonly holds: boolean; readonly why: string };

/** Whether what made the task still holds, and why, in words. */
export function judgeCause(task: GracefulEvictionTask, input: CauseInput): CauseVerdict {
  switch (causeOf(task)) {
    case 'Taint':
      return judgeTaintCause(task.fromCluster, input);
    case 'Application': {
      const health = input.health.get(task.fromCluster) ?? resourceHealths.unknown;
      return health === resourceHealths.healthy
        ? { holds: false, why: `the workload is Healthy on ${task.fromCluster} again` }
        : { holds: true, why: `the workload is ${health} on ${task.fromCluster}` };
    }
    case 'FailBack':
      return { holds: true, why: 'fail-back moves the workload away on purpose' };
    case 'Unknown':
      return {
        holds: true,
        why: `a task with reason ${task.reason} from ${task.producer} is kept for its whole life`,
      };
  }
}

function judgeTaintCause(cluster: string, input: CauseInput): CauseVerdict {
  if (input.cluster === undefined) return { holds: true, why: `cluster ${cluster} no longer exists` };
  if (input.cluster.deleting) return { holds: true, why: `cluster ${cluster} is being deleted` };
  const v = judgeEviction({
    clusterName: cluster,
    boundClusters: [{ name: cluster }],
    taints: input.cluster.taints,
    tolerations: input.tolerations,
    nowMs: input.nowMs,
  });
  switch (v.kind) {
    case 'keep':
      return v.reason === 'ToleratedForever'
        ? { holds: false, why: `every NoExecute taint of ${cluster} is tolerated` }
        : { holds: false, why: `${cluster} has no NoExecute taint any more` };
    case 'evictNow':
      return {
        holds: true,
        why:
          v.untolerated.length === 0
            ? `the toleration of a NoExecute taint of ${cluster} ran out`
            : `${cluster} has the untolerated taint ${v.untolerated.map((t) => `${t.key}:${t.effect}`).join(', ')}`,
      };
    case 'evictAt':
      return {
        holds: true,
        why: `${cluster}'s taint ${v.taint.key}:${v.taint.effect} is tolerated only for a while`,
      };
  }
}

/** `status.aggregatedStatus` as health by cluster. */
export function healthByCluster(
  items: readonly AggregatedStatusItem[] | undefined,
): ReadonlyMap<string, ResourceHealth> {
  const health = new Map<string, ResourceHealth>();
  for (const i of items ?? []) health.set(i.clusterName, i.health ?? resourceHealths.unknown);
  return health;
}

/** A cluster of the placement other than `cluster` reports a `Healthy` copy; the first such, by order. */
export function healthyCopyElsewhere(
  cluster: string,
  placed: readonly string[],
  health: ReadonlyMap<string, ResourceHealth>,
): string | undefined {
  return placed.find((c) => c !== cluster && health.get(c) === resourceHealths.healthy);
}

export interface ReturnInput extends CauseInput {
  /** `spec.clusters` by name. */
  readonly placed: readonly string[];
}

export type ReturnVerdict = { readonly mayReturn: boolean; readonly why: string };

/** Whether the binding may take the task's cluster back now (see the header). */
export function judgeReturn(task: GracefulEvictionTask, input: ReturnInput): ReturnVerdict {
  if (givenPurgeMode(task.purgeMode) === purgeModes.directly) {
    return { mayReturn: false, why: 'a Directly purge removed the copy: the task runs its course' };
  }
  if (task.suppressDeletion === false) {
    return { mayReturn: false, why: 'deletion of the copy was confirmed (suppressDeletion: false)' };
  }
  const cause = judgeCause(task, input);
  if (cause.holds) return { mayReturn: false, why: `the cause holds: ${cause.why}` };
  const elsewhere = healthyCopyElsewhere(task.fromCluster, input.placed, input.health);
  if (elsewhere !== undefined) {
    return {
      mayReturn: false,
      why: `the cause has ended (${cause.why}), but ${elsewhere} runs a healthy copy: the task runs its course`,
    };
  }
  return {
    mayReturn: true,
    why: `the cause has ended (${cause.why}) and no other cluster runs a healthy copy: ${task.fromCluster} may take the workload back, keeping its copy`,
  };
}
