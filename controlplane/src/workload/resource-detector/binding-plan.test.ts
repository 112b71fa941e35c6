import { describe, expect, it } from 'vitest';
import { annotations, finalizers, labels, type PropagationPolicy, type ResourceBinding } from '@kf/api';
import type { ResourceTemplate } from '../template.ts';
import { detectorReadChanged, planBinding, templateClaimPatch } from './binding-plan.ts';
import type { ScopedPolicy } from './policy-match.ts';

const template: ResourceTemplate = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', uid: 't-1', resourceVersion: '10' },
  spec: { replicas: 3, template: { spec: { containers: [{ name: 'web' }] } } },
};
const pp: PropagationPolicy = {
  metadata: {
    name: 'spread',
    namespace: 'default',
    uid: 'p-1',
    labels: { [labels.propagationPolicyPermanentId]: 'perm-1' },
  },
  spec: {
    resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
    placement: {
      replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted' },
    },
    failover: { cluster: { purgeMode: 'Directly' } },
  },
};
const scoped: ScopedPolicy = { scope: 'Namespaced', policy: pp };

function created(): ResourceBinding {
  const plan = planBinding(template, scoped, undefined, { newPermanentId: 'rb-1' });
  if (plan.kind !== 'Create') throw new Error(plan.kind);
  return plan.binding;
}

describe('planBinding', () => {
  it('creates the binding named after the template, owned by it, with the claim and a permanent id', () => {
    const b = created();
    expect(b.metadata).toEqual({
      name: 'web-deployment',
      namespace: 'default',
      labels: {
        [labels.propagationPolicyPermanentId]: 'perm-1',
        [labels.resourceBindingPermanentId]: 'rb-1',
      },
      annotations: {
        [annotations.propagationPolicyNamespace]: 'default',
        [annotations.propagationPolicyName]: 'spread',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'web',
          uid: 't-1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      finalizers: [finalizers.bindingController],
    });
    expect(b.spec).toEqual({
      resource: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: 'default',
        name: 'web',
        uid: 't-1',
        resourceVersion: '10',
      },
      replicas: 3,
      placement: pp.spec.placement,
      schedulerName: 'default-scheduler',
      failover: pp.spec.failover,
    });
  });

  it('makes a ClusterResourceBinding for cluster-scoped templates', () => {
    const role: ResourceTemplate = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'r:o', uid: 'c-1' },
    };
    const plan = planBinding(role, { scope: 'Cluster', policy: pp }, undefined, { newPermanentId: 'crb-1' });
    expect(plan).toMatchObject({
      kind: 'Create',
      binding: {
        metadata: {
          name: 'r.o-clusterrole',
          finalizers: [finalizers.clusterResourceBindingController],
          labels: { [labels.clusterResourceBindingPermanentId]: 'crb-1' },
        },
      },
    });
  });

  const scheduled = (): ResourceBinding => {
    const b = created();
    return {
      ...b,
      metadata: { ...b.metadata, resourceVersion: '5' },
      spec: {
        ...b.spec,
        clusters: [{ name: 'm1', replicas: 3 }],
        gracefulEvictionTasks: [{ fromCluster: 'm2', reason: 'TaintUntolerated', producer: 'TaintManager' }],
      },
    };
  };

  it('is up to date when only the template resourceVersion moved', () => {
    const t = { ...template, metadata: { ...template.metadata, resourceVersion: '11' } };
    expect(planBinding(t, scoped, scheduled(), { newPermanentId: 'other' })).toEqual({ kind: 'UpToDate' });
  });

  it('rewrites the fields it owns and keeps the placement result and eviction tasks', () => {
    const t = { ...template, spec: { ...template.spec, replicas: 5 } };
    const plan = planBinding(t, scoped, scheduled(), { newPermanentId: 'other' });
    expect(plan.kind).toBe('Update');
    if (plan.kind !== 'Update') return;
    expect(plan.binding.spec.replicas).toBe(5);
    expect(plan.binding.spec.clusters).toEqual([{ name: 'm1', replicas: 3 }]);
    expect(plan.binding.spec.gracefulEvictionTasks).toHaveLength(1);
    expect(plan.binding.metadata.labels?.[labels.resourceBindingPermanentId]).toBe('rb-1');
    expect(plan.binding.metadata.resourceVersion).toBe('5');
  });

  it('drops fields the policy no longer sets', () => {
    const policy = { ...pp, spec: { ...pp.spec, failover: undefined } } as unknown as PropagationPolicy;
    const plan = planBinding(template, { scope: 'Namespaced', policy }, scheduled(), { newPermanentId: 'x' });
    expect(plan.kind === 'Update' && 'failover' in plan.binding.spec).toBe(false);
  });

  it('puts components in place of replicas when a script gave them, and drops them when none did', () => {
    const components = [
      { name: 'jobmanager', replicas: 1 },
      { name: 'taskmanager', replicas: 2, replicaRequirements: { resourceRequest: { cpu: '2' } } },
    ];
    const withComponents = planBinding(template, scoped, scheduled(), {
      newPermanentId: 'x',
      replicas: { replicas: 0, replicaRequirements: undefined, components },
    });
    if (withComponents.kind !== 'Update') throw new Error(withComponents.kind);
    expect(withComponents.binding.spec.components).toEqual(components);
    expect('replicas' in withComponents.binding.spec).toBe(false);
    const back = planBinding(template, scoped, withComponents.binding, { newPermanentId: 'x' });
    expect(back.kind === 'Update' && back.binding.spec).toMatchObject({ replicas: 3 });
    expect(back.kind === 'Update' && 'components' in back.binding.spec).toBe(false);
  });

  it('refuses a binding that belongs to an earlier template of the same name', () => {
    const t = { ...template, metadata: { ...template.metadata, uid: 't-2' } };
    expect(planBinding(t, scoped, scheduled(), { newPermanentId: 'x' })).toEqual({
      kind: 'OwnedByOther',
      ownerUid: 't-1',
    });
  });
});

