/**
 * Stateful failover (gate `StatefulFailoverInjection`): values read from the evicted cluster's
 * reflected status are kept on the graceful eviction task (`preservedLabelState`) and injected
 * as labels into the workload sent to the new cluster.
 *
 * Capture is as upstream: each rule's JSONPath runs over `aggregatedStatus[cluster].status`;
 * a missing status or key is an error. Application failover captures when it evicts. Cluster
 * failover's evictor (the taint manager) leaves the task without state; the binding controller
 * fills it in from the same aggregated status before it deletes any Work of the evicted cluster
 * ({@link planStateCapture}), so the values are the old copy's either way.
 *
 * Injection is as upstream: only when the binding targets exactly one cluster, only from the
 * last task, only when that task's purge mode is `Directly` or its deprecated name `Immediately`
 * (the old copy is gone before the new one starts), and not into a cluster listed in the task's
 * `clustersBeforeFailover`. Labels from the state overwrite the template's. Once the task is
 * dropped the labels leave the manifest.
 */
import {
  evictionProducers,
  givenPurgeMode,
  purgeModes,
  type AggregatedStatusItem,
  type GracefulEvictionTask,
  type ResourceBindingSpec,
  type StatePreservationRule,
} from '@kf/api';
import { evaluateJsonPath } from './jsonpath.ts';

export type Capture =
  | { readonly ok: true; readonly state: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly problem: string };

/** Runs every rule over the cluster's reflected status. */
export function capturePreservedState(
  rules: readonly StatePreservationRule[],
  aggregatedStatus: readonly AggregatedStatusItem[] | undefined,
  cluster: string,
): Capture {
  const status = aggregatedStatus?.find((i) => i.clusterName === cluster)?.status;
  if (status === undefined) return { ok: false, problem: `no status collected from cluster ${cluster}` };
  const state: Record<string, string> = {};
  for (const rule of rules) {
    try {
      state[rule.aliasLabelName] = evaluateJsonPath(rule.jsonPath, status);
    } catch (err: unknown) {
      const why = err instanceof Error ? err.message : String(err);
      return { ok: false, problem: `rule ${rule.aliasLabelName} (${rule.jsonPath}): ${why}` };
    }
  }
  return { ok: true, state };
}

/** The rules that apply to a task: the cluster failover ones for the taint manager's tasks. */
export function rulesForTask(
  spec: ResourceBindingSpec,
  task: GracefulEvictionTask,
): readonly StatePreservationRule[] {
  const failover = spec.failover;
  const rules =
    task.producer === evictionProducers.taintManager
      ? failover?.cluster?.statePreservation?.rules
      : failover?.application?.statePreservation?.rules;
  return rules ?? [];
}

export interface StateCapturePlan {
  /** The tasks with state filled in; undefined when nothing can be added. */
  readonly tasks?: readonly GracefulEvictionTask[];
  /** Tasks whose state could not be read, with why (they are left as they are). */
  readonly problems: readonly { readonly cluster: string; readonly problem: string }[];
}

/** Fills `preservedLabelState` of tasks that have rules but no state yet, where status allows. */
export function planStateCapture(
  spec: ResourceBindingSpec,
  aggregatedStatus: readonly AggregatedStatusItem[] | undefined,
): StateCapturePlan {
  const problems: { cluster: string; problem: string }[] = [];
  const current = spec.gracefulEvictionTasks ?? [];
  const tasks = current.map((task) => {
    const rules = rulesForTask(spec, task);
    if (rules.length === 0 || task.preservedLabelState !== undefined) return task;
    const capture = capturePreservedState(rules, aggregatedStatus, task.fromCluster);
    if (!capture.ok) {
      problems.push({ cluster: task.fromCluster, problem: capture.problem });
      return task;
    }
    return { ...task, preservedLabelState: capture.state };
  });
  return tasks.some((t, i) => t !== current[i]) ? { tasks, problems } : { problems };
}

/** Labels to inject into the workload sent to `cluster`, or undefined (see header). */
export function labelsToInject(
  spec: ResourceBindingSpec,
  targets: readonly string[],
  cluster: string,
): Readonly<Record<string, string>> | undefined {
  if (targets.length !== 1) return undefined;
  const last = spec.gracefulEvictionTasks?.at(-1);
  if (last === undefined || givenPurgeMode(last.purgeMode) !== purgeModes.directly) return undefined;
  if (last.clustersBeforeFailover?.includes(cluster) === true) return undefined;
  const state = last.preservedLabelState;
  return state === undefined || Object.keys(state).length === 0 ? undefined : state;
}
