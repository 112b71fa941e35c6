import { describe, expect, it } from 'vitest';
import {
  discoveryPathOf,
  dueGroupVersions,
  isDiscoverableApiVersion,
  kindsOfResourceList,
  nextRoundInMs,
  splitApiVersion,
} from './resource-list.ts';

describe('splitApiVersion / discoveryPathOf', () => {
  it.each([
    ['v1', '', 'v1', '/api/v1'],
    ['apps/v1', 'apps', 'v1', '/apis/apps/v1'],
    ['example.com/v1alpha1', 'example.com', 'v1alpha1', '/apis/example.com/v1alpha1'],
  ] as const)('%s → group %j version %s at %s', (apiVersion, group, version, path) => {
    expect(splitApiVersion(apiVersion)).toEqual({ group, version });
    expect(discoveryPathOf(apiVersion)).toBe(path);
  });

  it.each([
    ['v1', true],
    ['example.com/v1', true],
    ['stable.example-corp.io/v2beta1', true],
    ['', false],
    ['example.com/', false],
    ['/v1', false],
    ['a/b/c', false],
    ['../../api/v1', false],
    ['Example.com/v1', false],
  ] as const)('%j discoverable: %s', (apiVersion, ok) => {
    expect(isDiscoverableApiVersion(apiVersion)).toBe(ok);
  });
});

describe('kindsOfResourceList', () => {
  const body = {
    kind: 'APIResourceList',
    groupVersion: 'example.com/v1',
    resources: [
      { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['get'] },
      { name: 'widgets/status', namespaced: true, kind: 'Widget', verbs: ['get'] },
      { name: 'gadgets', namespaced: false, kind: 'Gadget', verbs: ['get'] },
      { name: 'gadgetaliases', namespaced: true, kind: 'Gadget', verbs: ['get'] },
      { name: 'broken', namespaced: true },
      'not an object',
    ],
  };

  it('maps each kind to its plural and scope, skipping subresources and malformed entries', () => {
    const kinds = kindsOfResourceList('example.com/v1', body);
    expect([...kinds.keys()].sort()).toEqual(['Gadget', 'Widget']);
    expect(kinds.get('Widget')).toEqual({
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
      plural: 'widgets',
      namespaced: true,
    });
  });

  it('keeps the first resource listed for a kind served twice, cluster-scoped when namespaced is not true', () => {
    expect(kindsOfResourceList('example.com/v1', body).get('Gadget')).toMatchObject({
      plural: 'gadgets',
      namespaced: false,
    });
  });

  it.each([undefined, null, 'x', {}, { resources: 'x' }])('is empty for %j', (b) => {
    expect(kindsOfResourceList('example.com/v1', b).size).toBe(0);
  });

  it('reads the core group', () => {
    const core = { resources: [{ name: 'configmaps', namespaced: true, kind: 'ConfigMap' }] };
    expect(kindsOfResourceList('v1', core).get('ConfigMap')).toMatchObject({ group: '', version: 'v1' });
  });
});

describe('dueGroupVersions / nextRoundInMs', () => {
  const fetched = new Map([
    ['a.io/v1', 1_000],
    ['b.io/v1', 4_000],
  ]);

  it.each([
    ['never asked is due at once', ['c.io/v1'], 4_500, ['c.io/v1']],
    ['asked less than minRefreshMs ago is not due', ['a.io/v1', 'b.io/v1'], 5_999, []],
    ['asked exactly minRefreshMs ago is due', ['a.io/v1', 'b.io/v1'], 6_000, ['a.io/v1']],
    ['each group version once, sorted', ['c.io/v1', 'a.io/v1', 'c.io/v1'], 20_000, ['a.io/v1', 'c.io/v1']],
  ] as const)('%s', (_name, wanted, nowMs, due) => {
    expect(dueGroupVersions(wanted, fetched, nowMs, 5_000)).toEqual(due);
  });

  it.each([
    ['nothing wanted: no timer', [], 4_500, undefined],
    ['a never-asked group version: now', ['c.io/v1', 'a.io/v1'], 4_500, 0],
    ['the earliest one due', ['a.io/v1', 'b.io/v1'], 4_500, 1_500],
    ['overdue: now', ['a.io/v1'], 60_000, 0],
  ] as const)('%s', (_name, wanted, nowMs, wait) => {
    expect(nextRoundInMs(wanted, fetched, nowMs, 5_000)).toBe(wait);
  });
});
