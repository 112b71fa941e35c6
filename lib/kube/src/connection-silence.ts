/**
 * When an HTTP/2 connection to an API server counts as dead: it was asked something and nothing at
 * all came back for too long, not even the acknowledgement of a PING.
 *
 * Over HTTP/2 every request to a server shares one connection. If that connection goes silent for
 * good while the path to the server still works (the server behind a virtual IP vanished, a NAT or
 * load-balancer entry was lost), each request on it hangs until its own deadline, and so does the
 * next: TCP takes a quarter of an hour to give up on it. So PINGs go out every `pingIntervalMs`
 * while the connection is open; a live connection acknowledges each within a round trip, however
 * slow the link or the server's answers are. A request sent after the last thing heard starts the
 * clock; three PING intervals and two round trips later without a sound, the connection is given
 * up and the next request connects afresh. The round trip is the last PING's (or, on a new
 * connection, half its TCP and TLS handshake): a link that slows down at once by more than three
 * intervals looks silent until its first late acknowledgement. A request that never got onto a connection, with
 * nothing heard since it was made, counts only past the connect timeout too (requests may queue
 * behind others on a busy connection, which then is heard from).
 */

export interface SilenceRule {
  /** How often a PING goes out on an open connection. */
  readonly pingIntervalMs: number;
  /** How long making a connection may take (TCP and TLS). */
  readonly connectTimeoutMs: number;
}

/** What a pool of connections to one server heard and was asked, on a monotonic clock (ms). */
export interface PoolHearing {
  readonly nowMs: number;
  /** When anything last came from the server: an answer, part of one, a PING's acknowledgement. */
  readonly lastHeardMs: number;
  /** When the first request sent since anything was last heard went out; undefined if none. */
  readonly unansweredSinceMs: number | undefined;
  /** When the oldest request still waiting for a connection was made; undefined if none. */
  readonly oldestWaitingSinceMs: number | undefined;
  /** The latest round trip measured: a PING's, or half a new connection's handshake. */
  readonly roundTripMs: number;
}

/** How long a connection may stay silent after being asked something. */
export function silenceLimitMs(rule: SilenceRule, roundTripMs: number): number {
  return 3 * rule.pingIntervalMs + 2 * Math.max(0, roundTripMs);
}

/**
 * Why the pool's connection counts as dead (`silent`: asked and not a sound since; `stuck`: a
 * request never got onto a connection), or undefined while it may still be alive.
 */
export function silenceVerdict(h: PoolHearing, rule: SilenceRule): 'silent' | 'stuck' | undefined {
  const limitMs = silenceLimitMs(rule, h.roundTripMs);
  if (h.unansweredSinceMs !== undefined && h.nowMs - h.unansweredSinceMs > limitMs) return 'silent';
  const waitingMs = h.oldestWaitingSinceMs;
  if (
    waitingMs !== undefined &&
    h.lastHeardMs < waitingMs &&
    h.nowMs - waitingMs > rule.connectTimeoutMs + limitMs
  ) {
    return 'stuck';
  }
  return undefined;
}
