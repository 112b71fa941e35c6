import {
  clusterConditionTypes,
  formatTime,
  parseTime,
  serviceDomainNameResolutionReasons as reasons,
} from '@kf/api';
import type { Observed } from './hysteresis.ts';

/** Node conditions share the Cluster condition's type, as in Karmada. */
export const NODE_CONDITION_TYPE = clusterConditionTypes.serviceDomainNameResolutionReady;

/** core/v1 NodeCondition as JSON (times are RFC 3339 strings with second precision). */
export interface NodeCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastHeartbeatTime?: string;
  readonly lastTransitionTime?: string;
}

/** What this node publishes: its debounced verdict and the sentence explaining it. */
export interface NodeReport {
  readonly status: Observed;
  readonly message: string;
}

/**
 * Plans the write of this node's condition, or undefined when none is due: one is due when the
 * condition is missing, when status or message change, and when the last heartbeat is
 * `heartbeatIntervalMs` old (a heartbeat older than the stale threshold makes the verdict
 * Unknown to the leader). The transition time stays unless the status changes.
 */
export function planNodeWrite(
  current: NodeCondition | undefined,
  report: NodeReport,
  nowMs: number,
  heartbeatIntervalMs: number,
): NodeCondition | undefined {
  const reason = report.status === 'True' ? reasons.ready : reasons.failed;
  const sameStatus = current?.status === report.status;
  const heartbeatAtMs = parseTime(current?.lastHeartbeatTime);
  const due =
    !sameStatus ||
    current.reason !== reason ||
    current.message !== report.message ||
    heartbeatAtMs === undefined ||
    nowMs - heartbeatAtMs >= heartbeatIntervalMs ||
    nowMs < heartbeatAtMs; // the clock went back: do not wait for it to catch up
  if (!due) return undefined;
  const now = formatTime(nowMs);
  return {
    type: NODE_CONDITION_TYPE,
    status: report.status,
    reason,
    message: report.message,
    lastHeartbeatTime: now,
    lastTransitionTime: (sameStatus ? current.lastTransitionTime : undefined) ?? now,
  };
}
