import type { Work } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { workNameFor } from '../../names.ts';
import {
  SKIP_AUTO_PROPAGATION_LABEL,
  namespaceManifest,
  namespaceOfWork,
  namespaceWork,
  shouldPropagate,
  type NamespaceObject,
} from './plan.ts';

function named(name: string, labels?: Record<string, string>): NamespaceObject {
  return { metadata: { name, ...(labels === undefined ? {} : { labels }) } };
}

describe('shouldPropagate', () => {
  it.each([
    '',
    'default',
    'karmada-system',
    'karmada-cluster',
    'karmada-es-member1',
    'kube-system',
    'kube-public',
    'kube-anything',
  ])('keeps %j to the control plane', (name) => {
    expect(shouldPropagate(named(name))).toBe(false);
  });

  it('keeps a namespace without metadata to the control plane', () => {
    expect(shouldPropagate({})).toBe(false);
  });

  it.each(['bench', 'team-a', 'kubex'])('propagates %j', (name) => {
    expect(shouldPropagate(named(name))).toBe(true);
  });

  it.each(['true', 'TRUE', 'True'])('honours the skip label set to %j', (value) => {
    expect(shouldPropagate(named('bench', { [SKIP_AUTO_PROPAGATION_LABEL]: value }))).toBe(false);
  });

  it.each(['false', 'yes', ''])('propagates when the skip label is %j', (value) => {
    expect(shouldPropagate(named('bench', { [SKIP_AUTO_PROPAGATION_LABEL]: value }))).toBe(true);
  });

  it('propagates when only other labels are set', () => {
    expect(shouldPropagate(named('bench', { team: 'a' }))).toBe(true);
  });
});

/** A namespace as read from the API server, carrying what the server sets. */
const served = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: {
    name: 'bench',
    uid: 'ns-uid',
    resourceVersion: '42',
    creationTimestamp: '2024-01-01T00:00:00Z',
    deletionTimestamp: '2024-01-02T00:00:00Z',
    managedFields: [{ manager: 'kubectl' }],
    labels: { team: 'a' },
    annotations: { note: 'keep' },
  },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
} as NamespaceObject;

describe('namespaceManifest', () => {
  it('keeps name, labels, annotations and spec, and nothing the server set', () => {
    expect(namespaceManifest(served)).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'bench', labels: { team: 'a' }, annotations: { note: 'keep' } },
      spec: { finalizers: ['kubernetes'] },
    });
  });

  it('omits labels, annotations and spec when absent', () => {
    const m = namespaceManifest({ metadata: { name: 'bench', uid: 'u' } });
    expect(m).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
    expect(Object.keys(m)).not.toContain('spec');
    expect(Object.keys(m.metadata as object)).toEqual(['name']);
  });

  it('copies labels, annotations and spec rather than sharing them', () => {
    const m = namespaceManifest(served) as {
      metadata: { labels: unknown; annotations: unknown };
      spec: unknown;
    };
    expect(m.metadata.labels).not.toBe(served.metadata?.labels);
    expect(m.metadata.annotations).not.toBe(served.metadata?.annotations);
    expect(m.spec).not.toBe(served.spec);
  });
});

describe('namespaceWork', () => {
  it('carries the namespace to the cluster, owned by the namespace', () => {
    const w = namespaceWork(served, 'member1');
    expect(w.apiVersion).toBe('work.karmada.io/v1alpha1');
    expect(w.kind).toBe('Work');
    expect(w.metadata.name).toBe(workNameFor('Namespace', 'bench', undefined));
    expect(w.metadata.namespace).toBe('karmada-es-member1');
    expect(w.metadata.finalizers).toEqual(['karmada.io/execution-controller']);
    expect(w.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Namespace', name: 'bench', uid: 'ns-uid', controller: true },
    ]);
    expect(w.spec.workload?.manifests).toEqual([namespaceManifest(served)]);
  });

  it('names the Work the same for every cluster', () => {
    expect(namespaceWork(served, 'member2').metadata.name).toBe(
      namespaceWork(served, 'member1').metadata.name,
    );
    expect(namespaceWork(served, 'member2').metadata.namespace).toBe('karmada-es-member2');
  });
});

describe('namespaceOfWork', () => {
  const work = namespaceWork(served, 'member1');

  function withManifests(manifests: readonly Record<string, unknown>[]): Work {
    return { ...work, spec: { workload: { manifests } } };
  }

  it('finds the namespace a namespace Work carries', () => {
    expect(namespaceOfWork(work)).toBe('bench');
  });

  it('ignores a Work with two manifests', () => {
    const m = namespaceManifest(served);
    expect(namespaceOfWork(withManifests([m, m]))).toBeUndefined();
  });

  it('ignores a Work whose manifest is not a Namespace', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bench', namespace: 'bench' } };
    expect(namespaceOfWork(withManifests([cm]))).toBeUndefined();
  });

  it('ignores a Work without manifests', () => {
    expect(namespaceOfWork(withManifests([]))).toBeUndefined();
    expect(namespaceOfWork({ ...work, spec: {} })).toBeUndefined();
  });

  it('ignores a Namespace manifest without a controlling Namespace owner', () => {
    const owner = work.metadata.ownerReferences![0]!;
    const noOwners: Work = { ...work, metadata: { ...work.metadata, ownerReferences: [] } };
    const unset: Work = { ...work, metadata: { name: work.metadata.name ?? '' } };
    const notController: Work = {
      ...work,
      metadata: { ...work.metadata, ownerReferences: [{ ...owner, controller: false }] },
    };
    const otherKind: Work = {
      ...work,
      metadata: {
        ...work.metadata,
        ownerReferences: [{ ...owner, apiVersion: 'apps/v1', kind: 'Deployment' }],
      },
    };
    for (const w of [noOwners, unset, notController, otherKind]) expect(namespaceOfWork(w)).toBeUndefined();
  });
});
