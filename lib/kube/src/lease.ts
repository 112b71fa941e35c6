import type { KubeObject, ResourceDescriptor } from './resource.ts';

/** coordination.k8s.io/v1 Lease spec as JSON: times are MicroTime strings. */
export interface LeaseSpec {
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec?: LeaseSpec;
}

export const LEASE_RESOURCE: ResourceDescriptor = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  namespaced: true,
  kind: 'Lease',
};

/**
 * A metav1.MicroTime as the API server wants it: UTC with exactly 6 fractional digits
 * (`2026-11-22T04:38:58.123456Z`); a plain Date's 3 digits are rejected with 400.
 * Fractions of a millisecond in `ms` become the last three digits.
 */
export function formatMicroTime(ms: number): string {
  let wholeMs = Math.floor(ms);
  let extra = Math.round((ms - wholeMs) * 1000);
  if (extra === 1000) {
    wholeMs += 1;
    extra = 0;
  }
  const iso = new Date(wholeMs).toISOString();
  return `${iso.slice(0, -1)}${String(extra).padStart(3, '0')}Z`;
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/** Milliseconds since the epoch (with sub-millisecond fraction) of an RFC 3339 / MicroTime string. */
export function parseMicroTime(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const whole = Date.parse(`${m[1] ?? ''}${(m[3] ?? '').toUpperCase()}`);
  if (Number.isNaN(whole)) return undefined;
  const fraction = m[2] === undefined ? 0 : Number(m[2].padEnd(9, '0')) / 1e6;
  return whole + fraction;
}

/** When the holder last renewed the lease (remote wall clock), or undefined if never / unreadable. */
export function leaseRenewedAtMs(lease: Lease | undefined): number | undefined {
  return parseMicroTime(lease?.spec?.renewTime);
}

/** The lease's duration in ms, or undefined if unset. */
export function leaseDurationMs(lease: Lease | undefined): number | undefined {
  const s = lease?.spec?.leaseDurationSeconds;
  return s === undefined ? undefined : s * 1000;
}
