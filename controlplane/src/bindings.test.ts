import { describe, expect, it } from 'vitest';
import { annotations, labels, type ResourceBinding, type Work } from '@kf/api';
import { CacheIndex } from '@kf/kube';
import {
  bindingIdLabel,
  bindingIdsOfWork,
  bindingKeyOfWork,
  isClusterBindingKey,
  worksOfBinding,
} from './bindings.ts';

const work = (
  name: string,
  meta: { labels?: Record<string, string>; annotations?: Record<string, string> },
): Work => ({
  metadata: { name, namespace: 'karmada-es-m1', ...meta },
  spec: {},
});

describe('binding keys', () => {
  it.each([
    ['default/web-deployment', false, labels.resourceBindingPermanentId],
    ['admin-clusterrole', true, labels.clusterResourceBindingPermanentId],
  ] as const)('%s is cluster-scoped: %s', (key, cluster, label) => {
    expect(isClusterBindingKey(key)).toBe(cluster);
    expect(bindingIdLabel(key)).toBe(label);
  });

  it.each([
    [
      'a ResourceBinding',
      {
        [annotations.resourceBindingNamespace]: 'default',
        [annotations.resourceBindingName]: 'web-deployment',
      },
      'default/web-deployment',
    ],
    [
      'a ClusterResourceBinding',
      { [annotations.clusterResourceBindingName]: 'admin-clusterrole' },
      'admin-clusterrole',
    ],
    [
      'nothing without both RB annotations',
      { [annotations.resourceBindingName]: 'web-deployment' },
      undefined,
    ],
  ] as const)('a Work annotated for %s maps to its key', (_n, a, key) => {
    expect(bindingKeyOfWork(work('w', { annotations: a }))).toBe(key);
  });
});

describe('worksOfBinding', () => {
  const binding: ResourceBinding = {
    metadata: {
      name: 'web-deployment',
      namespace: 'default',
      labels: { [labels.resourceBindingPermanentId]: 'id-1' },
    },
    spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } },
  };
  const works = [
    work('mine', { labels: { [labels.resourceBindingPermanentId]: 'id-1' } }),
    work('other', { labels: { [labels.resourceBindingPermanentId]: 'id-2' } }),
    work('unlabelled', {}),
  ];

  const index = new CacheIndex(bindingIdsOfWork);
  index.addAll(new Map(works.map((w) => [w.metadata.name ?? '', w])));

  it('finds the Works carrying the binding permanent id', () => {
    expect(worksOfBinding(index, binding, 'default/web-deployment').map((w) => w.metadata.name)).toEqual([
      'mine',
    ]);
  });

  it('indexes a Work under both kinds of binding id it carries', () => {
    const both = work('both', {
      labels: { [labels.resourceBindingPermanentId]: 'a', [labels.clusterResourceBindingPermanentId]: 'b' },
    });
    expect(bindingIdsOfWork(both)).toEqual([
      `${labels.resourceBindingPermanentId}=a`,
      `${labels.clusterResourceBindingPermanentId}=b`,
    ]);
  });

  it('finds none for a binding without a permanent id', () => {
    const bare = { ...binding, metadata: { name: 'web-deployment', namespace: 'default' } };
    expect(worksOfBinding(index, bare, 'default/web-deployment')).toEqual([]);
  });
});
