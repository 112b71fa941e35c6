import { describe, expect, it } from 'vitest';
import { annotations, labels, type GracefulEvictionTask, type ResourceBinding, type Work } from '@kf/api';
import type { ResourceTemplate } from '../template.ts';
import {
  desiredWork,
  expectedClusters,
  fenceSecondsOf,
  fencedWorks,
  orphanWorks,
  pendingDirectPurges,
  planWorkWrite,
  targetClusters,
  withWorkloadLabels,
} from './work-plan.ts';

const KEY = 'default/web-deployment';
const template: ResourceTemplate = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: 't-1',
    generation: 7,
    resourceVersion: '99',
    labels: { app: 'web' },
    annotations: { 'deployment.kubernetes.io/revision': '3', team: 'a' },
    ownerReferences: [],
  },
  spec: { replicas: 3, selector: { matchLabels: { app: 'web' } } },
  status: { replicas: 3 },
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
    ...spec,
  },
});
const work = (cluster: string, deleting = false): Work => ({
  metadata: {
    name: 'web-x',
    namespace: `karmada-es-${cluster}`,
    ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: {},
});
const task = (fromCluster: string, purgeMode: NonNullable<GracefulEvictionTask['purgeMode']>) => ({
  fromCluster,
  purgeMode,
  reason: 'TaintUntolerated',
  producer: 'TaintManager',
});

describe('expected clusters and orphans', () => {
  const b = binding({
    clusters: [{ name: 'm2', replicas: 3 }],
    requiredBy: [{ name: 'parent', clusters: [{ name: 'm4' }] }],
    gracefulEvictionTasks: [task('m1', 'Gracefully'), task('m3', 'Directly')],
  });

  it('expects the placement, dependants and non-Directly evictions', () => {
    expect([...expectedClusters(b)].sort()).toEqual(['m1', 'm2', 'm4']);
  });

  it('orphans Works elsewhere, except those already deleting', () => {
    const works = [work('m1'), work('m2'), work('m3'), work('m5'), work('m6', true)];
    expect(orphanWorks(b, works).map((w) => w.metadata.namespace)).toEqual([
      'karmada-es-m3',
      'karmada-es-m5',
    ]);
  });

  it.each([
    ['a Work in the Directly-purged cluster blocks', [work('m3')], ['m3']],
    ['even while it is deleting', [work('m3', true)], ['m3']],
    ['nothing blocks once it is gone', [work('m2')], []],
  ] as const)('%s', (_n, works, expected) => {
    expect(pendingDirectPurges(b, works)).toEqual(expected);
  });

  it('targets the placement, then dependants not yet in it', () => {
    expect(targetClusters(b)).toEqual([{ name: 'm2', replicas: 3 }, { name: 'm4' }]);
  });
});

describe('deprecated purge mode names', () => {
  const b = binding({
    clusters: [{ name: 'm2', replicas: 3 }],
    gracefulEvictionTasks: [task('m1', 'Graciously'), task('m3', 'Immediately')],
  });

  it('keeps the Work of a Graciously eviction, like Gracefully, and not of an Immediately one', () => {
    expect([...expectedClusters(b)].sort()).toEqual(['m1', 'm2']);
    expect(orphanWorks(b, [work('m1'), work('m2'), work('m3')]).map((w) => w.metadata.namespace)).toEqual([
      'karmada-es-m3',
    ]);
  });

  it('holds the new placement back until the Work of an Immediately eviction is gone, like Directly', () => {
    expect(pendingDirectPurges(b, [work('m1'), work('m3', true)])).toEqual(['m3']);
    expect(pendingDirectPurges(b, [work('m1'), work('m2')])).toEqual([]);
  });
});

describe('desiredWork', () => {
  const w = desiredWork(KEY, binding({ conflictResolution: 'Overwrite' }), template, {
    name: 'm1',
    replicas: 2,
  });

  it('names the Work after the template in the cluster execution namespace', () => {
    expect(w.metadata).toMatchObject({
      name: 'web-7b7cc5b9ff',
      namespace: 'karmada-es-m1',
      labels: { [labels.resourceBindingPermanentId]: 'rb-1' },
      annotations: {
        [annotations.resourceBindingNamespace]: 'default',
        [annotations.resourceBindingName]: 'web-deployment',
        [annotations.conflictResolution]: 'overwrite',
      },
      finalizers: ['karmada.io/execution-controller'],
    });
    expect(w.spec.preserveResourcesOnDeletion).toBe(false);
  });

  it('carries the template pruned, with the cluster replicas and tracing metadata', () => {
    expect(w.spec.workload?.manifests).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name: 'web',
          namespace: 'default',
          labels: { app: 'web', [labels.resourceBindingPermanentId]: 'rb-1', [labels.managed]: 'true' },
          annotations: {
            team: 'a',
            [annotations.resourceBindingNamespace]: 'default',
            [annotations.resourceBindingName]: 'web-deployment',
            [annotations.resourceTemplateGeneration]: '7',
            [annotations.resourceTemplateUid]: 't-1',
            [annotations.workName]: 'web-7b7cc5b9ff',
            [annotations.workNamespace]: 'karmada-es-m1',
            [annotations.conflictResolution]: 'overwrite',
          },
        },
        spec: { replicas: 2, selector: { matchLabels: { app: 'web' } } },
      },
    ]);
  });

  it('suspends dispatching on the named clusters', () => {
    const b = binding({ suspension: { dispatchingOnClusters: { clusterNames: ['m1'] } } });
    expect(desiredWork(KEY, b, template, { name: 'm1', replicas: 3 }).spec.suspendDispatching).toBe(true);
    expect(
      desiredWork(KEY, b, template, { name: 'm2', replicas: 3 }).spec.suspendDispatching,
    ).toBeUndefined();
  });
});

