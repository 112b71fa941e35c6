import type { ResourceList } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { allocatableReplicas, estimateFromSummary, MAX_REPLICAS } from './estimate.ts';
import { binding, cluster } from './test-builders.ts';

const summary = (allocatable: ResourceList, allocated: ResourceList = {}, allocating: ResourceList = {}) => ({
  summary: { allocatable, allocated, allocating },
});

describe('estimateFromSummary (general estimator)', () => {
  it.each<[string, Parameters<typeof cluster>[1], ResourceList | undefined, number]>([
    ['no resource summary', { summary: null }, undefined, 0],
    ['free pod slots without requirements', summary({ pods: 110 }, { pods: 10 }, { pods: 5 }), undefined, 95],
    ['no pod slots left', summary({ pods: 10 }, { pods: 10 }), undefined, 0],
    ['pods overcommitted', summary({ pods: 10 }, { pods: 8 }, { pods: 9 }), undefined, 0],
    ['no pods listed', summary({ cpu: '8' }), undefined, 0],
    ['cpu in millicores', summary({ pods: 100, cpu: '4' }, { cpu: '1500m' }), { cpu: '250m' }, 10],
    [
      'memory in whole units',
      summary({ pods: 100, memory: '10Gi' }, { memory: '1Gi' }),
      { memory: '2Gi' },
      4,
    ],
    [
      'the scarcest resource wins',
      summary({ pods: 100, cpu: '8', memory: '4Gi' }),
      { cpu: '1', memory: '1Gi' },
      4,
    ],
    ['pod slots cap the resources', summary({ pods: 3, cpu: '8' }), { cpu: '1' }, 3],
    [
      'a requested resource the cluster does not list',
      summary({ pods: 100, cpu: '8' }),
      { 'nvidia.com/gpu': '1' },
      0,
    ],
    ['a resource used up', summary({ pods: 100, cpu: '2' }, { cpu: '2' }), { cpu: '100m' }, 0],
    ['a zero request is ignored', summary({ pods: 7 }), { cpu: '0' }, 7],
    ['requirements without requests', summary({ pods: 7 }), {}, 7],
    ['allocating counts as used', summary({ pods: 100, cpu: '4' }, {}, { cpu: '3' }), { cpu: '500m' }, 2],
  ])('%s → %d', (_name, clusterOptions, requests, expected) => {
    const b = binding({ replicas: 1, ...(requests === undefined ? {} : { requests }) });
    expect(estimateFromSummary(b, cluster('c', clusterOptions))).toBe(expected);
  });
});

describe('allocatableReplicas', () => {
  it('is unlimited for bindings without replicas', () => {
    expect(allocatableReplicas(binding({ replicas: 0 }), cluster('c', { summary: null }))).toBe(MAX_REPLICAS);
  });

  it('is the estimate for workloads', () => {
    expect(allocatableReplicas(binding({ replicas: 5 }), cluster('c', { pods: 42 }))).toBe(42);
  });

  it('falls back to the binding replicas when the estimate is unlimited', () => {
    expect(allocatableReplicas(binding({ replicas: 5 }), cluster('c', { pods: 2 ** 40 }))).toBe(5);
  });

  it('estimates multi-template workloads even with zero replicas', () => {
    expect(allocatableReplicas(binding({ replicas: 0, components: 2 }), cluster('c', { pods: 9 }))).toBe(9);
  });
});
