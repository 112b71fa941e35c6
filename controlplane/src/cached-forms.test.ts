import { describe, expect, it } from 'vitest';
import {
  clusterKind,
  labels,
  resourceBindingKind,
  workConditionTypes,
  workKind,
  type ResourceBinding,
  type Work,
} from '@kf/api';
import { CacheIndex, type KubeObject } from '@kf/kube';
import { bindingIdsOfWork, worksOfBinding } from './bindings.ts';
import { StringPool, assertNotCompact, cachedFormFor, compactDigestOf, cachedCopy } from './cached-forms.ts';
import { namespaceOfWork, namespaceWork } from './workload/namespace-sync/plan.ts';
import {
  clusterOfWork,
  desiredWork,
  fencedWorks,
  orphanWorks,
  pendingDirectPurges,
  planWorkWrite,
} from './workload/binding/work-plan.ts';
import type { ResourceTemplate } from './workload/template.ts';

const KEY = 'default/web-deployment';
const managedFields = [
  { manager: 'karmada-failover-controlplane', operation: 'Update', fieldsV1: { 'f:spec': { '.': {} } } },
];
const template: ResourceTemplate = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', uid: 't-1', labels: { app: 'web' } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
  },
};
const binding = (spec: Partial<ResourceBinding['spec']> = {}): ResourceBinding => ({
  metadata: {
    name: 'web-deployment',
    namespace: 'default',
    labels: { [labels.resourceBindingPermanentId]: 'rb-1' },
  },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
    replicas: 3,
    clusters: [{ name: 'm1', replicas: 1 }],
    ...spec,
  },
});

/** A Work as the API server sends it: what the binding controller wrote, plus server fields. */
function served(w: Work, extra: { conditions?: NonNullable<Work['status']>['conditions'] } = {}): Work {
  return {
    ...w,
    metadata: {
      ...w.metadata,
      uid: 'w-1',
      resourceVersion: '17',
      creationTimestamp: '2026-11-28T00:00:00Z',
      managedFields,
    },
    status: {
      conditions: extra.conditions ?? [
        {
          type: workConditionTypes.applied,
          status: 'True',
          reason: 'AppliedSuccessful',
          message: '',
          lastTransitionTime: '2026-11-28T00:00:00Z',
        },
      ],
      manifestStatuses: [
        {
          identifier: {
            ordinal: 0,
            group: 'apps',
            version: 'v1',
            kind: 'Deployment',
            resource: '',
            name: 'web',
          },
          status: { readyReplicas: 1 },
          health: 'Healthy',
        },
      ],
    },
  } as Work;
}

const wantedOn = (cluster: string, b = binding()): Work =>
  desiredWork(KEY, b, template, { name: cluster, replicas: 1 });

/** Everything of a Work but its managed fields and its manifests' bodies. */
function outsideManifests(w: Work): unknown {
  return JSON.parse(
    JSON.stringify({
      ...w,
      metadata: without(w.metadata, 'managedFields'),
      spec: without(w.spec, 'workload'),
    }),
  );
}

function without(o: object, key: string): object {
  return Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));
}

/** A Work as the shared cache of Works keeps it. */
const compactWork = (w: Work): Work => cachedFormFor(workKind)(w) as unknown as Work;

