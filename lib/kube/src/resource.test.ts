import { describe, expect, it } from 'vitest';
import {
  apiVersionOf,
  collectionPath,
  joinKey,
  keyOf,
  splitKey,
  type ResourceDescriptor,
} from './resource.ts';

const clusters: ResourceDescriptor = {
  group: 'cluster.karmada.io',
  version: 'v1alpha1',
  plural: 'clusters',
  namespaced: false,
};
const works: ResourceDescriptor = {
  group: 'work.karmada.io',
  version: 'v1alpha1',
  plural: 'works',
  namespaced: true,
};
const events: ResourceDescriptor = { group: '', version: 'v1', plural: 'events', namespaced: true };

describe('paths', () => {
  it.each<[string, ResourceDescriptor, string | undefined, string]>([
    ['a cluster-scoped custom resource', clusters, undefined, '/apis/cluster.karmada.io/v1alpha1/clusters'],
    ['ignoring a namespace for cluster-scoped', clusters, 'ns', '/apis/cluster.karmada.io/v1alpha1/clusters'],
    ['a namespaced resource in all namespaces', works, undefined, '/apis/work.karmada.io/v1alpha1/works'],
    [
      'a namespaced resource in one namespace',
      works,
      'karmada-es-m1',
      '/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-m1/works',
    ],
    ['the core group', events, 'default', '/api/v1/namespaces/default/events'],
  ])('builds the collection path of %s', (_name, r, ns, expected) => {
    expect(collectionPath(r, ns)).toBe(expected);
  });

  it('names apiVersion with and without a group', () => {
    expect(apiVersionOf(works)).toBe('work.karmada.io/v1alpha1');
    expect(apiVersionOf(events)).toBe('v1');
  });
});

describe('keys', () => {
  it.each<[string, { name: string; namespace?: string }]>([
    ['m1', { name: 'm1' }],
    ['ns/w', { namespace: 'ns', name: 'w' }],
  ])('splits %s', (key, ref) => {
    expect(splitKey(key)).toEqual(ref);
    expect(joinKey(ref.namespace, ref.name)).toBe(key);
  });

  it('keys objects by namespace/name or name', () => {
    expect(keyOf({ metadata: { name: 'w', namespace: 'ns' } })).toBe('ns/w');
    expect(keyOf({ metadata: { name: 'm1' } })).toBe('m1');
    expect(keyOf({ metadata: { name: 'm1', namespace: '' } })).toBe('m1');
  });
});
