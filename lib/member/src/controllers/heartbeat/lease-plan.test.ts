import { describe, expect, it } from 'vitest';
import type { Lease } from '@kf/kube';
import { nextTickDelayMs, planHeartbeat, renewIntervalMs } from './lease-plan.ts';

const T0 = Date.parse('2026-01-01T00:00:00.123Z');
const input = { cluster: 'member1', clusterUid: 'uid-1', leaseDurationSeconds: 40, nowMs: T0 };

describe('planHeartbeat', () => {
  it('creates the Lease held by the cluster, owned by the Cluster', () => {
    expect(planHeartbeat(undefined, input)).toEqual({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: 'member1',
        namespace: 'karmada-cluster',
        ownerReferences: [
          { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', name: 'member1', uid: 'uid-1' },
        ],
      },
      spec: { holderIdentity: 'member1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.123000Z' },
    });
  });

  it('creates it without an owner when the Cluster uid is unknown', () => {
    expect(planHeartbeat(undefined, { ...input, clusterUid: undefined }).metadata).not.toHaveProperty(
      'ownerReferences',
    );
  });

  it('renews: refreshes renewTime and duration, keeps the rest', () => {
    const existing = {
      metadata: {
        name: 'member1',
        namespace: 'karmada-cluster',
        resourceVersion: '7',
        ownerReferences: [{ uid: 'old' }],
      },
      spec: { holderIdentity: 'member1', leaseDurationSeconds: 10, renewTime: 'x', leaseTransitions: 2 },
    } as unknown as Lease;
    const next = planHeartbeat(existing, { ...input, nowMs: T0 + 10_000 });
    expect(next.metadata).toEqual(existing.metadata);
    expect(next.spec).toEqual({
      holderIdentity: 'member1',
      leaseDurationSeconds: 40,
      renewTime: '2026-01-01T00:00:10.123000Z',
      leaseTransitions: 2,
    });
  });

  it('adds the owner reference to a Lease that has none', () => {
    const existing: Lease = { metadata: { name: 'member1', namespace: 'karmada-cluster' }, spec: {} };
    expect(planHeartbeat(existing, input).metadata).toHaveProperty('ownerReferences.0.uid', 'uid-1');
  });

  it('renews every lease duration × fraction', () => {
    expect(renewIntervalMs(40_000, 0.25)).toBe(10_000);
  });
});

describe('nextTickDelayMs', () => {
  it('waits one interval plus 0–4 % after a renewal', () => {
    expect(nextTickDelayMs(10_000, false, () => 0)).toBe(10_000);
    expect(nextTickDelayMs(10_000, false, () => 1)).toBe(10_400);
  });

  it('retries a quarter interval plus 0–25 % after a failed tick', () => {
    expect(nextTickDelayMs(10_000, true, () => 0)).toBe(2_500);
    expect(nextTickDelayMs(10_000, true, () => 1)).toBe(3_125);
  });

  it('never retries a failure later than it would renew after a success', () => {
    for (const r of [0, 0.3, 0.7, 1]) {
      expect(nextTickDelayMs(1_000, true, () => r)).toBeLessThan(nextTickDelayMs(1_000, false, () => 0));
    }
  });
});
