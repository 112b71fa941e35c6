/**
 * How long one of the agent's signs of life to the control plane may take: a heartbeat renewal of
 * the cluster Lease, or a status sync that carries Ready. Both are sequential (an attempt ends
 * before the next one starts), so the deadline is also how long a call hanging on a dead link holds
 * the next attempt back.
 *
 * A sign of life is worth waiting for as long as it can still arrive before the last one lapses.
 * The control plane counts a renewal at the moment it sees it, for its grace period, which by
 * default is the Lease duration (40 s). It saw the last success half a round trip before the agent
 * learned of it, and sees the next one half a round trip before the agent does: so an answer that
 * comes by the last success's end + the Lease duration came in time, and an attempt may run until
 * then. A fixed timeout of one interval would instead fail every attempt over a link whose round
 * trip is longer than the interval, and an attempt cut short costs its connection: the next one
 * pays a TCP and TLS handshake, two round trips more, which over a slow link is what makes the
 * Lease lapse. The last success counts from when it ended, the moment the agent knows it landed.
 *
 * Whatever is left until the lapse, an attempt gets at least one interval, and at least twice what
 * the last success took. Past the lapse, against a link that swallows requests, failures are
 * counted every interval or so (a success over a sound link takes milliseconds), and a link that
 * comes back is soon used; over a slow link a round trip that worked still has its time.
 *
 * No attempt runs as long as the Lease duration: at most the Lease duration − one interval (or one
 * interval, if that is longer), which the self-fence's timing relies on (docs/architecture.md). An
 * attempt starts at least one interval after the last success, so that bound never cuts one short
 * of the lapse.
 */

/** The last attempt that succeeded, on the monotonic clock. */
export interface LastSuccess {
  /** When it ended (the agent learned the write landed). */
  readonly endedAtMs: number;
  /** How long it took, from its start. */
  readonly tookMs: number;
}

export interface LivenessDeadlineInput {
  /** When this attempt starts (monotonic ms). */
  readonly startMs: number;
  /** Undefined before the first success. */
  readonly lastSuccess: LastSuccess | undefined;
  /** How long a success keeps the agent alive: the cluster Lease duration. */
  readonly leaseDurationMs: number;
  /** How often the agent tries: the Lease renew interval, or the status period. */
  readonly intervalMs: number;
}

/** When this attempt must end (monotonic ms): never less than one interval after its start. */
export function livenessDeadlineMs(input: LivenessDeadlineInput): number {
  const { startMs, lastSuccess, leaseDurationMs, intervalMs } = input;
  const longestMs = Math.max(intervalMs, leaseDurationMs - intervalMs);
  // Before the first success there is nothing to lapse: the attempt itself is the first sign.
  if (lastSuccess === undefined) return startMs + longestMs;
  const lapseMs = lastSuccess.endedAtMs + leaseDurationMs;
  const floorMs = Math.max(intervalMs, Math.min(longestMs, 2 * lastSuccess.tookMs));
  return Math.min(Math.max(lapseMs, startMs + floorMs), startMs + longestMs);
}

/**
 * The signal an attempt runs under: `stop`, or its deadline (see {@link livenessDeadlineMs}),
 * whichever comes first.
 */
export function livenessSignal(input: LivenessDeadlineInput, stop: AbortSignal): AbortSignal {
  const leftMs = livenessDeadlineMs(input) - input.startMs;
  return AbortSignal.any([stop, AbortSignal.timeout(Math.max(1, Math.ceil(leftMs)))]);
}
