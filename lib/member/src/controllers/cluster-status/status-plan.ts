/** The next Cluster.status the agent wants, or nothing when the stored one is already right. */
import {
  jsonEqual,
  setCondition,
  type APIEnablement,
  type ClusterStatus,
  type ConditionUpdate,
} from '@kf/api';
import { without } from '../../object-fields.ts';
import type { ClusterSummary } from './resource-summary.ts';

/** What a status collection found on the member. */
export interface CollectedStatus {
  /** `''` when `/version` failed: the field is cleared, as upstream does. */
  readonly kubernetesVersion: string;
  readonly apiEnablements: readonly APIEnablement[] | undefined;
  /** Undefined when resource modeling is off: the stored summaries are kept. */
  readonly summary?: ClusterSummary;
}

/**
 * Applies `conditions` in order with SetStatusCondition semantics and, when given, the collected
 * fields. Conditions of other types, remedyActions and everything else are kept. Returns
 * undefined when the result equals `current` (nothing to write).
 */
export function planClusterStatus(
  current: ClusterStatus | undefined,
  conditions: readonly ConditionUpdate[],
  collected: CollectedStatus | undefined,
  nowMs: number,
): ClusterStatus | undefined {
  const base: ClusterStatus = current ?? {};
  let next: ClusterStatus = collected === undefined ? base : withCollected(base, collected);
  for (const c of conditions) next = { ...next, conditions: setCondition(next.conditions, c, nowMs) };
  return jsonEqual(next, base) ? undefined : next;
}

function withCollected(status: ClusterStatus, collected: CollectedStatus): ClusterStatus {
  const rest = without(status, 'kubernetesVersion', 'apiEnablements');
  const summary = collected.summary;
  return {
    ...rest,
    ...(collected.kubernetesVersion === '' ? {} : { kubernetesVersion: collected.kubernetesVersion }),
    ...(collected.apiEnablements === undefined ? {} : { apiEnablements: collected.apiEnablements }),
    ...(summary === undefined
      ? {}
      : { nodeSummary: summary.nodeSummary, resourceSummary: summary.resourceSummary }),
  };
}