describe('planWorkWrite', () => {
  const wanted = desiredWork(KEY, binding(), template, { name: 'm1', replicas: 1 });

  it('creates a missing Work', () => {
    expect(planWorkWrite(wanted, undefined)).toEqual({ kind: 'Create', work: wanted });
  });

  it('leaves an identical Work alone, whatever else it carries', () => {
    const existing: Work = {
      ...wanted,
      metadata: {
        ...wanted.metadata,
        resourceVersion: '5',
        labels: { ...wanted.metadata.labels, extra: 'x' },
      },
      status: { conditions: [] },
    };
    expect(planWorkWrite(wanted, existing)).toBeUndefined();
  });

  it('updates the existing Work in place when the content differs', () => {
    const existing: Work = {
      ...wanted,
      metadata: { ...wanted.metadata, resourceVersion: '5' },
      spec: { workload: { manifests: [] } },
    };
    const plan = planWorkWrite(wanted, existing);
    // A merge patch without resourceVersion: a status write by the agent cannot make it conflict.
    expect(plan).toEqual({
      kind: 'Patch',
      patch: { spec: wanted.spec },
      work: { ...existing, spec: wanted.spec },
    });
  });

  it('patches only the labels and annotations it owns, and removes spec fields it no longer wants', () => {
    const existing: Work = {
      ...wanted,
      metadata: {
        ...wanted.metadata,
        resourceVersion: '5',
        labels: { ...wanted.metadata.labels, [Object.keys(wanted.metadata.labels ?? {})[0] ?? 'x']: 'stale' },
      },
      // Dispatching was suspended; it no longer is, so the field goes.
      spec: { ...wanted.spec, suspendDispatching: true },
    };
    const plan = planWorkWrite(wanted, existing);
    expect(plan?.kind).toBe('Patch');
    expect(plan?.kind === 'Patch' && plan.patch).toEqual({
      metadata: { labels: wanted.metadata.labels },
      spec: { ...wanted.spec, suspendDispatching: null },
    });
    expect(JSON.stringify(plan?.kind === 'Patch' ? plan.patch : {})).not.toContain('resourceVersion');
  });

  it('updates the whole Work, with its resourceVersion, when a finalizer is missing', () => {
    const existing: Work = {
      ...wanted,
      metadata: { ...wanted.metadata, resourceVersion: '5', finalizers: [] },
    };
    const plan = planWorkWrite(wanted, existing);
    expect(plan).toMatchObject({ kind: 'Update', work: { metadata: { resourceVersion: '5' } } });
  });

  it('waits for a deleting Work', () => {
    const existing: Work = {
      ...wanted,
      metadata: { ...wanted.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
    };
    expect(planWorkWrite(wanted, existing)?.kind).toBe('WaitForDeletion');
  });
});

describe('the fence timeout on Works', () => {
  const fenced = (
    value: string | undefined,
    failover: ResourceBinding['spec']['failover'],
  ): ResourceBinding => {
    const b = binding({ ...(failover === undefined ? {} : { failover }) });
    return value === undefined
      ? b
      : { ...b, metadata: { ...b.metadata, annotations: { [annotations.fenceAfterSeconds]: value } } };
  };
  const directly = { cluster: { purgeMode: 'Directly' as const } };

  it.each([
    ['cluster failover purging Directly', '30', directly, 30],
    [
      'application failover purging Directly',
      '30',
      { application: { decisionConditions: {}, purgeMode: 'Directly' as const } },
      30,
    ],
    ['the deprecated name Immediately', '30', { cluster: { purgeMode: 'Immediately' as const } }, 30],
    [
      'Gracefully: nothing waits for the old copies, no fence',
      '30',
      { cluster: { purgeMode: 'Gracefully' as const } },
      undefined,
    ],
    ['no failover at all', '30', undefined, undefined],
    ['no annotation', undefined, directly, undefined],
    ['an invalid value', '3', directly, undefined],
  ])('%s', (_, value, failover, seconds) => {
    const b = fenced(value, failover);
    expect(fenceSecondsOf(b)).toBe(seconds);
    const w = desiredWork(KEY, b, template, { name: 'm1', replicas: 1 });
    expect(w.metadata.annotations?.[annotations.fenceAfterSeconds]).toBe(
      seconds === undefined ? undefined : String(seconds),
    );
  });

  it('removes the fence from an existing Work once the policy drops it, leaving other annotations', () => {
    const before = desiredWork(KEY, fenced('30', directly), template, { name: 'm1', replicas: 1 });
    const existing: Work = {
      ...before,
      metadata: { ...before.metadata, annotations: { ...before.metadata.annotations, team: 'a' } },
    };
    const wanted = desiredWork(KEY, fenced(undefined, directly), template, { name: 'm1', replicas: 1 });
    const plan = planWorkWrite(wanted, existing);
    expect(plan?.kind === 'Patch' && plan.patch).toEqual({
      metadata: { annotations: { ...wanted.metadata.annotations, [annotations.fenceAfterSeconds]: null } },
    });
    expect(plan?.work.metadata.annotations).toEqual({ ...wanted.metadata.annotations, team: 'a' });
  });

  it('adds and changes the fence with a patch', () => {
    const existing = desiredWork(KEY, fenced('30', directly), template, { name: 'm1', replicas: 1 });
    const wanted = desiredWork(KEY, fenced('60', directly), template, { name: 'm1', replicas: 1 });
    expect(planWorkWrite(wanted, existing)).toMatchObject({
      kind: 'Patch',
      patch: { metadata: { annotations: { [annotations.fenceAfterSeconds]: '60' } } },
    });
  });
});

describe('fencedWorks', () => {
  const fenced = (cluster: string, status: 'True' | 'False', deleting = false): Work => ({
    ...work(cluster, deleting),
    status: {
      conditions: [{ type: 'Fenced', status, reason: 'FenceTimeout', message: '', lastTransitionTime: '' }],
    },
  });
  const b = binding({
    clusters: [{ name: 'm1', replicas: 3 }],
    gracefulEvictionTasks: [task('m2', 'Gracefully'), task('m3', 'Directly')],
  });

  it('are the Works fenced on clusters the binding still expects, not deleting', () => {
    const works = [
      fenced('m1', 'True'),
      fenced('m2', 'True'),
      fenced('m3', 'True'),
      fenced('m4', 'True'),
      fenced('m1', 'True', true),
      fenced('m1', 'False'),
      work('m1'),
    ];
    expect(fencedWorks(b, works).map((w) => w.metadata.namespace)).toEqual([
      'karmada-es-m1',
      'karmada-es-m2',
    ]);
  });
});

describe('withWorkloadLabels', () => {
  const w = desiredWork(KEY, binding(), template, { name: 'm2', replicas: 3 });
  const labelsOf = (x: Work): unknown =>
    (x.spec.workload?.manifests?.[0] as { metadata?: { labels?: unknown } } | undefined)?.metadata?.labels;

  it('adds the labels to the workload, overwriting the template value of the same key', () => {
    const injected = withWorkloadLabels(w, { 'example.com/job-id': 'j-1', app: 'replaced' });
    expect(labelsOf(injected)).toEqual({
      app: 'replaced',
      'example.com/job-id': 'j-1',
      [labels.resourceBindingPermanentId]: 'rb-1',
      [labels.managed]: 'true',
    });
    expect(injected.metadata).toEqual(w.metadata);
  });

  it('leaves the Work as it is without labels to inject', () => {
    expect(withWorkloadLabels(w, undefined)).toBe(w);
  });
});
