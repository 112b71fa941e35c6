import { describe, expect, it } from 'vitest';
import { finalizers, labels, type GracefulEvictionTask, type ResourceBinding } from '@kf/api';
import { withoutKeys } from '../defined-fields.ts';
import type { ResourceTemplate } from '../template.ts';
import { bindingReferenceKey, dependedByLabel } from './depended-by.ts';
import { planAttachedBindings, type AttachedPlanInput, type AttachedWrite } from './plan.ts';

const LABEL = dependedByLabel('shop', 'web-deployment');

function parent(over: Partial<ResourceBinding['spec']> = {}, name = 'web-deployment'): ResourceBinding {
  return {
    metadata: {
      name,
      namespace: 'shop',
      uid: `${name}-uid`,
      labels: { [labels.resourceBindingPermanentId]: `${name}-id` },
    },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' },
      propagateDeps: true,
      clusters: [{ name: 'member1', replicas: 2 }],
      placement: {},
      ...over,
    },
  };
}

function configMap(name: string, uid = `${name}-uid`): ResourceTemplate {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'shop', uid, resourceVersion: '7' },
  };
}

function input(over: Partial<AttachedPlanInput>): AttachedPlanInput {
  const bindings = over.bindings ?? [];
  return {
    namespace: 'shop',
    name: 'web-deployment',
    parent: parent(),
    dependencies: [],
    bindings,
    bindingNamed: (n) => bindings.find((b) => b.metadata.name === n),
    newPermanentId: 'new-id',
    ...over,
  };
}

function only(writes: readonly AttachedWrite[]): AttachedWrite {
  expect(writes).toHaveLength(1);
  return writes[0] as AttachedWrite;
}

function bindingOf(w: AttachedWrite): ResourceBinding {
  if (w.kind === 'OwnedByOther') throw new Error(w.kind);
  return w.binding;
}

/** The binding a first pass creates for `cm`, as the API server would return it. */
function attached(cm: ResourceTemplate, p = parent()): ResourceBinding {
  const b = bindingOf(
    only(planAttachedBindings(input({ name: p.metadata.name ?? '', parent: p, dependencies: [cm] }))),
  );
  return { ...b, metadata: { ...b.metadata, uid: `${b.metadata.name ?? ''}-b`, resourceVersion: '1' } };
}

describe('bindingReferenceKey', () => {
  it("is upstream's GenerateBindingReferenceKey (FNV-1a of ns/name, safe-encoded digits)", () => {
    // FNV-1a-32 of `default/nginx-deployment` is 1687170879, whose digits encode to 5bdc5c4dcf.
    expect(bindingReferenceKey('default', 'nginx-deployment')).toBe('5bdc5c4dcf');
    expect(bindingReferenceKey('prod-xxx', 'mytest-deployment')).not.toBe(
      bindingReferenceKey('qa-xxx', 'mytest-deployment'),
    );
    expect(dependedByLabel('default', 'nginx-deployment')).toBe(
      'resourcebinding.karmada.io/depended-by-5bdc5c4dcf',
    );
  });
});

