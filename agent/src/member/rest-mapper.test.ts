import { describe, expect, it } from 'vitest';
import type { Discovery } from '../controllers/cluster-status/api-enablements.ts';
import { MemberRestMapper, NoMappingError, buildMappings, splitApiVersion } from './rest-mapper.ts';

const discovery: Discovery = {
  partial: false,
  groupVersions: [
    {
      groupVersion: 'v1',
      resources: [
        { name: 'pods', kind: 'Pod', namespaced: true },
        { name: 'pods/status', kind: 'Pod', namespaced: true },
        { name: 'namespaces', kind: 'Namespace', namespaced: false },
      ],
    },
    { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment', namespaced: true }] },
  ],
};

it('splits apiVersions', () => {
  expect(splitApiVersion('apps/v1')).toEqual({ group: 'apps', version: 'v1' });
  expect(splitApiVersion('v1')).toEqual({ group: '', version: 'v1' });
});

it('maps apiVersion and kind to resources, ignoring subresources', () => {
  const m = buildMappings(discovery);
  expect(m.get('v1|Pod')).toEqual({
    group: '',
    version: 'v1',
    plural: 'pods',
    namespaced: true,
    kind: 'Pod',
  });
  expect(m.get('v1|Namespace')?.namespaced).toBe(false);
  expect(m.get('apps/v1|Deployment')?.plural).toBe('deployments');
});

describe('MemberRestMapper', () => {
  it('rediscovers on a miss, at most once per interval', async () => {
    let now = 0;
    let calls = 0;
    const mapper = new MemberRestMapper(
      () => {
        calls++;
        return Promise.resolve(discovery);
      },
      () => now,
      5_000,
    );
    expect((await mapper.resolve('apps/v1', 'Deployment')).plural).toBe('deployments');
    await expect(mapper.resolve('example.com/v1', 'Widget')).rejects.toBeInstanceOf(NoMappingError);
    expect(calls).toBe(1);
    now = 5_000;
    await expect(mapper.resolve('example.com/v1', 'Widget')).rejects.toThrow(
      /serves no resource for example.com\/v1 Widget/,
    );
    expect(calls).toBe(2);
  });
});