describe.each([
  ['the fail-back window', annotations.failBackAfterSeconds, '300', '120'],
  ['the block after application failover', annotations.blockPredecessorSeconds, '900', '0'],
  ['the fence timeout of a Directly purge', annotations.fenceAfterSeconds, '30', '90'],
])('planBinding, %s (a policy annotation bindings carry)', (_what, key, value, changedValue) => {
  const withAnnotation = (v: string | undefined): ScopedPolicy => ({
    scope: 'Namespaced',
    policy: {
      ...pp,
      metadata: { ...pp.metadata, ...(v === undefined ? {} : { annotations: { [key]: v } }) },
    },
  });

  it("is copied from the policy onto a new binding, and not onto the template's claim", () => {
    const plan = planBinding(template, withAnnotation(value), undefined, { newPermanentId: 'rb-1' });
    expect(plan.kind === 'Create' && plan.binding.metadata.annotations).toHaveProperty([key], value);
    const claim = templateClaimPatch(template, withAnnotation(value)) as {
      metadata: { annotations: Record<string, string> };
    };
    expect(claim.metadata.annotations).not.toHaveProperty([key]);
  });

  it('follows the policy on an existing binding: changed, then removed; other annotations kept', () => {
    const existing: ResourceBinding = {
      ...created(),
      metadata: {
        ...created().metadata,
        annotations: {
          ...created().metadata.annotations,
          [key]: '60',
          [annotations.evictionHistory]: '[]',
          other: 'x',
        },
      },
    };
    const changed = planBinding(template, withAnnotation(changedValue), existing, { newPermanentId: 'rb-2' });
    expect(changed.kind === 'Update' && changed.binding.metadata.annotations).toMatchObject({
      [key]: changedValue,
      [annotations.evictionHistory]: '[]',
      other: 'x',
    });
    const removed = planBinding(template, withAnnotation(undefined), existing, { newPermanentId: 'rb-2' });
    const left = removed.kind === 'Update' ? removed.binding.metadata.annotations : undefined;
    expect(left).toMatchObject({ other: 'x', [annotations.evictionHistory]: '[]' });
    expect(left).not.toHaveProperty([key]);
  });

  it('is up to date when the binding already carries it', () => {
    const b = created();
    const existing: ResourceBinding = {
      ...b,
      metadata: { ...b.metadata, annotations: { ...b.metadata.annotations, [key]: value } },
    };
    expect(planBinding(template, withAnnotation(value), existing, { newPermanentId: 'rb-2' })).toEqual({
      kind: 'UpToDate',
    });
  });
});

