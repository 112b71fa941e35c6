import { describe, expect, it } from 'vitest';
import { apiEnablementOf, hasCompleteAPIList, listsAPI, type APIEnablementStatus } from './api-enablement.ts';
import type { ClusterStatus } from './cluster.ts';

function status(apis: readonly [string, string][], complete: 'True' | 'False' | undefined): ClusterStatus {
  return {
    apiEnablements: apis.map(([groupVersion, kind]) => ({
      groupVersion,
      resources: [{ name: `${kind.toLowerCase()}s`, kind }],
    })),
    ...(complete === undefined
      ? {}
      : {
          conditions: [
            {
              type: 'CompleteAPIEnablements',
              status: complete,
              reason: complete === 'True' ? 'Complete' : 'Partial',
              message: '',
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ],
        }),
  };
}

describe('apiEnablementOf', () => {
  it.each<[string, ClusterStatus | undefined, APIEnablementStatus]>([
    ['listed, complete list', status([['apps/v1', 'Deployment']], 'True'), 'Enabled'],
    ['listed, partial list', status([['apps/v1', 'Deployment']], 'False'), 'Enabled'],
    ['listed, no condition yet', status([['apps/v1', 'Deployment']], undefined), 'Enabled'],
    ['not listed, complete list', status([['v1', 'ConfigMap']], 'True'), 'Disabled'],
    ['not listed, partial list', status([['v1', 'ConfigMap']], 'False'), 'Unknown'],
    ['not listed, no condition yet', status([], undefined), 'Unknown'],
    [
      'another version of the kind, complete list',
      status([['apps/v1beta1', 'Deployment']], 'True'),
      'Disabled',
    ],
    ['another kind in the version, complete list', status([['apps/v1', 'StatefulSet']], 'True'), 'Disabled'],
    ['no status at all', undefined, 'Unknown'],
  ])('%s', (_name, s, want) => {
    expect(apiEnablementOf(s, 'apps/v1', 'Deployment')).toBe(want);
  });

  it('matches core resources by version and kind', () => {
    expect(listsAPI(status([['v1', 'ConfigMap']], 'True').apiEnablements ?? [], 'v1', 'ConfigMap')).toBe(
      true,
    );
    expect(hasCompleteAPIList(status([], 'False'))).toBe(false);
  });
});
