/**
 * Renews the cluster heartbeat Lease `karmada-cluster/<cluster>` in the control plane every
 * lease duration × renew fraction (+0–4 % jitter, measured after each renewal), whatever the
 * member's health: the Lease says "the agent is alive and connected". It runs on the leader only;
 * it never deletes the Lease (the Cluster owns it). A renewal may take until the last one would
 * lapse (see liveness-deadline.ts), so a slow link still carries it. Failures are logged and
 * retried after a quarter interval (see `nextTickDelayMs`); the first renewal after failures tells
 * `onReconnected`, so that the agent reasserts its status.
 */
import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  toKubeError,
  type Lease,
  type ResourceClient,
} from '@kf/kube';
import { namespaces } from '@kf/api';
import type { Clock, Logger, Runnable } from '@kf/runtime';
import type { MemberMetrics } from '../../metrics.ts';
import { livenessSignal, type LastSuccess } from '../liveness-deadline.ts';
import { nextTickDelayMs, planHeartbeat } from './lease-plan.ts';

export interface HeartbeatDeps {
  readonly clusterName: string;
  readonly leases: ResourceClient<Lease>;
  /** The Cluster's uid for the owner reference, when known. */
  readonly clusterUid: () => string | undefined;
  readonly leaseDurationMs: number;
  readonly renewIntervalMs: number;
  readonly clock: Clock;
  readonly random: () => number;
  readonly log: Logger;
  readonly metrics: MemberMetrics;
  /** Called when a renewal succeeds after one or more failed ticks: the agent is back in touch. */
  readonly onReconnected?: () => void;
  /**
   * Called after each renewal that succeeded within its tick's deadline, with the monotonic time
   * the tick started (before anything was sent), however late the success came: the self-fence
   * counts from there.
   */
  readonly onRenewed?: (tickStartMono: number) => void;
}

/** Attempts per tick when the Lease keeps changing underneath (upstream: 5). */
const MAX_ATTEMPTS = 5;

export function heartbeatRunnable(deps: HeartbeatDeps): Runnable {
  return {
    name: 'cluster-heartbeat',
    needLeaderElection: true,
    async start(signal) {
      const log = deps.log.child({
        component: 'heartbeat',
        lease: `${namespaces.cluster}/${deps.clusterName}`,
      });
      let last: Lease | undefined;
      let lastSuccess: LastSuccess | undefined;
      let failing = false;
      while (!signal.aborted) {
        // After a failure the last Lease written stays the base: when no one else wrote it meanwhile
        // (the usual case) the first renewal back is one request; a Conflict re-reads it.
        const startedAt = deps.clock.monotonic();
        const tickSignal = livenessSignal(
          {
            startMs: startedAt,
            lastSuccess,
            leaseDurationMs: deps.leaseDurationMs,
            intervalMs: deps.renewIntervalMs,
          },
          signal,
        );
        const written = await renewOnce(deps, { base: last, startedAt, signal: tickSignal }, log, signal);
        if (written === undefined) failing = !signal.aborted;
        else {
          const endedAtMs = deps.clock.monotonic();
          lastSuccess = { endedAtMs, tookMs: endedAtMs - startedAt };
          last = written;
          if (failing) {
            failing = false;
            log.info('heartbeat lease renewed again after failures');
            deps.onReconnected?.();
          }
        }
        const waitMs = nextTickDelayMs(deps.renewIntervalMs, written === undefined, deps.random);
        try {
          await deps.clock.sleep(waitMs, signal);
        } catch {
          return; // stopping
        }
      }
    },
  };
}

/** One tick: where it starts from, when it started (monotonic), and the signal that ends it by its deadline. */
interface Tick {
  /** The Lease last written, if any. */
  readonly base: Lease | undefined;
  readonly startedAt: number;
  readonly signal: AbortSignal;
}

/**
 * One tick: returns the Lease written (the base for the next tick), or undefined after a failure.
 * The whole tick (reads and retries included) ends by its deadline: a call hanging on a link that
 * drops packets must not hold the heartbeat, and the failure it has to report, for the client's
 * default timeout.
 */
async function renewOnce(
  deps: HeartbeatDeps,
  tick: Tick,
  log: Logger,
  stop: AbortSignal,
): Promise<Lease | undefined> {
  const { startedAt, signal } = tick;
  let base = tick.base;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      const written = await write(deps, base, signal);
      deps.metrics.leaseRenewed((deps.clock.monotonic() - startedAt) / 1000);
      deps.onRenewed?.(startedAt);
      return written;
    } catch (err: unknown) {
      if (stop.aborted) return undefined;
      if (signal.aborted || (attempt > 1 && !isStaleBase(err))) {
        deps.metrics.leaseRenewFailed();
        log.warn({ err: toKubeError(err), attempt }, 'heartbeat lease renewal failed; retrying shortly');
        return undefined;
      }
      base = await fresh(deps, signal).catch(() => undefined); // stale base: start from what is there
    }
  }
  deps.metrics.leaseRenewFailed();
  log.warn({ attempts: MAX_ATTEMPTS }, 'heartbeat lease kept changing; retrying shortly');
  return undefined;
}

/** The Lease changed, vanished or appeared since it was read: worth another attempt from a fresh read. */
function isStaleBase(err: unknown): boolean {
  return isConflict(err) || isNotFound(err) || isAlreadyExists(err);
}

async function fresh(deps: HeartbeatDeps, signal: AbortSignal): Promise<Lease | undefined> {
  return deps.leases.find(`${namespaces.cluster}/${deps.clusterName}`, { signal });
}

async function write(deps: HeartbeatDeps, base: Lease | undefined, signal: AbortSignal): Promise<Lease> {
  const lease = planHeartbeat(base, {
    cluster: deps.clusterName,
    clusterUid: deps.clusterUid(),
    leaseDurationSeconds: Math.floor(deps.leaseDurationMs / 1000),
    nowMs: deps.clock.now(),
  });
  return base === undefined ? deps.leases.create(lease, { signal }) : deps.leases.replace(lease, { signal });
}