describe('detectorReadChanged', () => {
  const b = created();
  // What the scheduler and the evictors write: the detector keeps it, so its plan is the same.
  it.each<[string, ResourceBinding]>([
    ['placement result', { ...b, spec: { ...b.spec, clusters: [{ name: 'm1', replicas: 3 }] } }],
    [
      'applied placement',
      {
        ...b,
        metadata: {
          ...b.metadata,
          annotations: { ...b.metadata.annotations, [annotations.appliedPlacement]: '{}' },
        },
      },
    ],
    [
      'eviction task',
      {
        ...b,
        spec: {
          ...b.spec,
          gracefulEvictionTasks: [{ fromCluster: 'm1', reason: 'TaintUntolerated', producer: 'x' }],
        },
      },
    ],
    ['reschedule trigger', { ...b, spec: { ...b.spec, rescheduleTriggeredAt: '2026-05-01T10:00:00Z' } }],
    ['status', { ...b, status: { schedulerObservedGeneration: 2 } }],
    ['resourceVersion', { ...b, metadata: { ...b.metadata, resourceVersion: '99' } }],
  ])('ignores a change of the %s, which leaves its plan as it was', (_, changed) => {
    expect(detectorReadChanged(changed, b)).toBe(false);
    expect(planBinding(template, scoped, changed, { newPermanentId: 'rb-2' }).kind).toBe('UpToDate');
  });

  it.each<[string, ResourceBinding]>([
    ['replicas', { ...b, spec: { ...b.spec, replicas: 1 } }],
    ['placement', { ...b, spec: { ...b.spec, placement: {} } }],
    ['policy label', { ...b, metadata: { ...b.metadata, labels: {} } }],
    ['policy annotation', { ...b, metadata: { ...b.metadata, annotations: {} } }],
    ['owner', { ...b, metadata: { ...b.metadata, ownerReferences: [] } }],
    ['finalizers', { ...b, metadata: { ...b.metadata, finalizers: [] } }],
    ['deletion', { ...b, metadata: { ...b.metadata, deletionTimestamp: '2026-05-01T10:00:00Z' } }],
    ['suspension', { ...b, spec: { ...b.spec, suspension: { scheduling: true } } }],
  ])('wakes for a change of the %s', (_, changed) => {
    expect(detectorReadChanged(changed, b)).toBe(true);
  });
});

describe('templateClaimPatch', () => {
  it('adds the claim once', () => {
    const patch = templateClaimPatch(template, scoped);
    expect(patch).toEqual({
      metadata: {
        labels: {
          [labels.propagationPolicyPermanentId]: 'perm-1',
          [labels.clusterPropagationPolicyPermanentId]: undefined,
        },
        annotations: {
          [annotations.propagationPolicyNamespace]: 'default',
          [annotations.propagationPolicyName]: 'spread',
        },
      },
    });
  });

  it('is undefined when the template is already claimed by that policy', () => {
    const claimed = {
      ...template,
      metadata: {
        ...template.metadata,
        labels: { [labels.propagationPolicyPermanentId]: 'perm-1' },
        annotations: {
          [annotations.propagationPolicyNamespace]: 'default',
          [annotations.propagationPolicyName]: 'spread',
        },
      },
    };
    expect(templateClaimPatch(claimed, scoped)).toBeUndefined();
  });

  it('removes a stale claim when no policy selects the template', () => {
    const claimed = {
      ...template,
      metadata: { ...template.metadata, annotations: { [annotations.clusterPropagationPolicyName]: 'g' } },
    };
    expect(templateClaimPatch(claimed, undefined)).toEqual({
      metadata: { annotations: { [annotations.clusterPropagationPolicyName]: null } },
    });
  });
});
