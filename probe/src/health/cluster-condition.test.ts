import type { Cluster, ClusterCondition } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { planClusterWrite, type DesiredCondition } from './cluster-condition.ts';

const NOW = Date.parse('2026-11-22T05:00:00Z');
const EARLIER = '2026-11-20T01:02:03Z';
const TYPE = 'ServiceDomainNameResolutionReady';
const READY: DesiredCondition = {
  status: 'True',
  reason: 'ServiceDomainNameResolutionReady',
  message: 'service domain name resolution is ready',
};
const UNREADY: DesiredCondition = {
  status: 'False',
  reason: 'ServiceDomainNameResolutionFailed',
  message: 'service domain name resolution is unready',
};
const READY_CONDITION: ClusterCondition = {
  type: 'Ready',
  status: 'True',
  reason: 'ClusterReady',
  message: 'cluster is healthy and ready to accept workloads',
  lastTransitionTime: EARLIER,
};

function cluster(conditions?: ClusterCondition[], deleting = false): Cluster {
  return {
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name: 'member1', resourceVersion: '42', ...(deleting ? { deletionTimestamp: EARLIER } : {}) },
    spec: { syncMode: 'Pull' },
    ...(conditions === undefined ? {} : { status: { conditions } }),
  };
}

describe('planClusterWrite', () => {
  it('skips a missing Cluster', () => {
    expect(planClusterWrite(undefined, READY, NOW)).toEqual({ kind: 'skip', reason: 'ClusterNotFound' });
  });

  it('skips a Cluster being deleted', () => {
    expect(planClusterWrite(cluster([], true), READY, NOW)).toEqual({
      kind: 'skip',
      reason: 'ClusterDeleting',
    });
  });

  it('adds the condition to a Cluster without status, guarded by its resourceVersion', () => {
    expect(planClusterWrite(cluster(), READY, NOW)).toEqual({
      kind: 'patch',
      patch: {
        metadata: { resourceVersion: '42' },
        status: { conditions: [{ type: TYPE, ...READY, lastTransitionTime: '2026-11-22T05:00:00Z' }] },
      },
    });
  });

  it('keeps every other condition as it is, in place', () => {
    const other: ClusterCondition = { type: 'Custom', status: 'Unknown' };
    const write = planClusterWrite(
      cluster([READY_CONDITION, { type: TYPE, ...READY, lastTransitionTime: EARLIER }, other]),
      UNREADY,
      NOW,
    );
    expect(write).toMatchObject({
      kind: 'patch',
      patch: {
        status: {
          conditions: [
            READY_CONDITION,
            { type: TYPE, ...UNREADY, lastTransitionTime: '2026-11-22T05:00:00Z' },
            other,
          ],
        },
      },
    });
  });

  it('writes nothing when status, reason and message already match', () => {
    expect(
      planClusterWrite(
        cluster([READY_CONDITION, { type: TYPE, ...READY, lastTransitionTime: EARLIER }]),
        READY,
        NOW,
      ),
    ).toEqual({ kind: 'unchanged' });
  });

  it('keeps lastTransitionTime when only the message changes', () => {
    const quorum = { ...UNREADY, message: 'service domain name resolution is unready: 2 of 3 nodes failed' };
    const write = planClusterWrite(
      cluster([{ type: TYPE, ...UNREADY, lastTransitionTime: EARLIER }]),
      quorum,
      NOW,
    );
    expect(write).toMatchObject({
      kind: 'patch',
      patch: { status: { conditions: [{ type: TYPE, ...quorum, lastTransitionTime: EARLIER }] } },
    });
  });

  it('fills in reason and message another writer left out', () => {
    const write = planClusterWrite(cluster([{ type: TYPE, status: 'True' }]), READY, NOW);
    expect(write).toMatchObject({
      kind: 'patch',
      patch: { status: { conditions: [{ type: TYPE, ...READY }] } },
    });
  });
});
