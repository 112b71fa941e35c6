/**
 * What a list+watch cache does after each LIST or WATCH ends: relist or resume from its
 * resourceVersion, how long to wait first, and the counters that drive the next decision. A pure
 * function of plain data (monotonic `nowMs`, a random number for the jitter), so that every rule
 * is a row of a table test.
 */
import { backoffDelayMs, type BackoffPolicy } from '@kf/runtime';

/**
 * The watch cache's default reconnect backoff: 0.5 s doubling to a 5 s cap, ±20 %. The cap bounds
 * how long a cache stays blind after its API server is reachable again: with 30 s (the usual
 * default for generic retries) an agent slept through 15 s of a recovered control plane while it
 * had a condition to overwrite. A failed reconnect costs one refused connection or one small error
 * response, so 5 s is cheap even for a fleet of agents, and the jitter spreads their reconnects
 * after the control plane comes back.
 */
export const WATCH_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 5_000, factor: 2, jitter: 0.2 };

/** A watch that ends on its own sooner than this without any event counts as a failure. */
export const MIN_HEALTHY_WATCH_MS = 1_000;

export interface RecoveryState {
  /** The next connection starts with a complete LIST; else a WATCH resumes from the last resourceVersion. */
  readonly needList: boolean;
  /** Failures since the last success (a complete LIST or a WATCH the server accepted): the backoff exponent. */
  readonly attempt: number;
  /** The resourceVersion comes from a LIST and no watch has ended since: a 410 now is the server contradicting itself. */
  readonly freshList: boolean;
  /** 410s in a row on watches that started from a fresh LIST and delivered nothing. */
  readonly expiredInARow: number;
  /** Monotonic ms of the first failure since the last success; absent while connected. */
  readonly downSinceMs?: number;
}

/** Before the first connection: a LIST, unless the cache starts from a saved state. */
export function initialRecovery(seeded: boolean): RecoveryState {
  return { needList: !seeded, attempt: 0, freshList: false, expiredInARow: 0 };
}

/** `listed`: a complete LIST is in the cache; `watching`: the server accepted a WATCH (HTTP 200). */
export type RecoverySuccess = 'listed' | 'watching';

/**
 * Either success shows the server is back: the backoff starts over and the outage ends, also for a
 * watch that is dropped right after it was accepted (a server that keeps doing that is retried
 * every initial delay, never in a tight loop: see {@link MIN_HEALTHY_WATCH_MS}).
 */
export function afterSuccess(state: RecoveryState, success: RecoverySuccess): RecoveryState {
  const connected: RecoveryState = {
    needList: state.needList,
    attempt: 0,
    freshList: state.freshList,
    expiredInARow: state.expiredInARow,
  };
  return success === 'watching' ? connected : { ...connected, needList: false, freshList: true };
}

/**
 * How a LIST or WATCH ended: `gone` a 410 (HTTP or ERROR event), `closed` the server ended the
 * watch without an error, `aborted` the cache is stopping, `error` anything else (network, 5xx,
 * timeouts, a line that is not a watch event).
 */
export type FailureKind = 'gone' | 'error' | 'closed' | 'aborted';

export interface Failure {
  readonly kind: FailureKind;
  /** What ended: a LIST (where a 410 is an expired continue token) or a WATCH. */
  readonly during: 'list' | 'watch';
  /** Lines (events and bookmarks) the watch delivered before it ended; 0 for a LIST. */
  readonly events: number;
  /** How long the watch had been connected when it ended; 0 for a LIST or a refused WATCH. */
  readonly connectedMs: number;
}

/** The `reason` label of `watch_restarts_total`. */
export type RestartReason = 'gone' | 'error' | 'closed';

export const RESTART_REASONS: readonly RestartReason[] = Object.freeze(['gone', 'error', 'closed']);

export type RecoveryStep =
  | { readonly kind: 'stop' }
  | {
      readonly kind: 'retry';
      readonly reason: RestartReason;
      /** False for a watch the server ended normally; true for anything the stats count as a failure. */
      readonly failed: boolean;
      /** Wait this long, then LIST when `state.needList`, else WATCH from the last resourceVersion. */
      readonly delayMs: number;
      readonly state: RecoveryState;
    };

export interface RecoveryInput {
  readonly state: RecoveryState;
  readonly failure: Failure;
  /** Monotonic milliseconds. */
  readonly nowMs: number;
  readonly policy: BackoffPolicy;
  /** A value in [0, 1) for the jitter. */
  readonly random: number;
}

/**
 * The step after a LIST or WATCH ended:
 * - a stop stops;
 * - a watch the server ended after it delivered events or lasted {@link MIN_HEALTHY_WATCH_MS}
 *   resumes at once;
 * - a 410 of a watch relists at once. It backs off only when the watch started from a fresh LIST,
 *   delivered nothing, and the 410 before it was just the same: a server answering 410 to
 *   everything must not make the cache list in a tight loop; the first such 410 still relists at
 *   once, as a compaction may have raced the LIST. A 410 after an outage never waits: the
 *   failures of the outage do not count for it;
 * - anything else, a 410 of a LIST too (an expired continue token), waits out the backoff of its
 *   attempt. When the connection will then have been down for longer than the policy's cap, the
 *   next connection relists instead of resuming: after that long an API server has likely
 *   restarted (its watch cache starts at the current revision, so an old resourceVersion gets a
 *   410 anyway) and objects changed meanwhile; the relist reports the differences at once.
 */
export function decideRecovery(input: RecoveryInput): RecoveryStep {
  const { state, failure } = input;
  if (failure.kind === 'aborted') return { kind: 'stop' };
  const delivered = failure.events > 0;
  // Whatever follows, the next watch no longer starts right after a LIST.
  const after: RecoveryState = {
    ...state,
    freshList: false,
    expiredInARow: delivered ? 0 : state.expiredInARow,
  };
  if (failure.during === 'list') return backOff(after, input, failure.kind);
  if (failure.kind === 'closed' && isHealthyEnd(failure)) {
    return { kind: 'retry', reason: 'closed', failed: false, delayMs: 0, state: after };
  }
  if (failure.kind === 'gone') return expired(after, input, state.freshList && !delivered);
  return backOff(after, input, failure.kind);
}

function isHealthyEnd(f: Failure): boolean {
  return f.events > 0 || f.connectedMs >= MIN_HEALTHY_WATCH_MS;
}

/**
 * A 410 of a watch: relist, at once unless it is one more in a row of watches that started
 * from a fresh LIST and delivered nothing.
 */
function expired(state: RecoveryState, input: RecoveryInput, fromFreshList: boolean): RecoveryStep {
  const loop = fromFreshList && state.expiredInARow > 0;
  const delayMs = loop ? backoffDelayMs(input.policy, state.expiredInARow - 1, input.random) : 0;
  return {
    kind: 'retry',
    reason: 'gone',
    failed: true,
    delayMs,
    state: { ...state, needList: true, expiredInARow: fromFreshList ? state.expiredInARow + 1 : 0 },
  };
}

/** Backoff by attempt; relist once the outage outlasts the cap. */
function backOff(state: RecoveryState, input: RecoveryInput, reason: RestartReason): RecoveryStep {
  const delayMs = backoffDelayMs(input.policy, state.attempt, input.random);
  const downSinceMs = state.downSinceMs ?? input.nowMs;
  const outlastsCap = input.nowMs + delayMs - downSinceMs > input.policy.maxMs;
  return {
    kind: 'retry',
    reason,
    failed: true,
    delayMs,
    state: {
      ...state,
      needList: state.needList || outlastsCap,
      attempt: state.attempt + 1,
      downSinceMs,
    },
  };
}
