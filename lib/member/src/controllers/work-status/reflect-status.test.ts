import { describe, expect, it } from 'vitest';
import type { MemberObject } from '../execution/manifest-plan.ts';
import { reflectStatus } from './reflect-status.ts';

describe('reflectStatus', () => {
  it('reflects a subset of a Deployment status with its generations', () => {
    const d: MemberObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { generation: 3, annotations: { 'resourcetemplate.karmada.io/generation': '7' } },
      status: {
        replicas: 2,
        readyReplicas: 2,
        availableReplicas: 2,
        updatedReplicas: 2,
        observedGeneration: 3,
        conditions: [{}],
      },
    };
    expect(reflectStatus(d)).toEqual({
      replicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      updatedReplicas: 2,
      generation: 3,
      observedGeneration: 3,
      resourceTemplateGeneration: 7,
    });
  });

  it.each<[string, MemberObject, unknown]>([
    [
      'a ClusterIP Service reflects nothing',
      { apiVersion: 'v1', kind: 'Service', spec: { type: 'ClusterIP' }, status: { loadBalancer: {} } },
      undefined,
    ],
    [
      'a LoadBalancer Service reflects its load balancer',
      {
        apiVersion: 'v1',
        kind: 'Service',
        spec: { type: 'LoadBalancer' },
        status: { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] }, conditions: [] },
      },
      { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } },
    ],
    [
      'a Job reflects counts, times and conditions',
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        status: { succeeded: 1, startTime: 't', uncountedTerminatedPods: {} },
      },
      { succeeded: 1, startTime: 't' },
    ],
    [
      'a Pod reflects its whole status',
      { apiVersion: 'v1', kind: 'Pod', status: { phase: 'Running' } },
      { phase: 'Running' },
    ],
    ['a ConfigMap has none', { apiVersion: 'v1', kind: 'ConfigMap', data: {} }, undefined],
  ])('%s', (_name, o, expected) => {
    expect(reflectStatus(o)).toEqual(expected);
  });
});
