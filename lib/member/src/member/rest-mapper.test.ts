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

describe('MemberRestMapper.namespacedResources', () => {
  const wide: Discovery = {
    partial: false,
    groupVersions: [
      ...discovery.groupVersions,
      {
        groupVersion: 'apps/v1beta1',
        resources: [
          { name: 'deployments', kind: 'Deployment', namespaced: true },
          { name: 'deployments/scale', kind: 'Scale', namespaced: true },
        ],
      },
      {
        groupVersion: 'events.k8s.io/v1',
        resources: [{ name: 'events', kind: 'Event', namespaced: true }],
      },
      {
        groupVersion: 'rbac.authorization.k8s.io/v1',
        resources: [
          { name: 'roles', kind: 'Role', namespaced: true },
          { name: 'clusterroles', kind: 'ClusterRole', namespaced: false },
        ],
      },
    ],
  };
  const coreEvents: Discovery = {
    partial: false,
    groupVersions: [
      ...wide.groupVersions,
      { groupVersion: 'v1', resources: [{ name: 'events', kind: 'Event', namespaced: true }] },
    ],
  };

  function counting(answers: readonly Discovery[]): { mapper: MemberRestMapper; calls: () => number } {
    let calls = 0;
    const mapper = new MemberRestMapper(
      () => Promise.resolve(answers[Math.min(calls++, answers.length - 1)]!),
      () => 0,
    );
    return { mapper, calls: () => calls };
  }

  it('lists every namespaced resource once, in the first version seen', async () => {
    const { mapper } = counting([wide]);
    expect(await mapper.namespacedResources()).toEqual([
      { group: '', version: 'v1', plural: 'pods', namespaced: true, kind: 'Pod' },
      { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true, kind: 'Deployment' },
      { group: 'events.k8s.io', version: 'v1', plural: 'events', namespaced: true, kind: 'Event' },
      { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', namespaced: true, kind: 'Role' },
    ]);
  });

  it('tells resources of the same plural in different groups apart', async () => {
    const { mapper } = counting([coreEvents]);
    const events = (await mapper.namespacedResources())!.filter((m) => m.plural === 'events');
    expect(events.map((m) => m.group)).toEqual(['events.k8s.io', '']);
  });

  it('knows nothing when discovery is partial', async () => {
    const { mapper, calls } = counting([{ ...wide, partial: true }]);
    expect(await mapper.namespacedResources()).toBeUndefined();
    expect(calls()).toBe(1);
  });

  it('discovers afresh on every call', async () => {
    const { mapper, calls } = counting([{ ...wide, partial: true }, discovery, wide]);
    expect(await mapper.namespacedResources()).toBeUndefined();
    expect((await mapper.namespacedResources())?.map((m) => m.plural)).toEqual(['pods', 'deployments']);
    expect((await mapper.namespacedResources())?.map((m) => m.plural)).toEqual([
      'pods',
      'deployments',
      'events',
      'roles',
    ]);
    expect(calls()).toBe(3);
  });

  it('leaves the mappings of its discovery for resolve', async () => {
    const { mapper, calls } = counting([wide]);
    await mapper.namespacedResources();
    expect((await mapper.resolve('rbac.authorization.k8s.io/v1', 'Role')).plural).toBe('roles');
    expect(calls()).toBe(1);
  });
});
