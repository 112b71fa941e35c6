import type { Cluster, ClusterStatus } from '@kf/api';
import type { EventRecorder, Lease, ResourceClient, WatchCache } from '@kf/kube';
import { createLogger, ManualClock } from '@kf/runtime';
import { describe, expect, it } from 'vitest';
import { clusterHealthController } from './controller.ts';
import { MemberObservations } from './observations.ts';

const NOW_MS = Date.parse('2026-11-20T10:01:00Z');

const ready: Cluster = {
  metadata: { name: 'member1', resourceVersion: '7', creationTimestamp: '2026-11-20T09:00:00Z' },
  spec: { syncMode: 'Pull' },
  status: {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'ClusterReady',
        message: 'cluster is healthy and ready to accept workloads',
        lastTransitionTime: '2026-11-20T09:00:10Z',
      },
    ],
  },
};

function leaseRenewedSecondsAgo(seconds: number): Lease {
  return {
    metadata: { name: 'member1', namespace: 'karmada-cluster' },
    spec: { renewTime: new Date(NOW_MS - seconds * 1000).toISOString().replace('Z', '000Z') },
  };
}

const cached = leaseRenewedSecondsAgo(10);

/**
 * Reconciles member1 (grace 5 s) whose cached Lease has not changed for the minute this process
 * has watched it, while the API server holds `live`; returns what the controller wrote and when
 * it wants to look again.
 */
async function reconcileWithLiveLease(
  live: Lease,
): Promise<{ written: ClusterStatus[]; recheckInMs?: number }> {
  const written: ClusterStatus[] = [];
  const clock = new ManualClock(NOW_MS - 60_000);
  const observations = new MemberObservations(clock);
  observations.look('member1', { renewTime: cached.spec?.renewTime, conditions: ready.status?.conditions });
  await clock.advance(60_000);
  const controller = clusterHealthController({
    clusters: { get: () => ready, onEvent: () => () => undefined } as unknown as WatchCache<Cluster>,
    leases: {
      getIn: () => cached,
      isLive: () => true,
      onReconnected: () => () => undefined,
      onEvent: () => () => undefined,
    } as unknown as WatchCache<Lease>,
    clusterClient: {
      replaceStatus: (c: Cluster) => {
        written.push(c.status ?? {});
        return Promise.resolve(c);
      },
    } as unknown as ResourceClient<Cluster>,
    leaseClient: { find: () => Promise.resolve(live) } as unknown as ResourceClient<Lease>,
    events: { record: () => undefined } as unknown as EventRecorder,
    grace: { monitorGracePeriodMs: 5_000, startupGracePeriodMs: 20_000 },
    monitorPeriodMs: 1_000,
    observations,
  });
  const outcome = await controller.reconcile('member1', {
    log: createLogger({ component: 'test', level: 'silent' }),
    now: () => NOW_MS,
    signal: new AbortController().signal,
  });
  return { written, ...(outcome.recheckInMs === undefined ? {} : { recheckInMs: outcome.recheckInMs }) };
}

describe('cluster-health controller, when its Lease cache shows a silence', () => {
  it('writes nothing when the API server has a renewal the cache has not caught up with', async () => {
    const r = await reconcileWithLiveLease(leaseRenewedSecondsAgo(1));
    expect(r.written).toEqual([]);
    expect(r.recheckInMs).toBe(5_000); // a grace period from the moment the renewal was seen
  });

  it('marks Ready Unknown when the API server confirms the silence', async () => {
    const r = await reconcileWithLiveLease(cached);
    expect(r.written.map((s) => s.conditions?.find((c) => c.type === 'Ready')?.status)).toEqual(['Unknown']);
  });
});
