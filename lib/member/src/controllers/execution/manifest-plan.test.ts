import { describe, expect, it } from 'vitest';
import {
  adoptionRefusal,
  desiredObject,
  isDrift,
  manifestIdentity,
  mayDelete,
  owningWorkKey,
  releasedObject,
  type MemberObject,
} from './manifest-plan.ts';

const work = { namespace: 'karmada-es-member1', name: 'web' };
const manifest = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'prod',
    labels: { app: 'web', 'work.karmada.io/permanent-id': 'p' },
    annotations: { 'resourcetemplate.karmada.io/uid': 'u', note: 'keep' },
    resourceVersion: '12',
    uid: 'abc',
    managedFields: [{}],
    creationTimestamp: 'x',
    generation: 4,
  },
  spec: { replicas: 2 },
  status: { replicas: 2 },
};
const workAnnotations = { 'work.karmada.io/namespace': work.namespace, 'work.karmada.io/name': work.name };
const managed = (extra: Record<string, string> = {}): MemberObject => ({
  metadata: {
    labels: { 'karmada.io/managed': 'true' },
    annotations: { 'work.karmada.io/namespace': work.namespace, 'work.karmada.io/name': work.name, ...extra },
  },
});

describe('desiredObject', () => {
  it('drops status and server fields, marks the object managed and points it at its Work', () => {
    expect(desiredObject(manifest, work, true)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'prod',
        labels: { app: 'web', 'work.karmada.io/permanent-id': 'p', 'karmada.io/managed': 'true' },
        annotations: {
          'resourcetemplate.karmada.io/uid': 'u',
          note: 'keep',
          'work.karmada.io/namespace': 'karmada-es-member1',
          'work.karmada.io/name': 'web',
        },
      },
      spec: { replicas: 2 },
    });
  });

  it('defaults the namespace of namespaced kinds and drops it for cluster-scoped ones', () => {
    const noNs = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    expect(desiredObject(noNs, work, true).metadata?.namespace).toBe('default');
    expect(desiredObject(manifest, work, false).metadata).not.toHaveProperty('namespace');
  });
});

it('releasedObject strips every Karmada label and annotation and keeps the rest', () => {
  const released = releasedObject(desiredObject(manifest, work, true));
  expect(released.metadata?.labels).toEqual({ app: 'web' });
  expect(released.metadata?.annotations).toEqual({ note: 'keep' });
  expect(released.spec).toEqual({ replicas: 2 });
});

it('manifestIdentity reads strings only', () => {
  expect(manifestIdentity(manifest)).toEqual({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    namespace: 'prod',
    name: 'web',
  });
  expect(manifestIdentity({ apiVersion: 1, metadata: 'x' })).toEqual({
    apiVersion: '',
    kind: '',
    namespace: '',
    name: '',
  });
});

describe('adoptionRefusal', () => {
  const desired = desiredObject(manifest, work, true);
  it.each<[string, MemberObject | undefined, Record<string, string>, boolean]>([
    ['nothing there', undefined, {}, false],
    ['managed by Karmada', managed(), {}, false],
    ['unmanaged', { metadata: { labels: { app: 'web' } } }, {}, true],
    [
      'unmanaged with conflict-resolution abort',
      { metadata: {} },
      { 'work.karmada.io/conflict-resolution': 'abort' },
      true,
    ],
    [
      'unmanaged with conflict-resolution overwrite',
      { metadata: {} },
      { 'work.karmada.io/conflict-resolution': 'overwrite' },
      false,
    ],
  ])('%s → refused=%s', (_name, live, extra, refused) => {
    const d = {
      ...desired,
      metadata: { ...desired.metadata, annotations: { ...desired.metadata?.annotations, ...extra } },
    };
    expect(adoptionRefusal(live, d) !== undefined).toBe(refused);
  });

  it('says how to take the object over', () => {
    expect(adoptionRefusal({ metadata: {} }, desired)).toMatch(
      /not managed by Karmada.*conflict-resolution: overwrite/,
    );
  });
});

describe('mayDelete and owningWorkKey', () => {
  it.each<[string, MemberObject | undefined, boolean]>([
    ['absent', undefined, false],
    ['managed by this Work', managed(), true],
    ['managed by another Work', managed({ 'work.karmada.io/name': 'other' }), false],
    ['unmanaged but annotated', { metadata: { annotations: workAnnotations } }, false],
  ])('%s → may delete: %s', (_name, live, allowed) => {
    expect(mayDelete(live, work)).toBe(allowed);
  });

  it.each<[MemberObject, string | undefined]>([
    [managed(), 'karmada-es-member1/web'],
    [managed({ 'work.karmada.io/namespace': 'default' }), undefined],
    [{ metadata: { annotations: workAnnotations } }, undefined],
  ])('owningWorkKey(%j) = %s', (o, key) => {
    expect(owningWorkKey(o)).toBe(key);
  });
});

describe('isDrift', () => {
  const obj = (rv: string, spec: unknown, status: unknown = {}): MemberObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', resourceVersion: rv },
    spec,
    status,
  });
  it.each<
    [
      string,
      'ADDED' | 'MODIFIED' | 'DELETED',
      MemberObject,
      MemberObject | undefined,
      string | undefined,
      boolean,
    ]
  >([
    ['a deletion', 'DELETED', obj('5', {}), undefined, '5', true],
    [
      'before any apply by this process',
      'MODIFIED',
      obj('6', { replicas: 5 }),
      obj('5', { replicas: 2 }),
      undefined,
      false,
    ],
    ['our own write', 'MODIFIED', obj('6', { replicas: 2 }), obj('5', { replicas: 1 }), '6', false],
    [
      'a status-only change',
      'MODIFIED',
      obj('7', { replicas: 2 }, { ready: 2 }),
      obj('6', { replicas: 2 }, { ready: 1 }),
      '6',
      false,
    ],
    ['a hand edit of the spec', 'MODIFIED', obj('7', { replicas: 5 }), obj('6', { replicas: 2 }), '6', true],
    ['re-added with another version', 'ADDED', obj('9', {}), undefined, '6', true],
  ])('%s → %s', (...[, type, o, old, applied, drift]) => {
    expect(isDrift(type, o, old, applied)).toBe(drift);
  });
});
