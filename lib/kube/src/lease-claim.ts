import { formatMicroTime, type LeaseSpec } from './lease.ts';

/** A lease record as this candidate last saw it, and when (local monotonic clock) it first did. */
export interface LeaseObservation {
  readonly record: LeaseSpec;
  readonly observedAtMs: number;
}

/** What a candidate may do with the lease it just read. */
export type LeaseVerdict =
  /** No Lease object: create it, holding it. */
  | { readonly kind: 'create' }
  /** We hold it: write it again with a new renewTime. */
  | { readonly kind: 'renew'; readonly observation: LeaseObservation }
  /** Released or expired: take it over. */
  | { readonly kind: 'takeover'; readonly observation: LeaseObservation }
  /** Someone else holds it and, as far as we can tell, is still renewing. */
  | {
      readonly kind: 'wait';
      readonly observation: LeaseObservation;
      readonly holder: string;
      /** How long until the holder's lease runs out on our clock if it stops renewing now. */
      readonly expiresInMs: number;
    };

export interface LeaseJudgement {
  /** The lease's spec; undefined when the Lease object does not exist. */
  readonly current: LeaseSpec | undefined;
  /** What this candidate saw the previous time, if anything. */
  readonly previous: LeaseObservation | undefined;
  readonly identity: string;
  /** Local monotonic clock. Remote timestamps are never compared with it. */
  readonly nowMs: number;
  /** Used when the record carries no leaseDurationSeconds. */
  readonly defaultLeaseDurationMs: number;
}

function sameRecord(a: LeaseSpec, b: LeaseSpec): boolean {
  return (
    a.holderIdentity === b.holderIdentity &&
    a.renewTime === b.renewTime &&
    a.acquireTime === b.acquireTime &&
    a.leaseTransitions === b.leaseTransitions &&
    a.leaseDurationSeconds === b.leaseDurationSeconds
  );
}

/**
 * May this candidate acquire or renew the lease now? A holder's lease counts as expired when
 * its record has not changed for its leaseDuration, measured from when *we* first saw that
 * record (so clock skew between machines does not matter). An empty holder is a released lease.
 */
export function judgeLease(j: LeaseJudgement): LeaseVerdict {
  if (j.current === undefined) return { kind: 'create' };
  const prev = j.previous;
  const observation: LeaseObservation = {
    record: j.current,
    observedAtMs: prev !== undefined && sameRecord(prev.record, j.current) ? prev.observedAtMs : j.nowMs,
  };
  const holder = j.current.holderIdentity ?? '';
  if (holder === j.identity) return { kind: 'renew', observation };
  if (holder === '') return { kind: 'takeover', observation };
  const durationMs =
    j.current.leaseDurationSeconds === undefined
      ? j.defaultLeaseDurationMs
      : j.current.leaseDurationSeconds * 1000;
  const expiresInMs = observation.observedAtMs + durationMs - j.nowMs;
  if (expiresInMs > 0) return { kind: 'wait', observation, holder, expiresInMs };
  return { kind: 'takeover', observation };
}

export interface LeaseClaim {
  readonly identity: string;
  readonly leaseDurationSeconds: number;
  /** Wall clock, for the MicroTime fields written to the API. */
  readonly nowMs: number;
}

/**
 * The spec to write for a verdict that allows writing. Renewing keeps acquireTime and
 * leaseTransitions; taking over sets acquireTime and counts one more transition. Fields this
 * code does not know (strategy, preferredHolder) are kept.
 */
export function planLeaseSpec(
  kind: 'create' | 'renew' | 'takeover',
  current: LeaseSpec | undefined,
  claim: LeaseClaim,
): LeaseSpec {
  const now = formatMicroTime(claim.nowMs);
  const base = {
    holderIdentity: claim.identity,
    leaseDurationSeconds: claim.leaseDurationSeconds,
    renewTime: now,
  };
  switch (kind) {
    case 'create':
      return { ...base, acquireTime: now, leaseTransitions: 0 };
    case 'renew':
      return {
        ...current,
        ...base,
        acquireTime: current?.acquireTime ?? now,
        leaseTransitions: current?.leaseTransitions ?? 0,
      };
    case 'takeover':
      return {
        ...current,
        ...base,
        acquireTime: now,
        leaseTransitions: (current?.leaseTransitions ?? 0) + 1,
      };
  }
}

/**
 * The spec that gives the lease up: no holder and a 1 s duration, so that others take over at
 * their next try instead of waiting for a full leaseDuration.
 */
export function planLeaseRelease(current: LeaseSpec | undefined, nowMs: number): LeaseSpec {
  const now = formatMicroTime(nowMs);
  return {
    ...current,
    holderIdentity: '',
    leaseDurationSeconds: 1,
    acquireTime: now,
    renewTime: now,
    leaseTransitions: current?.leaseTransitions ?? 0,
  };
}
