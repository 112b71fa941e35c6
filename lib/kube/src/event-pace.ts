/**
 * The pace of Event writes: a token bucket of `burst` writes at once, then `ratePerSecond`
 * (kubelet's `--event-qps` and `--event-burst` work the same way).
 *
 * Events are what a person reads after the fact; the writes that move workloads are what users
 * wait for. In a mass failover each moved binding comes with several Events (eviction, schedule,
 * Work sync, on the binding and on its template), as many writes as the move itself: unpaced, they
 * take half of what the API server can write. Paced, they wait in the recorder's queue (keeping the
 * time they were recorded) and are written after the rush.
 *
 * While the process is busy (its controllers have a backlog of keys: a mass failover under way),
 * even the paced Events take API server writes from the moves users wait for; `busyRatePerSecond`
 * then replaces the rate, with no burst, and the pace comes back once the backlog is gone.
 */
export interface EventPace {
  /** Writes added per second; 0 or less means no pace at all. */
  readonly ratePerSecond: number;
  /** Writes allowed at once after a quiet period (at least 1). */
  readonly burst: number;
  /**
   * Writes per second while the process is busy, without a burst. Unset, or 0 or less: the busy
   * state changes nothing.
   */
  readonly busyRatePerSecond?: number;
}

/**
 * 50 a second after a burst of 100, as kubelet's defaults: beside the eviction pace's 50 bindings
 * a second (about five writes each) the API server writes at most 50 Events a second in a rush.
 */
export const DEFAULT_EVENT_PACE: EventPace = { ratePerSecond: 50, burst: 100, busyRatePerSecond: 5 };

/**
 * The pace that holds now: `pace` itself, or while busy its busy rate with a burst of one (a
 * bucket that was full keeps one token; the rest refills at the rate once the process is idle).
 * Without a pace, or without a busy rate, the pace is the same busy or not.
 */
export function paceWhile(pace: EventPace, busy: boolean): EventPace {
  const busyRate = pace.busyRatePerSecond ?? 0;
  if (!busy || pace.ratePerSecond <= 0 || busyRate <= 0) return pace;
  return { ratePerSecond: busyRate, burst: 1 };
}

export interface PaceState {
  readonly tokens: number;
  readonly atMs: number;
}

/** A full bucket. */
export function startPace(pace: EventPace, nowMs: number): PaceState {
  return { tokens: Math.max(1, pace.burst), atMs: nowMs };
}

/**
 * Takes one write's token: `waitMs` 0 when it was there (the state spent it), else how long until
 * it will be (the state unchanged: ask again then). A clock that went back refills nothing.
 */
export function takeToken(
  pace: EventPace,
  state: PaceState,
  nowMs: number,
): { readonly state: PaceState; readonly waitMs: number } {
  if (pace.ratePerSecond <= 0) return { state, waitMs: 0 };
  const elapsedMs = Math.max(0, nowMs - state.atMs);
  const tokens = Math.min(Math.max(1, pace.burst), state.tokens + (elapsedMs * pace.ratePerSecond) / 1000);
  // Below a whole token by a rounding error is a whole token.
  if (tokens >= 1 - 1e-9) return { state: { tokens: Math.max(0, tokens - 1), atMs: nowMs }, waitMs: 0 };
  return {
    state: { tokens, atMs: nowMs },
    waitMs: Math.max(1, Math.ceil(((1 - tokens) * 1000) / pace.ratePerSecond)),
  };
}
