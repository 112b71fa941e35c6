import { describe, expect, it } from 'vitest';
import type { ClusterStatus, ConditionUpdate } from '@kf/api';
import { planClusterStatus, type CollectedStatus } from './status-plan.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const ready: ConditionUpdate = { type: 'Ready', status: 'True', reason: 'ClusterReady', message: 'ok' };
const notReady: ConditionUpdate = {
  type: 'Ready',
  status: 'False',
  reason: 'ClusterNotReachable',
  message: 'no',
};
const collected: CollectedStatus = {
  kubernetesVersion: 'v1.36.3',
  apiEnablements: [{ groupVersion: 'v1', resources: [{ name: 'pods', kind: 'Pod' }] }],
  summary: { nodeSummary: { totalNum: 2, readyNum: 2 }, resourceSummary: { allocatable: { cpu: '64' } } },
};

describe('planClusterStatus', () => {
  it('fills an empty status with the collected fields and conditions', () => {
    expect(planClusterStatus(undefined, [ready], collected, T0)).toEqual({
      kubernetesVersion: 'v1.36.3',
      apiEnablements: collected.apiEnablements,
      nodeSummary: { totalNum: 2, readyNum: 2 },
      resourceSummary: { allocatable: { cpu: '64' } },
      conditions: [{ ...ready, lastTransitionTime: '2026-01-01T00:00:00Z' }],
    });
  });

  it('writes nothing when nothing changed', () => {
    const current = planClusterStatus(undefined, [ready], collected, T0);
    expect(planClusterStatus(current, [ready], collected, T0 + 10_000)).toBeUndefined();
  });

  it('keeps conditions of other writers, remedyActions and their order', () => {
    const current: ClusterStatus = {
      conditions: [
        {
          type: 'ServiceDomainNameResolutionReady',
          status: 'False',
          reason: 'X',
          message: 'x',
          lastTransitionTime: 'a',
        },
        { type: 'Ready', status: 'True', reason: 'ClusterReady', message: 'ok', lastTransitionTime: 'b' },
      ],
      remedyActions: ['TrafficControl'],
    };
    const next = planClusterStatus(current, [notReady], undefined, T0);
    expect(next?.remedyActions).toEqual(['TrafficControl']);
    expect(next?.conditions?.map((c) => [c.type, c.status, c.lastTransitionTime])).toEqual([
      ['ServiceDomainNameResolutionReady', 'False', 'a'],
      ['Ready', 'False', '2026-01-01T00:00:00Z'],
    ]);
  });

  it('moves lastTransitionTime only when the status changes', () => {
    const current = planClusterStatus(undefined, [ready], undefined, T0);
    const next = planClusterStatus(current, [{ ...ready, message: 'still ok' }], undefined, T0 + 60_000);
    expect(next?.conditions?.[0]).toMatchObject({
      message: 'still ok',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
  });

  it('clears kubernetesVersion and apiEnablements when discovery found nothing', () => {
    const current = planClusterStatus(undefined, [ready], collected, T0);
    const next = planClusterStatus(
      current,
      [ready],
      { kubernetesVersion: '', apiEnablements: undefined },
      T0,
    );
    expect(next).not.toHaveProperty('kubernetesVersion');
    expect(next).not.toHaveProperty('apiEnablements');
    expect(next?.nodeSummary).toEqual({ totalNum: 2, readyNum: 2 }); // modeling off: kept
  });

  it('replaces the summaries wholesale when modeling is on', () => {
    const current = planClusterStatus(undefined, [ready], collected, T0);
    const next = planClusterStatus(
      current,
      [ready],
      { ...collected, summary: { nodeSummary: {}, resourceSummary: {} } },
      T0,
    );
    expect(next?.nodeSummary).toEqual({});
    expect(next?.resourceSummary).toEqual({});
  });
});
