import { describe, expect, it } from 'vitest';
import { annotations, type ResourceBinding } from '@kf/api';
import type { ScheduleResult } from '../../scheduler/schedule.ts';
import { describePass, planPlacementPatch, planStatusPatch } from './scheduling-writes.ts';

const NOW = Date.parse('2026-05-01T10:00:00Z');
const placement = { clusterAffinity: { clusterNames: ['m1', 'm2'] } };
const binding: ResourceBinding = {
  metadata: { name: 'web-deployment', namespace: 'default', generation: 4, resourceVersion: '77' },
  spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, replicas: 3, placement },
};
const success: ScheduleResult = {
  clusters: [
    { name: 'm1', replicas: 1 },
    { name: 'm2', replicas: 2 },
  ],
  writeClusters: true,
  affinityName: undefined,
  rejected: [],
  condition: {
    type: 'Scheduled',
    status: 'True',
    reason: 'Success',
    message: 'Binding has been scheduled successfully.',
  },
  retry: 'none',
  attempts: [],
};
const noFit: ScheduleResult = {
  ...success,
  clusters: [],
  writeClusters: false,
  rejected: [{ cluster: 'm1', plugin: 'TaintToleration', reason: 'cluster(s) had untolerated taint {k: v}' }],
  condition: {
    type: 'Scheduled',
    status: 'False',
    reason: 'NoClusterFit',
    message: '0/1 clusters are available: 1 cluster(s) had untolerated taint {k: v}.',
  },
};

describe('planPlacementPatch and planStatusPatch', () => {
  it('writes the result, the annotation and a successful status', () => {
    expect(planPlacementPatch(binding, success)).toEqual({
      metadata: {
        resourceVersion: '77',
        annotations: { [annotations.appliedPlacement]: JSON.stringify(placement) },
      },
      spec: { clusters: success.clusters },
    });
    expect(planStatusPatch(binding, success, NOW)).toEqual({
      status: {
        conditions: [{ ...success.condition, lastTransitionTime: '2026-05-01T10:00:00Z' }],
        schedulerObservedGeneration: 4,
        lastScheduledTime: '2026-05-01T10:00:00Z',
      },
    });
  });

  it('does not rewrite a placement that is already in place', () => {
    const placed: ResourceBinding = {
      ...binding,
      metadata: {
        ...binding.metadata,
        annotations: { [annotations.appliedPlacement]: JSON.stringify(placement) },
      },
      spec: { ...binding.spec, clusters: success.clusters },
    };
    expect(planPlacementPatch(placed, success)).toBeUndefined();
  });

  it('keeps the placement on no fit and reports Scheduled=False once', () => {
    expect(planPlacementPatch(binding, noFit)).toBeUndefined();
    const status = planStatusPatch(binding, noFit, NOW);
    expect(status).toMatchObject({ status: { conditions: [{ status: 'False', reason: 'NoClusterFit' }] } });
    expect(status).not.toHaveProperty('status.schedulerObservedGeneration');
    const reported: ResourceBinding = {
      ...binding,
      status: (status as { status: NonNullable<ResourceBinding['status']> }).status,
    };
    expect(planStatusPatch(reported, noFit, NOW + 1000)).toBeUndefined();
  });
});

describe('planStatusPatch', () => {
  it('observes the generation the placement write made: its own result needs no second status write', () => {
    const patched: ResourceBinding = {
      ...binding,
      metadata: { ...binding.metadata, generation: 5, resourceVersion: '78' },
      spec: { ...binding.spec, clusters: success.clusters },
    };
    expect(planStatusPatch(patched, success, NOW)).toMatchObject({
      status: { schedulerObservedGeneration: 5 },
    });
  });
});

describe('describePass', () => {
  it.each([
    [success, true, 'Binding has been scheduled successfully. Result: {m1:1, m2:2}'],
    [
      noFit,
      false,
      '0/1 clusters are available: 1 cluster(s) had untolerated taint {k: v}. (m1: TaintToleration: cluster(s) had untolerated taint {k: v})',
    ],
  ] as const)('%#', (r, ok, message) => {
    expect(describePass(r)).toEqual({ ok, message });
  });
});
