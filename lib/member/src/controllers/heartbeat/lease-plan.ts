/** The cluster heartbeat Lease (`karmada-cluster/<cluster>`) as the agent writes it. */
import { formatMicroTime, type Lease } from '@kf/kube';
import { clusterKind, namespaces, type OwnerReference } from '@kf/api';

export interface HeartbeatInput {
  readonly cluster: string;
  /** The Cluster's uid, for the owner reference (so the Lease goes when the Cluster goes). */
  readonly clusterUid: string | undefined;
  readonly leaseDurationSeconds: number;
  readonly nowMs: number;
}

/** A Lease whose owner reference points at the Cluster; no controller / blockOwnerDeletion, as upstream. */
function ownerOf(input: HeartbeatInput): OwnerReference[] {
  if (input.clusterUid === undefined || input.clusterUid === '') return [];
  return [
    {
      apiVersion: clusterKind.apiVersion,
      kind: clusterKind.kind,
      name: input.cluster,
      uid: input.clusterUid,
    },
  ];
}

/**
 * The Lease to write: a new one (holder = cluster name, duration, renewTime = now, owner
 * reference) when none exists; else the existing one with duration and renewTime refreshed and,
 * if it has none, the owner reference added. Everything else of the existing Lease is kept.
 */
export function planHeartbeat(existing: Lease | undefined, input: HeartbeatInput): Lease {
  const renewTime = formatMicroTime(input.nowMs);
  const owners = ownerOf(input);
  if (existing === undefined) {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: input.cluster,
        namespace: namespaces.cluster,
        ...(owners.length === 0 ? {} : { ownerReferences: owners }),
      },
      spec: { holderIdentity: input.cluster, leaseDurationSeconds: input.leaseDurationSeconds, renewTime },
    };
  }
  const meta = existing.metadata as
    (Lease['metadata'] & { ownerReferences?: readonly OwnerReference[] }) | undefined;
  const hasOwners = (meta?.ownerReferences?.length ?? 0) > 0;
  return {
    ...existing,
    metadata: { ...meta, ...(hasOwners || owners.length === 0 ? {} : { ownerReferences: owners }) },
    spec: { ...existing.spec, leaseDurationSeconds: input.leaseDurationSeconds, renewTime },
  };
}

/** Renew interval = lease duration × fraction, as upstream (10 s by default). */
export function renewIntervalMs(leaseDurationMs: number, fraction: number): number {
  return leaseDurationMs * fraction;
}

/**
 * How long the heartbeat waits before its next tick. After a renewal: one renew interval plus
 * 0–4 % (upstream's jitter, so that many agents do not renew in lockstep). After a failed tick: a
 * quarter of that, plus 0–25 %. A link that comes back is then used within a quarter interval, not
 * a whole one: the Lease is renewed (and the agent's status reasserted) that much sooner, which is
 * what keeps a Ready=Unknown written during the outage short-lived. Four tries per interval against
 * an unreachable control plane stay cheap, and the wider jitter spreads a fleet of agents that all
 * failed at once (the control plane restarting) when they come back.
 */
export function nextTickDelayMs(intervalMs: number, lastTickFailed: boolean, random: () => number): number {
  return lastTickFailed ? (intervalMs / 4) * (1 + 0.25 * random()) : intervalMs * (1 + 0.04 * random());
}
