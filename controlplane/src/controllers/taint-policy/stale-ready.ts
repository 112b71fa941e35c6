/**
 * When a cluster's `Ready=Unknown` is stale rather than a failure.
 *
 * `Ready=Unknown` on a Pull cluster is written by the control plane's health monitor once the
 * agent's Lease has gone unrenewed for the grace period; only the agent writes it back to True. So
 * a Lease renewed within the grace period while Ready still says Unknown means the agent is back
 * and connected and has just not overwritten the condition yet (its watch was still reconnecting,
 * say). Tainting NoExecute on that Unknown would evict workloads from a healthy, heartbeating
 * cluster. The same holds right after a control-plane restart: the process has not watched the
 * cluster yet, so it gives it the grace period from first sight, as the health monitor does. The
 * silence is the one this process observed on its own clock (see cluster-health/observations.ts).
 */
import {
  clusterConditionTypes,
  conditionStatuses,
  syncModes,
  type ClusterCondition,
  type SyncMode,
} from '@kf/api';

export interface StaleReadyInput {
  readonly syncMode: SyncMode;
  readonly ready: ClusterCondition | undefined;
  /** Milliseconds since the last sign of life (a renewal, a status post, first sight). */
  readonly silentForMs: number | undefined;
  /** The health monitor's grace period (`--cluster-monitor-grace-period`). */
  readonly graceMs: number;
}

export type StaleReadyVerdict =
  /** Ready is what it says: act on it. */
  | { readonly kind: 'as-reported' }
  /** Ready=Unknown but the cluster showed life `silentForMs` ago; stale for `freshForMs` more. */
  | { readonly kind: 'stale-unknown'; readonly silentForMs: number; readonly freshForMs: number };

/**
 * Stale when a Pull cluster's Ready is Unknown and its last sign of life is less than the grace
 * period ago. Push clusters have no Lease: their Ready comes from the control plane's own probe and
 * is taken as it is.
 */
export function judgeStaleReady(input: StaleReadyInput): StaleReadyVerdict {
  const { ready, silentForMs } = input;
  if (input.syncMode !== syncModes.pull) return { kind: 'as-reported' };
  if (ready?.type !== clusterConditionTypes.ready || ready.status !== conditionStatuses.unknown) {
    return { kind: 'as-reported' };
  }
  if (silentForMs === undefined) return { kind: 'as-reported' };
  const freshForMs = input.graceMs - silentForMs;
  return freshForMs > 0 ? { kind: 'stale-unknown', silentForMs, freshForMs } : { kind: 'as-reported' };
}
