import { describe, expect, it } from 'vitest';
import type { ManifestStatus } from '@kf/api';
import { planManifestStatuses } from './manifest-statuses.ts';

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } };
const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' } };

describe('planManifestStatuses', () => {
  it('identifies each manifest by ordinal, group, version, kind and name, with resource ""', () => {
    const live = [
      { ...cm, metadata: { ...cm.metadata, uid: '1' } },
      {
        ...deploy,
        metadata: { ...deploy.metadata, generation: 1 },
        spec: { replicas: 1 },
        status: { observedGeneration: 1, updatedReplicas: 1, availableReplicas: 1, replicas: 1 },
      },
    ];
    expect(planManifestStatuses([cm, deploy], live, [])).toEqual([
      {
        identifier: {
          ordinal: 0,
          group: '',
          version: 'v1',
          kind: 'ConfigMap',
          resource: '',
          namespace: 'default',
          name: 'c',
        },
        health: 'Healthy',
      },
      {
        identifier: {
          ordinal: 1,
          group: 'apps',
          version: 'v1',
          kind: 'Deployment',
          resource: '',
          namespace: 'default',
          name: 'd',
        },
        status: {
          replicas: 1,
          updatedReplicas: 1,
          availableReplicas: 1,
          generation: 1,
          observedGeneration: 1,
        },
        health: 'Healthy',
      },
    ]);
  });

  it('keeps the previous entry of a manifest whose object is not seen, and adds none for a new one', () => {
    const previous: ManifestStatus[] = [
      {
        identifier: { ordinal: 1, version: 'v1', kind: 'Deployment', resource: '', name: 'd' },
        health: 'Unhealthy',
      },
    ];
    expect(planManifestStatuses([cm, deploy], [undefined, undefined], previous)).toEqual(previous);
  });
});
