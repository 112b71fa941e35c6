import { describe, expect, it } from 'vitest';
import { annotations, type ResourceBinding } from '@kf/api';
import { evictionInputsChanged } from './reads.ts';

const base: ResourceBinding = {
  metadata: {
    name: 'web-deployment',
    namespace: 'default',
    resourceVersion: '5',
    generation: 2,
    annotations: { [annotations.appliedPlacement]: '{"clusterTolerations":[]}' },
  },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
    clusters: [{ name: 'm1', replicas: 2 }],
  },
};
const withSpec = (spec: Partial<ResourceBinding['spec']>): ResourceBinding => ({
  ...base,
  spec: { ...base.spec, ...spec },
});

describe('evictionInputsChanged', () => {
  it.each([
    ['the placement', withSpec({ clusters: [{ name: 'm2', replicas: 2 }] })],
    ['the replicas on a cluster', withSpec({ clusters: [{ name: 'm1', replicas: 3 }] })],
    [
      'the applied tolerations',
      {
        ...base,
        metadata: {
          ...base.metadata,
          annotations: {
            [annotations.appliedPlacement]: '{"clusterTolerations":[{"key":"k","operator":"Exists"}]}',
          },
        },
      },
    ],
    ['the purge mode', withSpec({ failover: { cluster: { purgeMode: 'Directly' } } })],
    ['the deletion', { ...base, metadata: { ...base.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }],
  ] as const)('wakes for a change of %s', (_, b) => {
    expect(evictionInputsChanged(b, base)).toBe(true);
  });

  it.each([
    [
      'an eviction task added or removed',
      withSpec({
        gracefulEvictionTasks: [{ fromCluster: 'm0', reason: 'TaintUntolerated', producer: 'TaintManager' }],
      }),
    ],
    [
      'the status',
      { ...base, status: { lastScheduledTime: '2026-01-01T00:00:00Z', schedulerObservedGeneration: 2 } },
    ],
    [
      'the resourceVersion and generation',
      { ...base, metadata: { ...base.metadata, resourceVersion: '6', generation: 3 } },
    ],
    ['the labels', { ...base, metadata: { ...base.metadata, labels: { team: 'a' } } }],
  ] as const)('does not wake for %s', (_, b) => {
    expect(evictionInputsChanged(b, base)).toBe(false);
  });
});
