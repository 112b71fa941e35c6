/** A node's verdict as the leader counts it: a missing or stale one is Unknown. */
export type NodeVerdict = 'True' | 'False' | 'Unknown';

/** When the leader first saw a node's current heartbeat value (its `lastHeartbeatTime`). */
export interface HeartbeatSighting {
  readonly heartbeat: string;
  /** Wall-clock ms on the leader. */
  readonly freshSinceMs: number;
}

/**
 * Records a node's heartbeat as the leader sees it now. A heartbeat seen for the first time
 * counts from its own timestamp (never from the future); one that changed since the last look
 * counts from now, by the leader's clock. So a node whose clock runs ahead still turns stale
 * once its heartbeat stops changing, one whose clock lags is not held stale while it keeps
 * writing, and after a leader change a long-dead node is stale at once.
 */
export function noteHeartbeat(
  previous: HeartbeatSighting | undefined,
  heartbeat: string | undefined,
  nowMs: number,
): HeartbeatSighting | undefined {
  if (heartbeat === undefined || heartbeat === '') return undefined;
  if (previous?.heartbeat === heartbeat) return previous;
  if (previous !== undefined) return { heartbeat, freshSinceMs: nowMs };
  const atMs = Date.parse(heartbeat);
  if (Number.isNaN(atMs)) return undefined;
  return { heartbeat, freshSinceMs: Math.min(atMs, nowMs) };
}

export interface VerdictJudgement {
  readonly verdict: NodeVerdict;
  /** For a verdict that is still fresh: ms until it turns stale (the leader looks again then). */
  readonly staleInMs?: number;
}

/**
 * The node verdict the leader counts: `status` when a heartbeat was sighted no more than
 * `staleThresholdMs` ago, else Unknown (so are a missing condition, a missing heartbeat and any
 * status but True or False).
 */
export function judgeNodeVerdict(
  status: string | undefined,
  sighting: HeartbeatSighting | undefined,
  nowMs: number,
  staleThresholdMs: number,
): VerdictJudgement {
  if ((status !== 'True' && status !== 'False') || sighting === undefined) return { verdict: 'Unknown' };
  const ageMs = nowMs - sighting.freshSinceMs;
  if (ageMs > staleThresholdMs) return { verdict: 'Unknown' };
  return { verdict: status, staleInMs: staleThresholdMs - ageMs + 1 };
}