describe('the cached form of a Work', () => {
  const full = served(wantedOn('m1'));
  const cached = compactWork(full);

  it('keeps every field but the managed fields and the manifests, which become identities', () => {
    expect(outsideManifests(cached)).toEqual(outsideManifests(full));
    expect(cached.metadata).not.toHaveProperty('managedFields');
    expect(cached.spec.workload?.manifests).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' } },
    ]);
    expect(compactDigestOf(cached.spec.workload)).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(compactDigestOf(full.spec.workload)).toBeUndefined();
  });

  it('is compacted once: the cached form of a cached Work is the same', () => {
    expect(compactWork(cached)).toEqual(cached);
    expect(compactDigestOf(compactWork(cached).spec.workload)).toBe(compactDigestOf(cached.spec.workload));
  });

  it('serialises without its digest and is refused for writing', () => {
    expect(JSON.stringify(cached)).not.toContain('Digest');
    expect(() => {
      assertNotCompact(cached);
    }).toThrow(/as cached .* cannot be written/);
    expect(() => {
      assertNotCompact(full);
    }).not.toThrow();
  });

  describe('gives every reader of cached Works what the whole Work gives', () => {
    const other = served(wantedOn('m2'));
    const fenced = served(wantedOn('m1'), {
      conditions: [
        {
          type: workConditionTypes.fenced,
          status: 'True',
          reason: 'FenceTimeout',
          message: '',
          lastTransitionTime: '2026-11-28T00:00:00Z',
        },
      ],
    });
    const directly = binding({
      clusters: [{ name: 'm1', replicas: 1 }],
      gracefulEvictionTasks: [
        { fromCluster: 'm2', purgeMode: 'Directly', reason: 'TaintUntolerated', producer: 'TaintManager' },
      ],
    });

    it.each([
      ['the same Work', wantedOn('m1'), full],
      ['a Work of other replicas', desiredWork(KEY, binding(), template, { name: 'm1', replicas: 2 }), full],
      [
        'a Work of another image',
        desiredWork(
          KEY,
          binding(),
          {
            ...template,
            spec: { ...template.spec, template: { spec: { containers: [{ name: 'web', image: 'b' }] } } },
          },
          { name: 'm1', replicas: 1 },
        ),
        full,
      ],
      [
        'a Work whose dispatching is suspended',
        { ...wantedOn('m1'), spec: { ...wantedOn('m1').spec, suspendDispatching: true } },
        full,
      ],
      [
        'a Work missing its finalizer',
        wantedOn('m1'),
        { ...full, metadata: { ...full.metadata, finalizers: [] } },
      ],
      [
        'a Work with another label',
        { ...wantedOn('m1'), metadata: { ...wantedOn('m1').metadata, labels: { x: 'y' } } },
        full,
      ],
    ] as const)('planWorkWrite against %s', (_name, wanted, existing) => {
      const fromWhole = planWorkWrite(wanted, existing);
      const fromCached = planWorkWrite(wanted, compactWork(existing));
      expect(fromCached?.kind).toBe(fromWhole?.kind);
      if (fromWhole?.kind === 'Patch' && fromCached?.kind === 'Patch')
        expect(fromCached.patch).toEqual(fromWhole.patch);
      if (fromCached !== undefined && fromCached.kind !== 'WaitForDeletion')
        expect(() => {
          assertNotCompact(fromCached.work);
        }).not.toThrow();
    });

    it('a Work as the API server sends it back, every key sorted, is the one the control plane built', () => {
      const wanted = wantedOn('m1');
      const manifest = wanted.spec.workload?.manifests?.[0] ?? {};
      // The control plane builds its manifests with keys out of order; the server writes them sorted.
      expect(JSON.stringify(sortedDeep(manifest))).not.toBe(JSON.stringify(manifest));
      const sent = sortedDeep(served(wanted)) as Work;
      expect(planWorkWrite(wanted, compactWork(sent))).toBeUndefined();
      // An empty object where the wanted manifest has none is the same under omitempty.
      const withEmpty = sortedDeep(
        served({
          ...wanted,
          spec: { ...wanted.spec, workload: { manifests: [{ ...manifest, status: {} }] } },
        }),
      ) as Work;
      expect(planWorkWrite(wanted, compactWork(withEmpty))).toBeUndefined();
      const changed = sortedDeep(
        served({
          ...wanted,
          spec: { ...wanted.spec, workload: { manifests: [{ ...manifest, kind: 'StatefulSet' }] } },
        }),
      ) as Work;
      expect(planWorkWrite(wanted, compactWork(changed))?.kind).toBe('Patch');
    });

    it('a Work whose manifests are gone, or empty, is written in both forms', () => {
      const none: Work = { ...wantedOn('m1'), spec: { workload: { manifests: [] } } };
      expect(planWorkWrite(none, compactWork(full))?.kind).toBe('Patch');
      expect(planWorkWrite(none, full)?.kind).toBe('Patch');
      expect(planWorkWrite(wantedOn('m1'), compactWork(served(none)))?.kind).toBe('Patch');
      expect(planWorkWrite(none, compactWork(served(none)))).toBeUndefined();
    });

    it("the binding's Works, orphans, fenced Works and pending purges", () => {
      const whole = [full, other, fenced];
      const cachedAll = whole.map(compactWork);
      const indexOf = (works: readonly Work[]): CacheIndex<Work> => {
        const index = new CacheIndex(bindingIdsOfWork);
        index.addAll(
          new Map(works.map((w) => [`${w.metadata.namespace ?? ''}/${w.metadata.name ?? ''}`, w])),
        );
        return index;
      };
      expect(worksOfBinding(indexOf(cachedAll), directly, KEY).map(clusterOfWork)).toEqual(
        worksOfBinding(indexOf(whole), directly, KEY).map(clusterOfWork),
      );
      expect(orphanWorks(directly, cachedAll).map(clusterOfWork)).toEqual(
        orphanWorks(directly, whole).map(clusterOfWork),
      );
      expect(fencedWorks(directly, cachedAll).map(clusterOfWork)).toEqual(
        fencedWorks(directly, whole).map(clusterOfWork),
      );
      expect(pendingDirectPurges(directly, cachedAll)).toEqual(pendingDirectPurges(directly, whole));
      expect(pendingDirectPurges(directly, cachedAll)).toEqual(['m2']);
    });

    it('the namespace a namespace Work carries', () => {
      const ns = served(namespaceWork({ metadata: { name: 'team-a', uid: 'ns-1' } }, 'm1'));
      expect(namespaceOfWork(compactWork(ns))).toBe('team-a');
      expect(namespaceOfWork(compactWork(full))).toBe(namespaceOfWork(full));
    });
  });
});

