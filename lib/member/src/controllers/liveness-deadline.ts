/**
 * How long one of the agent's signs of life to the control plane may take: a heartbeat renewal of
 * the cluster Lease, or a status sync that carries Ready. Both are sequential (an attempt ends
 * before the next one starts), so the deadline is also how long a call hanging on a dead link holds
 * the next attempt back.
 *
 * A sign of life is worth waiting for as long as it can still arrive before the last one lapses:
 * the control plane counts a Lease renewal for its grace period, which by default is the Lease
 * duration (40 s), so an attempt may run until the last success + the Lease duration − a margin.
 * A fixed timeout of one interval would instead fail every attempt over a link whose round trip is
 * longer than the interval, and the Lease would lapse although each request could have arrived in
 * time. The last success counts from when it ended, the moment the agent knows it landed: counted
 * from its start, its round trip would be taken off the next attempt's time as well.
 *
 * The margin is one interval (the renew interval, or the status period). The control plane counts
 * from the time stamped in the write, which is older than the moment the agent learns of its
 * success by that write's round trip: ending one interval early cuts an attempt before the control
 * plane's grace runs out for round trips up to one interval, so its failure is counted, and the
 * reconnection noticed, before the control plane can mark the cluster Unknown. An attempt that
 * starts one interval after a success still has the Lease duration − two intervals (20 s of the
 * default 40 s) to finish.
 *
 * Whatever is left until the lapse, an attempt gets at least one interval, and at least twice what
 * the last success took (up to the Lease duration − the margin). Past the lapse, against a link
 * that swallows requests, failures are counted every interval or so (a success over a sound link
 * takes milliseconds), and a link that comes back is soon used. Over a slow link a little jitter
 * does not cut a renewal short, which would cost it its connection and the next one a TLS
 * handshake, a round trip more; and a round trip that worked still has its time after a lapse. A
 * link that turns slower at once than both the time left and twice its last round trip is not
 * waited for (it is past what keeps a member Ready anyway).
 *
 * An attempt therefore never runs as long as the Lease duration (at most the larger of one interval
 * and the Lease duration − one interval, the interval being shorter than the duration), which the
 * self-fence's timing relies on (docs/architecture.md).
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

/** How much earlier than the lapse of the last success an attempt ends: one interval. */
export function livenessMarginMs(intervalMs: number): number {
  return intervalMs;
}

/** When this attempt must end (monotonic ms): never less than one interval after its start. */
export function livenessDeadlineMs(input: LivenessDeadlineInput): number {
  const { startMs, lastSuccess, leaseDurationMs, intervalMs } = input;
  const usefulMs = Math.max(intervalMs, leaseDurationMs - livenessMarginMs(intervalMs));
  // Before the first success there is nothing to lapse: the attempt itself is the first sign.
  const lapseMs = (lastSuccess?.endedAtMs ?? startMs) + usefulMs;
  const floorMs = Math.max(intervalMs, Math.min(usefulMs, 2 * (lastSuccess?.tookMs ?? 0)));
  return Math.max(lapseMs, startMs + floorMs);
}
