import type { Cluster } from '@kf/api';
import { KubeError, type EventRecorder, type ResourceClient, type WatchCache } from '@kf/kube';
import { createLogger, ManualClock } from '@kf/runtime';
import { describe, expect, it } from 'vitest';
import type { ControlPlaneMetrics } from '../../metrics.ts';
import { MemberObservations } from '../cluster-health/observations.ts';
import { clusterTaintsController } from './controller.ts';

const notReady: Cluster = {
  metadata: { name: 'member1', resourceVersion: '7' },
  spec: { syncMode: 'Pull' },
  status: {
    conditions: [
      {
        type: 'Ready',
        status: 'False',
        reason: 'ClusterNotReady',
        message: 'cluster is not ready',
        lastTransitionTime: '2026-11-20T10:00:00Z',
      },
    ],
  },
};

/** Reconciles a not-ready cluster whose taint write fails with `err`; returns the Events recorded. */
async function reconcileFailingWith(err: Error): Promise<string[]> {
  const events: string[] = [];
  const controller = clusterTaintsController({
    clusters: { get: () => notReady } as unknown as WatchCache<Cluster>,
    clusterClient: { mergePatch: () => Promise.reject(err) } as unknown as ResourceClient<Cluster>,
    events: {
      record: (_obj: unknown, type: string, reason: string) => events.push(`${type} ${reason}`),
    } as unknown as EventRecorder,
    metrics: {} as ControlPlaneMetrics,
    observations: new MemberObservations(new ManualClock()),
  });
  const ctx = {
    log: createLogger({ component: 'test', level: 'silent' }),
    now: () => Date.parse('2026-11-20T10:00:05Z'),
    signal: new AbortController().signal,
  };
  await expect(controller.reconcile('member1', ctx)).rejects.toBe(err);
  return events;
}

describe('cluster-taints controller, when the taint write fails', () => {
  it.each([
    ['a Conflict is retried without an Event', new KubeError('Conflict', 'the object has been modified'), []],
    [
      'any other failure is retried with a Warning',
      new KubeError('Forbidden', 'clusters "member1" is forbidden'),
      ['Warning TaintClusterFailed'],
    ],
  ] as const)('%s', async (_name, err, expected) => {
    expect(await reconcileFailingWith(err)).toEqual(expected);
  });
});
