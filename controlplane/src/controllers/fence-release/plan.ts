/**
 * When the control plane may release a fenced Work without its agent: the Work of a `Directly`
 * purge carries a fence timeout, and its cluster's agent deletes the copies itself once it has not
 * renewed its Lease for that long. The control plane never reads the agent's clock: it counts on
 * its own monotonic clock from the moment it first saw the Lease at its current resourceVersion
 * (a moment no earlier than the last renewal landed), and releases once that silence has lasted
 * the fence timeout + the Lease duration + its margin, and a fresh read shows the Lease unchanged.
 */
import { finalizers, readFenceSetting, workConditionTypes, type Work } from '@kf/api';
import { leaseDurationMs, type Lease } from '@kf/kube';

/** Default of `--fence-release-margin`: a pod's default termination grace (30 s) and 15 s more. */
export const DEFAULT_FENCE_RELEASE_MARGIN_MS = 45_000;

/** The Lease of one cluster as this process last saw it change. */
export interface LeaseSighting {
  /** `absent` while there is no Lease. */
  readonly resourceVersion: string;
  /** Monotonic ms when this process first saw that resourceVersion. */
  readonly sinceMono: number;
  readonly leaseDurationMs?: number;
}

/** Tracks, per cluster, since when its Lease has not changed. */
export class LeaseSightings {
  readonly #byCluster = new Map<string, LeaseSighting>();

  /** Records what the Lease of `cluster` is now (undefined: none); a change restarts the silence. */
  observe(cluster: string, lease: Lease | undefined, nowMono: number): LeaseSighting {
    const resourceVersion = lease?.metadata?.resourceVersion ?? 'absent';
    const seen = this.#byCluster.get(cluster);
    if (seen?.resourceVersion === resourceVersion) return seen;
    const duration = leaseDurationMs(lease);
    const next = {
      resourceVersion,
      sinceMono: nowMono,
      ...(duration === undefined ? {} : { leaseDurationMs: duration }),
    };
    this.#byCluster.set(cluster, next);
    return next;
  }

  get(cluster: string): LeaseSighting | undefined {
    return this.#byCluster.get(cluster);
  }
}

export type ReleaseDecision =
  /** Not a Work this controller releases: not deleting, released already, or no fence. */
  | { readonly kind: 'none' }
  /** Not provable: no Lease, or no Lease duration, seen for the cluster. Never released so. */
  | { readonly kind: 'unprovable'; readonly why: string }
  | { readonly kind: 'wait'; readonly inMs: number }
  /** Silent long enough: release if a fresh read finds the Lease still at `resourceVersion`. */
  | { readonly kind: 'verify'; readonly resourceVersion: string; readonly silentMs: number };

export interface ReleaseInput {
  readonly work: Work;
  readonly sighting: LeaseSighting | undefined;
  readonly marginMs: number;
  readonly nowMono: number;
}

/** How long the Lease must have been silent before a Work fenced after `fenceSeconds` is released. */
export function requiredSilenceMs(fenceSeconds: number, leaseMs: number, marginMs: number): number {
  return fenceSeconds * 1000 + leaseMs + marginMs;
}

/**
 * Whether the copies are known to be fenced: the agent armed the fence (it lists them in its
 * record), or nothing was ever applied. An agent that does not fence (an older one, or upstream's)
 * applies without saying so, and its Works are never released.
 */
function isArmedOrUnapplied(work: Work): boolean {
  const conditions = work.status?.conditions ?? [];
  const is = (type: string) => conditions.some((c) => c.type === type && c.status === 'True');
  return is(workConditionTypes.fenceArmed) || !is(workConditionTypes.applied);
}

export function decideRelease(input: ReleaseInput): ReleaseDecision {
  const { work, sighting } = input;
  if (work.metadata.deletionTimestamp === undefined) return { kind: 'none' };
  if (!(work.metadata.finalizers ?? []).includes(finalizers.executionController)) return { kind: 'none' };
  const setting = readFenceSetting(work.metadata.annotations);
  if (setting.kind !== 'on') return { kind: 'none' };
  if (!isArmedOrUnapplied(work)) {
    return { kind: 'unprovable', why: 'its agent has not said it fences this Work (condition FenceArmed)' };
  }
  if (sighting === undefined || sighting.resourceVersion === 'absent') {
    return { kind: 'unprovable', why: 'the cluster has no Lease' };
  }
  if (sighting.leaseDurationMs === undefined) {
    return { kind: 'unprovable', why: 'the Lease gives no duration' };
  }
  const needed = requiredSilenceMs(setting.seconds, sighting.leaseDurationMs, input.marginMs);
  const silentMs = input.nowMono - sighting.sinceMono;
  if (silentMs < needed) return { kind: 'wait', inMs: needed - silentMs };
  return { kind: 'verify', resourceVersion: sighting.resourceVersion, silentMs };
}
