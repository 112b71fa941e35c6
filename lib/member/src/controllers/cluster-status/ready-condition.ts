/** What a health probe of the member API server means for the cluster's `Ready` condition. */
import {
  clusterConditionTypes,
  clusterReadyMessages,
  clusterReadyReasons,
  type ConditionUpdate,
} from '@kf/api';

/** The answer to one GET: an HTTP status, or no answer at all (refused, timed out, TLS…). */
export type ProbeAnswer =
  { readonly kind: 'status'; readonly status: number } | { readonly kind: 'error'; readonly error: string };

/** `/readyz`, and `/healthz` when `/readyz` answered 404. */
export interface ProbeResult {
  readonly readyz: ProbeAnswer;
  readonly healthz?: ProbeAnswer;
}

export interface Health {
  /** The API server answered with a 2xx status. */
  readonly online: boolean;
  /** …and that status was 200. */
  readonly healthy: boolean;
}

/** The probe asks `/healthz` only when `/readyz` answered 404 (servers older than `/readyz`). */
export function needsHealthzFallback(readyz: ProbeAnswer): boolean {
  return readyz.kind === 'status' && readyz.status === 404;
}

/**
 * Judges a probe as upstream's client does: statuses outside 200–206 are errors, so a 500 or 503
 * counts as offline, not as "reachable but unhealthy"; only 201–206 are online and unhealthy.
 */
export function judgeProbe(result: ProbeResult): Health {
  const answer = judgedAnswer(result);
  if (answer.kind === 'error' || answer.status < 200 || answer.status > 206) {
    return { online: false, healthy: false };
  }
  return { online: true, healthy: answer.status === 200 };
}

/**
 * The member answered the probe, with whatever status: false when the GET was refused, timed out
 * or failed on the way. Only then has the member been silent for as long as the probe waited.
 */
export function probeAnswered(result: ProbeResult): boolean {
  return judgedAnswer(result).kind === 'status';
}

function judgedAnswer(result: ProbeResult): ProbeAnswer {
  return needsHealthzFallback(result.readyz) ? (result.healthz ?? result.readyz) : result.readyz;
}

/** The `Ready` condition the agent observes now, before threshold debouncing. */
export function observedReadyCondition(health: Health): ConditionUpdate {
  const type = clusterConditionTypes.ready;
  if (!health.online) {
    return {
      type,
      status: 'False',
      reason: clusterReadyReasons.clusterNotReachable,
      message: clusterReadyMessages.clusterNotReachable,
    };
  }
  if (!health.healthy) {
    return {
      type,
      status: 'False',
      reason: clusterReadyReasons.clusterNotReady,
      message: clusterReadyMessages.clusterNotReady,
    };
  }
  return {
    type,
    status: 'True',
    reason: clusterReadyReasons.clusterReady,
    message: clusterReadyMessages.clusterReady,
  };
}