describe('planAttachedBindings', () => {
  it('creates an attached binding controlled by the dependency, requiring the parent clusters', () => {
    const w = only(planAttachedBindings(input({ dependencies: [configMap('app-config')] })));
    expect(w).toEqual({
      kind: 'Create',
      binding: {
        metadata: {
          name: 'app-config-configmap',
          namespace: 'shop',
          labels: { [LABEL]: 'web-deployment-id', [labels.resourceBindingPermanentId]: 'new-id' },
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'app-config',
              uid: 'app-config-uid',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
          finalizers: [finalizers.bindingController],
        },
        spec: {
          resource: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            namespace: 'shop',
            name: 'app-config',
            uid: 'app-config-uid',
            resourceVersion: '7',
          },
          requiredBy: [
            { namespace: 'shop', name: 'web-deployment', clusters: [{ name: 'member1', replicas: 2 }] },
          ],
          conflictResolution: 'Abort',
          preserveResourcesOnDeletion: false,
        },
      },
    });
  });

  it("takes the parent's conflictResolution and preserveResourcesOnDeletion", () => {
    const p = parent({ conflictResolution: 'Overwrite', preserveResourcesOnDeletion: true });
    const b = bindingOf(only(planAttachedBindings(input({ parent: p, dependencies: [configMap('c')] }))));
    expect(b.spec.conflictResolution).toBe('Overwrite');
    expect(b.spec.preserveResourcesOnDeletion).toBe(true);
  });

  it('writes nothing when the attached binding is up to date, even if the object changed version', () => {
    const existing = attached(configMap('c'));
    const newer = { ...configMap('c'), metadata: { ...configMap('c').metadata, resourceVersion: '99' } };
    expect(planAttachedBindings(input({ dependencies: [newer], bindings: [parent(), existing] }))).toEqual(
      [],
    );
  });

  it("follows the parent's clusters (a reschedule or failover moves the dependency)", () => {
    const existing = attached(configMap('c'));
    const moved = parent({ clusters: [{ name: 'member2', replicas: 2 }] });
    const w = only(
      planAttachedBindings(input({ parent: moved, dependencies: [configMap('c')], bindings: [existing] })),
    );
    expect(w.kind).toBe('Update');
    expect(bindingOf(w).spec.requiredBy).toEqual([
      { namespace: 'shop', name: 'web-deployment', clusters: [{ name: 'member2', replicas: 2 }] },
    ]);
    expect(bindingOf(w).metadata.uid).toBe('c-configmap-b');
  });

  it('keeps requiring the cluster a graceful eviction keeps the old copy on, until the task ends', () => {
    const existing = attached(configMap('c'));
    const task = (
      fromCluster: string,
      purgeMode: GracefulEvictionTask['purgeMode'],
    ): GracefulEvictionTask => ({
      fromCluster,
      ...(purgeMode === undefined ? {} : { purgeMode }),
      reason: 'ApplicationFailure',
      producer: 'test',
    });
    const evicting = parent({
      clusters: [{ name: 'member2', replicas: 2 }],
      gracefulEvictionTasks: [
        task('member1', 'Gracefully'),
        task('member3', 'Never'),
        task('member4', 'Directly'),
        task('member5', 'Immediately'),
        task('member2', 'Gracefully'),
      ],
    });
    const w = only(
      planAttachedBindings(input({ parent: evicting, dependencies: [configMap('c')], bindings: [existing] })),
    );
    expect(bindingOf(w).spec.requiredBy?.[0]?.clusters).toEqual([
      { name: 'member2', replicas: 2 },
      { name: 'member1' },
      { name: 'member3' },
    ]);
  });

  it("appends a second parent's entry and label, keeping the first", () => {
    const existing = attached(configMap('c'));
    const other = parent({ clusters: [{ name: 'member3' }] }, 'api-deployment');
    const w = only(
      planAttachedBindings(
        input({
          name: 'api-deployment',
          parent: other,
          dependencies: [configMap('c')],
          bindings: [existing, parent()],
        }),
      ),
    );
    const b = bindingOf(w);
    expect(b.spec.requiredBy?.map((r) => r.name)).toEqual(['web-deployment', 'api-deployment']);
    expect(b.metadata.labels).toEqual({
      [LABEL]: 'web-deployment-id',
      [dependedByLabel('shop', 'api-deployment')]: 'api-deployment-id',
      [labels.resourceBindingPermanentId]: 'new-id',
    });
  });

  it('resolves disagreeing strategies as upstream (Overwrite and true win) and names the conflict', () => {
    const existing = attached(configMap('c'));
    const other = parent(
      { conflictResolution: 'Overwrite', preserveResourcesOnDeletion: true },
      'api-deployment',
    );
    const w = only(
      planAttachedBindings(
        input({
          name: 'api-deployment',
          parent: other,
          dependencies: [configMap('c')],
          bindings: [existing, parent()],
        }),
      ),
    );
    if (w.kind !== 'Update') throw new Error(w.kind);
    expect(w.binding.spec.conflictResolution).toBe('Overwrite');
    expect(w.binding.spec.preserveResourcesOnDeletion).toBe(true);
    expect(w.conflicts).toEqual([
      'ConflictResolution conflicted (Overwrite vs Abort)',
      'PreserveResourcesOnDeletion conflicted (true vs false)',
    ]);
  });

  it("merges into a dependency's own policy binding without touching its placement or strategies", () => {
    const own: ResourceBinding = {
      metadata: {
        name: 'c-configmap',
        namespace: 'shop',
        uid: 'own',
        labels: { [labels.propagationPolicyPermanentId]: 'pp' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'c-uid', controller: true }],
      },
      spec: {
        resource: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'c', uid: 'c-uid' },
        placement: { clusterAffinity: { clusterNames: ['member9'] } },
        clusters: [{ name: 'member9' }],
        conflictResolution: 'Overwrite',
      },
    };
    const b = bindingOf(
      only(planAttachedBindings(input({ dependencies: [configMap('c')], bindings: [own] }))),
    );
    expect(b.spec.placement).toEqual(own.spec.placement);
    expect(b.spec.clusters).toEqual([{ name: 'member9' }]);
    expect(b.spec.conflictResolution).toBe('Overwrite');
    expect(b.spec.preserveResourcesOnDeletion).toBeUndefined();
    expect(b.spec.requiredBy).toHaveLength(1);
    expect(b.metadata.labels).toEqual({
      [labels.propagationPolicyPermanentId]: 'pp',
      [LABEL]: 'web-deployment-id',
    });
  });

  it('waits while a binding of that name is controlled by another object (deleted and re-created)', () => {
    const stale = attached(configMap('c', 'old-uid'));
    expect(planAttachedBindings(input({ dependencies: [configMap('c')], bindings: [stale] }))).toEqual([
      { kind: 'OwnedByOther', name: 'c-configmap', ownerUid: 'old-uid' },
    ]);
  });

  it('deletes an attached binding the parent no longer names when nothing else requires it', () => {
    const existing = attached(configMap('c'));
    expect(planAttachedBindings(input({ dependencies: [], bindings: [existing] }))).toEqual([
      { kind: 'Delete', binding: existing },
    ]);
  });

  it("removes only the parent's entry and label when another parent still requires it", () => {
    const first = attached(configMap('c'));
    const other = parent({ preserveResourcesOnDeletion: true }, 'api-deployment');
    const both = bindingOf(
      only(
        planAttachedBindings(
          input({
            name: 'api-deployment',
            parent: other,
            dependencies: [configMap('c')],
            bindings: [first, parent()],
          }),
        ),
      ),
    );
    const w = only(planAttachedBindings(input({ dependencies: [], bindings: [both, other] })));
    if (w.kind !== 'Update') throw new Error(w.kind);
    expect(w.binding.spec.requiredBy?.map((r) => r.name)).toEqual(['api-deployment']);
    expect(w.binding.metadata.labels).toEqual({
      [dependedByLabel('shop', 'api-deployment')]: 'api-deployment-id',
      [labels.resourceBindingPermanentId]: 'new-id',
    });
    // The strategies are the remaining parent's.
    expect(w.binding.spec.preserveResourcesOnDeletion).toBe(true);
  });

  it("keeps a policy's own binding, without the parent's entry, when the parent lets go", () => {
    const own = bindingOf(only(planAttachedBindings(input({ dependencies: [configMap('c')] }))));
    const withPlacement = {
      ...own,
      spec: { ...own.spec, placement: {}, conflictResolution: 'Overwrite' as const },
    };
    const w = only(planAttachedBindings(input({ parent: undefined, bindings: [withPlacement] })));
    if (w.kind !== 'Update') throw new Error(w.kind);
    expect(w.binding.spec.requiredBy).toEqual([]);
    expect(w.binding.spec.conflictResolution).toBe('Overwrite');
    expect(w.binding.metadata.labels).toEqual({ [labels.resourceBindingPermanentId]: 'new-id' });
  });

  it('detaches everything when the parent is gone or stopped propagating (dependencies ignored)', () => {
    const a = attached(configMap('a'));
    const b = attached(configMap('b'));
    const unrelated = attached(configMap('z'), parent({}, 'other-deployment'));
    const writes = planAttachedBindings(
      input({ parent: undefined, dependencies: [configMap('a')], bindings: [a, b, unrelated] }),
    );
    expect(writes).toEqual([
      { kind: 'Delete', binding: a },
      { kind: 'Delete', binding: b },
    ]);
  });

  it('finds an attachment by its requiredBy entry even when the label was removed', () => {
    const a = attached(configMap('a'));
    const unlabelled = { ...a, metadata: { ...a.metadata, labels: {} } };
    expect(planAttachedBindings(input({ parent: undefined, bindings: [unlabelled] }))).toEqual([
      { kind: 'Delete', binding: unlabelled },
    ]);
  });

  it('leaves bindings being deleted alone', () => {
    const a = attached(configMap('a'));
    const deleting = { ...a, metadata: { ...a.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } };
    expect(planAttachedBindings(input({ parent: undefined, bindings: [deleting] }))).toEqual([]);
  });

  it('attaches each object once, in name order, whatever found it', () => {
    const writes = planAttachedBindings(
      input({ dependencies: [configMap('b'), configMap('a'), configMap('b')] }),
    );
    expect(writes.map((w) => bindingOf(w).metadata.name)).toEqual(['a-configmap', 'b-configmap']);
  });

  it('attaches an unscheduled parent with no clusters yet', () => {
    const p = { ...parent(), spec: withoutKeys(parent().spec, ['clusters']) as ResourceBinding['spec'] };
    const b = bindingOf(only(planAttachedBindings(input({ parent: p, dependencies: [configMap('c')] }))));
    expect(b.spec.requiredBy).toEqual([{ namespace: 'shop', name: 'web-deployment' }]);
  });
});
