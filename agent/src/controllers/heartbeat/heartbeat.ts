/**
 * Renews the cluster heartbeat Lease `karmada-cluster/<cluster>` in the control plane every
 * lease duration × renew fraction (+0–4 % jitter, measured after each renewal), whatever the
 * member's health: the Lease says "the agent is alive and connected". It runs on the leader only;
 * it never deletes the Lease (the Cluster owns it). Failures are logged and retried next tick; the
 * first renewal after failures tells `onReconnected`, so that the agent reasserts its status.
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
import type { AgentMetrics } from '../../metrics.ts';
import { planHeartbeat } from './lease-plan.ts';

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
  readonly metrics: AgentMetrics;
  /** Called when a renewal succeeds after one or more failed ticks: the agent is back in touch. */
  readonly onReconnected?: () => void;
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
      let failing = false;
      while (!signal.aborted) {
        last = await renewOnce(deps, last, log, signal);
        if (last === undefined) failing = !signal.aborted;
        else if (failing) {
          failing = false;
          log.info('heartbeat lease renewed again after failures');
          deps.onReconnected?.();
        }
        // Upstream's jitter (0–4 %) keeps many agents from renewing in lockstep.
        const waitMs = deps.renewIntervalMs * (1 + 0.04 * deps.random());
        try {
          await deps.clock.sleep(waitMs, signal);
        } catch {
          return; // stopping
        }
      }
    },
  };
}

/** One tick: returns the Lease written (the base for the next tick), or undefined after a failure. */
async function renewOnce(
  deps: HeartbeatDeps,
  remembered: Lease | undefined,
  log: Logger,
  signal: AbortSignal,
): Promise<Lease | undefined> {
  const startedAt = deps.clock.monotonic();
  let base = remembered;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      const written = await write(deps, base, signal);
      deps.metrics.leaseRenewed((deps.clock.monotonic() - startedAt) / 1000);
      return written;
    } catch (err: unknown) {
      if (signal.aborted) return undefined;
      if (attempt > 1 && !isConflict(err) && !isNotFound(err) && !isAlreadyExists(err)) {
        deps.metrics.leaseRenewFailed();
        log.warn({ err: toKubeError(err), attempt }, 'heartbeat lease renewal failed; retrying next period');
        return undefined;
      }
      base = await fresh(deps, signal).catch(() => undefined); // stale base: start from what is there
    }
  }
  deps.metrics.leaseRenewFailed();
  log.warn({ attempts: MAX_ATTEMPTS }, 'heartbeat lease kept changing; retrying next period');
  return undefined;
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
  // The call's deadline is the renew interval: a renewal later than that is worth nothing.
  const call = { signal, timeoutMs: Math.max(1_000, deps.renewIntervalMs) };
  return base === undefined ? deps.leases.create(lease, call) : deps.leases.replace(lease, call);
}
