import { describe, expect, it } from 'vitest';
import { buildApiEnablements, type DiscoveredGroupVersion } from './api-enablements.ts';

const gv = (groupVersion: string, ...names: string[]): DiscoveredGroupVersion => ({
  groupVersion,
  resources: names.map((name) => ({ name, kind: name.toUpperCase(), namespaced: true })),
});

describe('buildApiEnablements', () => {
  it('sorts group versions and resources, dropping subresources', () => {
    const r = buildApiEnablements({
      groupVersions: [gv('v1', 'pods', 'pods/status', 'configmaps'), gv('apps/v1', 'deployments')],
      partial: false,
    });
    expect(r.apiEnablements).toEqual([
      { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'DEPLOYMENTS' }] },
      {
        groupVersion: 'v1',
        resources: [
          { name: 'configmaps', kind: 'CONFIGMAPS' },
          { name: 'pods', kind: 'PODS' },
        ],
      },
    ]);
    expect(r.condition).toEqual({
      type: 'CompleteAPIEnablements',
      status: 'True',
      reason: 'Complete',
      message: 'collected complete APIEnablements from the cluster',
    });
  });

  it.each([
    [[], false, 'Empty', 'collected empty APIEnablements from the cluster'],
    [[], true, 'Empty', 'collected empty APIEnablements from the cluster'],
    [
      [gv('v1', 'pods'), gv('apps/v1')],
      true,
      'Partial',
      'might collect partial APIEnablements(2) from the cluster',
    ],
  ])('%j partial=%s → %s', (groupVersions, partial, reason, message) => {
    const r = buildApiEnablements({ groupVersions, partial });
    expect(r.condition).toMatchObject({ status: 'False', reason, message });
    if (reason === 'Empty') expect(r.apiEnablements).toBeUndefined();
  });
});
