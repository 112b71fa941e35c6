import { describe, expect, it } from 'vitest';
import type { GracefulEvictionTask, ResourceBindingSpec } from '@kf/api';
import { planGracefulEviction, type EvictionTaskOptions } from './evict-cluster.ts';

const resource = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' };
const options: EvictionTaskOptions = {
  purgeMode: 'Gracefully',
  producer: 'TaintManager',
  reason: 'TaintUntolerated',
};
const existing: GracefulEvictionTask = {
  fromCluster: 'm1',
  producer: 'TaintManager',
  reason: 'TaintUntolerated',
};

describe('planGracefulEviction', () => {
  it.each<[string, ResourceBindingSpec, string, ResourceBindingSpec, boolean]>([
    [
      'removes the cluster and appends a task with its replicas',
      {
        resource,
        clusters: [
          { name: 'm1', replicas: 5 },
          { name: 'm2', replicas: 3 },
        ],
      },
      'm1',
      {
        resource,
        clusters: [{ name: 'm2', replicas: 3 }],
        gracefulEvictionTasks: [{ fromCluster: 'm1', replicas: 5, ...options }],
      },
      true,
    ],
    [
      'a cluster that is not placed changes nothing',
      { resource, clusters: [{ name: 'm2', replicas: 3 }] },
      'm1',
      { resource, clusters: [{ name: 'm2', replicas: 3 }] },
      false,
    ],
    ['a binding without clusters changes nothing', { resource }, 'm1', { resource }, false],
    [
      'zero or absent replicas are not written',
      { resource, clusters: [{ name: 'm1', replicas: 0 }, { name: 'm2' }] },
      'm1',
      { resource, clusters: [{ name: 'm2' }], gracefulEvictionTasks: [{ fromCluster: 'm1', ...options }] },
      true,
    ],
    [
      'an existing task for the cluster is not duplicated, the cluster still goes',
      { resource, clusters: [{ name: 'm1', replicas: 2 }], gracefulEvictionTasks: [existing] },
      'm1',
      { resource, clusters: [], gracefulEvictionTasks: [existing] },
      true,
    ],
    [
      'tasks for other clusters are kept and the new one appended after them',
      {
        resource,
        clusters: [{ name: 'm1', replicas: 2 }],
        gracefulEvictionTasks: [{ ...existing, fromCluster: 'm0' }],
      },
      'm1',
      {
        resource,
        clusters: [],
        gracefulEvictionTasks: [
          { ...existing, fromCluster: 'm0' },
          { fromCluster: 'm1', replicas: 2, ...options },
        ],
      },
      true,
    ],
  ])('%s', (...[, spec, cluster, expected, changed]) => {
    const plan = planGracefulEviction(spec, cluster, options);
    expect(plan.spec).toEqual(expected);
    expect(plan.changed).toBe(changed);
  });

  it('carries every producer option into the task and never a creationTimestamp', () => {
    const spec: ResourceBindingSpec = { resource, clusters: [{ name: 'm1', replicas: 2 }] };
    const plan = planGracefulEviction(spec, 'm1', {
      purgeMode: 'Never',
      producer: 'resource-binding-application-failover-controller',
      reason: 'ApplicationFailure',
      message: 'unhealthy for 120s',
      suppressDeletion: true,
      preservedLabelState: { 'example.com/job-id': '42' },
      clustersBeforeFailover: ['m1'],
    });
    expect(plan.task).toEqual({
      fromCluster: 'm1',
      replicas: 2,
      purgeMode: 'Never',
      producer: 'resource-binding-application-failover-controller',
      reason: 'ApplicationFailure',
      message: 'unhealthy for 120s',
      suppressDeletion: true,
      preservedLabelState: { 'example.com/job-id': '42' },
      clustersBeforeFailover: ['m1'],
    });
    expect(spec.clusters).toEqual([{ name: 'm1', replicas: 2 }]);
  });
});