describe('the cached form of every other kind', () => {
  it.each([
    ['a binding', resourceBindingKind, { ...binding(), metadata: { ...binding().metadata, managedFields } }],
    [
      'a Cluster',
      clusterKind,
      {
        metadata: { name: 'm1', managedFields, annotations: { a: 'b' } },
        spec: {},
        status: { conditions: [] },
      },
    ],
    [
      'a template applied with kubectl',
      { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true },
      {
        ...template,
        metadata: {
          ...template.metadata,
          managedFields,
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"Deployment"}' },
        },
      },
    ],
  ] as const)('%s keeps all but its managed fields', (_name, kind, object) => {
    const cached = cachedFormFor(kind)(object);
    expect(cached).toEqual({ ...object, metadata: without(object.metadata, 'managedFields') });
  });

  it('an object without managed fields is kept whole', () => {
    const o = binding() as unknown as KubeObject;
    expect(cachedFormFor(resourceBindingKind)(o)).toEqual(o);
  });

  it("a cached Work keeps its manifests' digest through the sharing of strings", () => {
    const w = served(wantedOn('m1'));
    const cached = cachedFormFor(workKind)(w) as unknown as Work;
    expect(compactDigestOf(cached.spec.workload)).toBe(compactDigestOf(compactWork(w).spec.workload));
    expect(() => {
      assertNotCompact(cached);
    }).toThrow(/cannot be written/);
  });
});

describe('StringPool and cachedCopy', () => {
  it('gives back the first copy of a short string, and long strings as they are', () => {
    const pool = new StringPool();
    const first = ['Deploy', 'ment'].join('');
    expect(pool.share(first)).toBe(first);
    expect(pool.share(['Deplo', 'yment'].join(''))).toBe('Deployment');
    expect(pool.size).toBe(1);
    pool.share('x'.repeat(65));
    expect(pool.size).toBe(1);
  });

  it("shares the long values of fields that repeat: messages and a policy's applied placement", () => {
    const pool = new StringPool();
    const message = 'Failed to apply all works, see status.aggregatedStatus for details'; // 66 characters
    const placement = JSON.stringify({
      clusterAffinity: { clusterNames: ['member001', 'member002'] },
    }).repeat(2);
    const binding = (uid: string) => ({
      metadata: {
        name: `web-${uid}`,
        uid,
        annotations: {
          'policy.karmada.io/applied-placement': [placement].join(''),
          note: [placement].join(''),
        },
      },
      status: { conditions: [{ type: 'FullyApplied', message: [message].join('') }] },
    });
    cachedCopy(binding('u-1'), pool);
    // web-u-1, FullyApplied, the message and the placement; not the same placement under `note`
    expect(pool.size).toBe(4);
    expect(cachedCopy(binding('u-2'), pool)).toEqual(binding('u-2'));
    expect(pool.size).toBe(5); // and web-u-2
    pool.share('m'.repeat(4097), true); // past 4,096 characters: not pooled
    expect(pool.size).toBe(5);
  });

  it('starts afresh beyond its bound of characters', () => {
    const pool = new StringPool(100, 10);
    pool.share('abcd');
    pool.share('efgh');
    expect(pool.size).toBe(2);
    pool.share('ijkl');
    expect(pool.size).toBe(1);
  });

  it('starts afresh beyond its bound', () => {
    const pool = new StringPool(2);
    pool.share('a');
    pool.share('b');
    pool.share('a');
    expect(pool.size).toBe(2);
    pool.share('c');
    expect(pool.size).toBe(1);
  });

  it('keeps a JSON value without managed fields whole and in place, sharing neither uids nor resourceVersions', () => {
    const pool = new StringPool();
    const value = {
      apiVersion: 'apps/v1',
      metadata: { name: 'web', uid: 'u-1', resourceVersion: '7', labels: { app: 'web' } },
      spec: { clusters: [{ name: 'm1', replicas: 1 }], paused: false, selector: null },
    };
    const expected = structuredClone(value);
    const copy = cachedCopy(value, pool);
    expect(copy).toEqual(expected);
    // Nothing to leave out: JSON.parse's own object is kept, not copied.
    expect(copy).toBe(value);
    // apps/v1, web (the name and the label's value) and m1; not u-1 nor 7
    expect(pool.size).toBe(3);
  });

  it('leaves out the managed fields in a copy, and nothing else of the metadata', () => {
    const pool = new StringPool();
    const managedFields = [{ manager: 'karmada-scheduler', operation: 'Update' }];
    const value = {
      kind: 'ResourceBinding',
      metadata: { name: 'web', managedFields, annotations: { a: 'b' } },
      // Only the object's own managed fields go: a nested field of that name is data.
      spec: { managedFields: 'kept' },
    };
    const copy = cachedCopy(value, pool);
    expect(copy).toEqual({
      kind: 'ResourceBinding',
      metadata: { name: 'web', annotations: { a: 'b' } },
      spec: { managedFields: 'kept' },
    });
    expect(value.metadata.managedFields).toBe(managedFields);
    expect(pool.share(['Resource', 'Binding'].join(''))).toBe(copy.kind);
  });
});

/** `v` with every object's keys in sort order, empty values kept: JSON as Go writes a map. */
function sortedDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedDeep);
  if (v === null || typeof v !== 'object') return v;
  const record = v as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((k) => [k, sortedDeep(record[k])]),
  );
}
