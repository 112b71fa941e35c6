import { describe, expect, it } from 'vitest';
import type { MemberObject } from '../execution/manifest-plan.ts';
import { interpretHealth } from './interpret-health.ts';

const obj = (
  apiVersion: string,
  kind: string,
  body: Record<string, unknown>,
  generation = 1,
): MemberObject => ({
  apiVersion,
  kind,
  metadata: { name: 'x', generation },
  ...body,
});
const deploy = (spec: Record<string, unknown>, status: Record<string, unknown>, generation = 1) =>
  obj('apps/v1', 'Deployment', { spec, status }, generation);

describe('interpretHealth', () => {
  it.each<[string, MemberObject, string]>([
    [
      'Deployment rolled out and available',
      deploy({ replicas: 2 }, { observedGeneration: 1, updatedReplicas: 2, availableReplicas: 2 }),
      'Healthy',
    ],
    [
      'Deployment not observed yet',
      deploy({ replicas: 2 }, { observedGeneration: 1, updatedReplicas: 2, availableReplicas: 2 }, 2),
      'Unhealthy',
    ],
    [
      'Deployment still rolling out',
      deploy({ replicas: 3 }, { observedGeneration: 1, updatedReplicas: 2, availableReplicas: 2 }),
      'Unhealthy',
    ],
    [
      'Deployment updated but not available',
      deploy({ replicas: 2 }, { observedGeneration: 1, updatedReplicas: 2, availableReplicas: 1 }),
      'Unhealthy',
    ],
    [
      'Deployment without spec.replicas',
      deploy({}, { observedGeneration: 1, updatedReplicas: 0 }),
      'Healthy',
    ],
    ['Deployment without status', obj('apps/v1', 'Deployment', { spec: { replicas: 1 } }), 'Unhealthy'],
    ['Deployment with a malformed status', deploy({ replicas: 1 }, { observedGeneration: 'one' }), 'Unknown'],
    [
      'StatefulSet rolled out',
      obj('apps/v1', 'StatefulSet', {
        spec: { replicas: 1 },
        status: { observedGeneration: 1, updatedReplicas: 1, availableReplicas: 1 },
      }),
      'Healthy',
    ],
    [
      'StatefulSet short of replicas',
      obj('apps/v1', 'StatefulSet', {
        spec: { replicas: 3 },
        status: { observedGeneration: 1, updatedReplicas: 1, availableReplicas: 1 },
      }),
      'Unhealthy',
    ],
    [
      'DaemonSet scheduled and available everywhere',
      obj('apps/v1', 'DaemonSet', {
        status: {
          observedGeneration: 1,
          desiredNumberScheduled: 3,
          updatedNumberScheduled: 3,
          numberAvailable: 3,
        },
      }),
      'Healthy',
    ],
    [
      'DaemonSet not available everywhere',
      obj('apps/v1', 'DaemonSet', {
        status: {
          observedGeneration: 1,
          desiredNumberScheduled: 3,
          updatedNumberScheduled: 3,
          numberAvailable: 2,
        },
      }),
      'Unhealthy',
    ],
    [
      'ReplicaSet available',
      obj('apps/v1', 'ReplicaSet', {
        spec: { replicas: 2 },
        status: { observedGeneration: 1, availableReplicas: 2 },
      }),
      'Healthy',
    ],
    [
      'Pod running and Ready',
      obj('v1', 'Pod', { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }),
      'Healthy',
    ],
    [
      'Pod running, not Ready',
      obj('v1', 'Pod', { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } }),
      'Unhealthy',
    ],
    ['Pod succeeded', obj('v1', 'Pod', { status: { phase: 'Succeeded' } }), 'Healthy'],
    ['Pod pending', obj('v1', 'Pod', { status: { phase: 'Pending' } }), 'Unhealthy'],
    ['ClusterIP Service', obj('v1', 'Service', { spec: { type: 'ClusterIP' } }), 'Healthy'],
    [
      'LoadBalancer Service without ingress',
      obj('v1', 'Service', { spec: { type: 'LoadBalancer' }, status: { loadBalancer: {} } }),
      'Unhealthy',
    ],
    [
      'LoadBalancer Service with an ingress IP',
      obj('v1', 'Service', {
        spec: { type: 'LoadBalancer' },
        status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      }),
      'Healthy',
    ],
    ['Ingress without address', obj('networking.k8s.io/v1', 'Ingress', { status: {} }), 'Unhealthy'],
    [
      'Ingress with a hostname',
      obj('networking.k8s.io/v1', 'Ingress', { status: { loadBalancer: { ingress: [{ hostname: 'a' }] } } }),
      'Healthy',
    ],
    ['PVC bound', obj('v1', 'PersistentVolumeClaim', { status: { phase: 'Bound' } }), 'Healthy'],
    ['PVC pending', obj('v1', 'PersistentVolumeClaim', { status: { phase: 'Pending' } }), 'Unhealthy'],
    [
      'PDB satisfied',
      obj('policy/v1', 'PodDisruptionBudget', { status: { currentHealthy: 2, desiredHealthy: 2 } }),
      'Healthy',
    ],
    [
      'PDB short',
      obj('policy/v1', 'PodDisruptionBudget', { status: { currentHealthy: 1, desiredHealthy: 2 } }),
      'Unhealthy',
    ],
    ['Job (no built-in rule, as upstream)', obj('batch/v1', 'Job', { status: { failed: 3 } }), 'Healthy'],
    ['ConfigMap (no rule)', obj('v1', 'ConfigMap', { data: {} }), 'Healthy'],
    ['Secret (no rule)', obj('v1', 'Secret', { data: {} }), 'Healthy'],
    ['a Deployment of another group is not a Deployment', obj('example.com/v1', 'Deployment', {}), 'Healthy'],
  ])('%s → %s', (_name, o, health) => {
    expect(interpretHealth(o)).toBe(health);
  });
});
