/**
 * One partition of one member's link, played and watched the same way by the partition tests and
 * the partition soak benchmark: the link (a Pull member's agent → the control plane, or the control
 * plane → a Push member) cut or blackholed for a while, restored, then watched until the Lease is
 * renewed again, Ready is True again and the outcome has settled.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { leaseRenewedAtMs } from '@kf/kube';
import type { FailoverFederation, FailoverTiming } from '../failover-federation.ts';
import { FAILOVER_MEMBER_HOST } from '../member-host-timing.ts';
import { waitUntil } from '../readiness.ts';
import type { TcpProxy } from './tcp-proxy.ts';
import { Observer, type ObservedWorkload, type Sample } from './partition-observer.ts';

/** The shipped default ClusterTaintPolicy's hold time (deploy/controlplane/cluster-taint-policy.yaml). */
export const SHIPPED_TAINT_HOLD_SECONDS = 15;

/**
 * The promise for Ready after a partition: True again within one status period (1 s in
 * FAILOVER_AGENT_FLAGS) + 1 s of the link coming back.
 */
export const READY_TARGET_MS = 2_000;

/** A partition this long fails over: longer than grace + hold, with a margin for the periods between. */
export function failsOver(timing: FailoverTiming, seconds: number): boolean {
  return seconds > timing.monitorGraceSeconds + timing.taintHoldSeconds + 2;
}

/**
 * What a fault of the control plane's link to a Push member does with the test timings
 * (FAILOVER_MEMBER_HOST: failure and success thresholds 3 s; a probe waits 5 s for an
 * answer). A probe that got no answer counts from when it was sent, so Ready is False once the
 * failure threshold has passed since the first unanswered probe went out and that probe has ended
 * (a cut ends it at once, a blackhole only at its timeout), until the success threshold after the
 * link is back: the spell is about the fault + success − the later of the failure threshold and
 * the probe's wait. A spell longer than the hold fails over; one within 2 s of the hold either way
 * may go either way (the periods between decide).
 */
export function pushLinkOutcome(timing: FailoverTiming, fault: LinkFault): 'holds' | 'fails over' | 'either' {
  const probeWait = fault.mode === 'blackhole' ? PUSH_PROBE_TIMEOUT_SECONDS : 0;
  const notReadyFor =
    fault.seconds +
    FAILOVER_MEMBER_HOST.successThresholdSeconds -
    Math.max(FAILOVER_MEMBER_HOST.failureThresholdSeconds, probeWait);
  if (notReadyFor > timing.taintHoldSeconds + 2) return 'fails over';
  if (notReadyFor < timing.taintHoldSeconds - 2) return 'holds';
  return 'either';
}

/** How long a probe of a member waits for an answer (the member side's GET timeout). */
const PUSH_PROBE_TIMEOUT_SECONDS = 5;

/** From a fault's start, past the moment a stale Unknown from it would have been tainted. */
export function settleMs(timing: FailoverTiming): number {
  return (timing.monitorGraceSeconds + timing.taintHoldSeconds + 5) * 1000;
}

/** The first Lease renewal at or after `sinceMs` (renewTime has microseconds), polling every 100 ms. */
export async function renewedAgainAt(
  fed: FailoverFederation,
  member: string,
  sinceMs: number,
): Promise<number> {
  let at = Number.NaN;
  await waitUntil(
    `${member} Lease renewed after the fault`,
    async () => {
      at = leaseRenewedAtMs(await fed.leases.get(`karmada-cluster/${member}`)) ?? 0;
      return at >= sinceMs;
    },
    { timeoutMs: 60_000, intervalMs: 100, retryErrors: true },
  );
  return at;
}

/** The time Ready is first seen True from now on, polling every 100 ms. */
export function readyAgainAt(fed: FailoverFederation, member: string, timeoutMs = 90_000): Promise<number> {
  return waitUntil(`${member} Ready=True again`, async () => (await fed.readyStatus(member)) === 'True', {
    timeoutMs,
    intervalMs: 100,
    retryErrors: true,
  });
}

export interface LinkFault {
  readonly mode: 'cut' | 'blackhole';
  readonly seconds: number;
}

/** What one partition showed. */
export interface LinkPartitionRun {
  readonly restoredAtMs: number;
  /** The first Lease renewal after the link came back. */
  readonly renewedAtMs: number;
  /** When Ready was first seen True after the link came back. */
  readonly readyAtMs: number;
  /** When `settle` returned (at once without one). */
  readonly settledAtMs: number;
  /** Sampled every 250 ms from before the fault until past {@link settleMs} after it started. */
  readonly samples: readonly Sample[];
}

/**
 * Breaks the agent link of `what.member` as `fault` says, restores it, waits for the Lease
 * renewal and Ready=True (both watched from the moment the link is back: Ready may never have
 * left True), then for `settle` (say, a failed-over copy coming back), then until a stale Unknown
 * from the fault would have been tainted. `what` is observed throughout.
 */
export function partitionAgentLink(
  fed: FailoverFederation,
  what: ObservedWorkload,
  fault: LinkFault,
  settle?: () => Promise<unknown>,
): Promise<LinkPartitionRun> {
  return partitionLink(fed, { link: fed.links.agentToControlPlane(what.member), what, fault, settle });
}

/** The same, on the control plane's link to a Push member. */
export function partitionPushLink(
  fed: FailoverFederation,
  what: ObservedWorkload,
  fault: LinkFault,
  settle?: () => Promise<unknown>,
): Promise<LinkPartitionRun> {
  return partitionLink(fed, { link: fed.links.controlPlaneToMember(what.member), what, fault, settle });
}

async function partitionLink(
  fed: FailoverFederation,
  run: {
    readonly link: TcpProxy;
    readonly what: ObservedWorkload;
    readonly fault: LinkFault;
    readonly settle: (() => Promise<unknown>) | undefined;
  },
): Promise<LinkPartitionRun> {
  const { link, what, fault, settle } = run;
  const observer = new Observer(fed, what);
  observer.start();
  try {
    const cutAtMs = Date.now();
    await link.breakFor(fault.mode, fault.seconds * 1000);
    const restoredAtMs = Date.now();
    const [renewedAtMs, readyAtMs] = await Promise.all([
      renewedAgainAt(fed, what.member, restoredAtMs),
      readyAgainAt(fed, what.member),
    ]);
    await settle?.();
    const settledAtMs = Date.now();
    await sleep(Math.max(0, cutAtMs + settleMs(fed.timing) - Date.now()));
    // The samples array is complete once `finally` has stopped the observer.
    return { restoredAtMs, renewedAtMs, readyAtMs, settledAtMs, samples: observer.samples };
  } finally {
    await observer.stop();
  }
}
