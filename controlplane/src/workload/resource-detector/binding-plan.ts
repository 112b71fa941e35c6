/**
 * The binding a template and its policy call for, and what to write to get there: create
 * it, rewrite the fields the detector owns, or nothing. The detector never touches
 * `spec.clusters`, `gracefulEvictionTasks`, `requiredBy` or `rescheduleTriggeredAt`: those belong to
 * the scheduler and the evictors.
 */
import {
  annotations,
  defaultSchedulerName,
  finalizers,
  isSameJson,
  labels,
  type ObjectMeta,
  type OwnerReference,
  type ResourceBinding,
  type ResourceBindingSpec,
} from '@kf/api';
import { definedFields, withoutKeys } from '../defined-fields.ts';
import { bindingNameFor } from '../../names.ts';
import type { ResourceTemplate } from '../template.ts';
import type { ScopedPolicy } from './policy-match.ts';
import { replicasOf, type TemplateReplicas } from './replicas.ts';

export type BindingPlan =
  | { readonly kind: 'Create'; readonly binding: ResourceBinding }
  | { readonly kind: 'Update'; readonly binding: ResourceBinding }
  | { readonly kind: 'UpToDate' }
  /** A binding of that name belongs to another template (one deleted and re-created): wait for GC. */
  | { readonly kind: 'OwnedByOther'; readonly ownerUid: string };

/** Every label and annotation key a policy claim may use; the stale ones are removed. */
const CLAIM_LABELS = [labels.propagationPolicyPermanentId, labels.clusterPropagationPolicyPermanentId];
const CLAIM_ANNOTATIONS = [
  annotations.propagationPolicyNamespace,
  annotations.propagationPolicyName,
  annotations.clusterPropagationPolicyName,
];

/**
 * Policy annotations the binding carries too (absent on the policy: removed from the binding), so
 * that controllers reading only bindings follow them: the fail-back window, how long
 * application failover keeps a workload off the cluster it left (the form of
 * `spec.failover.application.blockPredecessorSeconds` that Karmada's own CRDs keep), and the fence
 * timeout of a `Directly` purge.
 */
const POLICY_ANNOTATIONS_ON_BINDING = [
  annotations.failBackAfterSeconds,
  annotations.blockPredecessorSeconds,
  annotations.fenceAfterSeconds,
];

/** The claim's annotations plus those of {@link POLICY_ANNOTATIONS_ON_BINDING} the policy has. */
function bindingAnnotationsFor(sp: ScopedPolicy, claim: Claim): Record<string, string> {
  const out: Record<string, string> = { ...claim.annotations };
  for (const k of POLICY_ANNOTATIONS_ON_BINDING) {
    const v = sp.policy.metadata.annotations?.[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/**
 * The policy's permanent id: its `…/permanent-id` label (upstream's admission webhook sets it on
 * create), else its UID, which is just as permanent for a policy created without that webhook.
 */
export function policyPermanentId(sp: ScopedPolicy): string {
  const key =
    sp.scope === 'Namespaced'
      ? labels.propagationPolicyPermanentId
      : labels.clusterPropagationPolicyPermanentId;
  return sp.policy.metadata.labels?.[key] ?? sp.policy.metadata.uid ?? '';
}

export interface Claim {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** The labels and annotations that mark a template (and its binding) as claimed by `sp`. */
export function claimFor(sp: ScopedPolicy): Claim {
  const id = policyPermanentId(sp);
  const name = sp.policy.metadata.name ?? '';
  if (sp.scope === 'Namespaced') {
    return {
      labels: { [labels.propagationPolicyPermanentId]: id },
      annotations: {
        [annotations.propagationPolicyNamespace]: sp.policy.metadata.namespace ?? '',
        [annotations.propagationPolicyName]: name,
      },
    };
  }
  return {
    labels: { [labels.clusterPropagationPolicyPermanentId]: id },
    annotations: { [annotations.clusterPropagationPolicyName]: name },
  };
}

/** `current` with every claim key replaced by those of `claim` (none: the claim removed). */
function withClaim(
  current: Readonly<Record<string, string>> | undefined,
  keys: readonly string[],
  claim: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(current ?? {})) if (!keys.includes(k)) out[k] = v;
  return { ...out, ...claim };
}

/**
 * A merge patch that puts `sp`'s claim on the template (undefined: nothing to remove or add).
 * Without a policy the stale claim keys are removed.
 */
export function templateClaimPatch(t: ResourceTemplate, sp: ScopedPolicy | undefined): object | undefined {
  const claim = sp === undefined ? { labels: {}, annotations: {} } : claimFor(sp);
  const labelPatch = claimDiff(t.metadata.labels, CLAIM_LABELS, claim.labels);
  const annotationPatch = claimDiff(t.metadata.annotations, CLAIM_ANNOTATIONS, claim.annotations);
  if (labelPatch === undefined && annotationPatch === undefined) return undefined;
  return {
    metadata: {
      ...(labelPatch === undefined ? {} : { labels: labelPatch }),
      ...(annotationPatch === undefined ? {} : { annotations: annotationPatch }),
    },
  };
}

function claimDiff(
  current: Readonly<Record<string, string>> | undefined,
  keys: readonly string[],
  wanted: Readonly<Record<string, string>>,
): Record<string, string | null> | undefined {
  const patch: Record<string, string | null> = {};
  for (const k of keys) {
    const want = wanted[k];
    const have = current?.[k];
    if (want !== have) patch[k] = want ?? null;
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}

/** The binding's name and namespace for a template: RB beside a namespaced template, CRB otherwise. */
export function bindingRefFor(t: ResourceTemplate): {
  readonly namespace: string | undefined;
  readonly name: string;
} {
  const ns = t.metadata.namespace;
  return {
    namespace: ns === undefined || ns === '' ? undefined : ns,
    name: bindingNameFor(t.kind ?? '', t.metadata.name ?? ''),
  };
}

/**
 * The spec fields the detector owns, from the template and the policy; the replicas are the
 * template's own (built-in kinds) unless an interpreter script gave them.
 */
export function detectedSpec(
  t: ResourceTemplate,
  sp: ScopedPolicy,
  interpreted: TemplateReplicas = replicasOf(t),
): ResourceBindingSpec {
  const p = sp.policy.spec;

  const ns = t.metadata.namespace;
  const resource = definedFields({
    apiVersion: t.apiVersion ?? '',
    kind: t.kind ?? '',
    namespace: ns === '' ? undefined : ns,
    name: t.metadata.name ?? '',
    uid: t.metadata.uid,
    resourceVersion: t.metadata.resourceVersion,
  });
  return {
    resource: {
      ...resource,
      apiVersion: resource.apiVersion ?? '',
      kind: resource.kind ?? '',
      name: resource.name ?? '',
    },
    ...definedFields({
      propagateDeps: p.propagateDeps,
      ...sizeOf(interpreted),
      placement: p.placement,
      schedulerName: p.schedulerName ?? defaultSchedulerName,
      failover: p.failover,
      conflictResolution: p.conflictResolution,
      preserveResourcesOnDeletion: p.preserveResourcesOnDeletion,
      suspension: p.suspension,
    }),
  };
}

/** Replicas (none when 0), requirements and components (none when empty), as the binding carries them. */
function sizeOf({ replicas, replicaRequirements, components }: TemplateReplicas): {
  readonly replicas: number | undefined;
  readonly replicaRequirements: TemplateReplicas['replicaRequirements'];
  readonly components: TemplateReplicas['components'];
} {
  return {
    replicas: replicas === 0 ? undefined : replicas,
    replicaRequirements,
    components: components === undefined || components.length === 0 ? undefined : components,
  };
}

/** Spec fields the detector overwrites; everything else on an existing binding is kept. */
const DETECTED_FIELDS = [
  'resource',
  'propagateDeps',
  'replicaRequirements',
  'replicas',
  'components',
  'placement',
  'schedulerName',
  'failover',
  'conflictResolution',
  'preserveResourcesOnDeletion',
] as const satisfies readonly (keyof ResourceBindingSpec)[];

function ownerReferenceTo(t: ResourceTemplate): OwnerReference {
  return {
    apiVersion: t.apiVersion ?? '',
    kind: t.kind ?? '',
    name: t.metadata.name ?? '',
    uid: t.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The label and finalizer a binding of this scope carries. */
function bindingKeysFor(cluster: boolean): { readonly idLabel: string; readonly finalizer: string } {
  return cluster
    ? {
        idLabel: labels.clusterResourceBindingPermanentId,
        finalizer: finalizers.clusterResourceBindingController,
      }
    : { idLabel: labels.resourceBindingPermanentId, finalizer: finalizers.bindingController };
}

export interface PlanInputs {
  /**
   * Used only when the binding has no permanent id yet (upstream's admission webhook assigns a
   * random UUID).
   */
  readonly newPermanentId: string;
  /** Replicas an InterpretReplica script gave; default: the built-in rules of replicas.ts. */
  readonly replicas?: TemplateReplicas;
}

/**
 * Plans the binding of `t` under `sp`. A change of the template's resourceVersion alone (e.g. a
 * status write) is not worth a binding update.
 */
export function planBinding(
  t: ResourceTemplate,
  sp: ScopedPolicy,
  existing: ResourceBinding | undefined,
  inputs: PlanInputs,
): BindingPlan {
  const { newPermanentId } = inputs;
  const ref = bindingRefFor(t);
  const keys = bindingKeysFor(ref.namespace === undefined);
  const claim = claimFor(sp);
  const spec = detectedSpec(t, sp, inputs.replicas);
  if (existing === undefined) {
    const metadata: ObjectMeta = {
      name: ref.name,
      ...definedFields({ namespace: ref.namespace }),
      labels: { ...claim.labels, [keys.idLabel]: newPermanentId },
      annotations: bindingAnnotationsFor(sp, claim),
      ownerReferences: [ownerReferenceTo(t)],
      finalizers: [keys.finalizer],
    };
    return { kind: 'Create', binding: { metadata, spec } };
  }
  const owner = existing.metadata.ownerReferences?.find((o) => o.controller === true);
  if (owner !== undefined && t.metadata.uid !== undefined && owner.uid !== t.metadata.uid) {
    return { kind: 'OwnedByOther', ownerUid: owner.uid };
  }
  const binding: ResourceBinding = {
    ...existing,
    metadata: updatedMetadata(existing.metadata, {
      t,
      claim,
      annotations: bindingAnnotationsFor(sp, claim),
      keys,
      newPermanentId,
    }),
    spec: updatedSpec(existing.spec, spec),
  };
  return isUpToDate(existing, binding) ? { kind: 'UpToDate' } : { kind: 'Update', binding };
}

function updatedMetadata(
  m: ObjectMeta,
  want: {
    readonly t: ResourceTemplate;
    readonly claim: Claim;
    /** The claim's annotations and the policy's that bindings carry. */
    readonly annotations: Readonly<Record<string, string>>;
    readonly keys: { readonly idLabel: string; readonly finalizer: string };
    readonly newPermanentId: string;
  },
): ObjectMeta {
  const { idLabel, finalizer } = want.keys;
  const owners = m.ownerReferences ?? [];
  const finalizerList = m.finalizers ?? [];
  return {
    ...m,
    labels: {
      ...withClaim(m.labels, CLAIM_LABELS, want.claim.labels),
      [idLabel]: m.labels?.[idLabel] ?? want.newPermanentId,
    },
    annotations: withClaim(
      m.annotations,
      [...CLAIM_ANNOTATIONS, ...POLICY_ANNOTATIONS_ON_BINDING],
      want.annotations,
    ),
    ownerReferences: owners.some((o) => o.controller === true)
      ? owners
      : [...owners, ownerReferenceTo(want.t)],
    finalizers: finalizerList.includes(finalizer) ? finalizerList : [...finalizerList, finalizer],
  };
}

/** The existing spec with the detector's fields replaced (absent ones removed). */
function updatedSpec(existing: ResourceBindingSpec, detected: ResourceBindingSpec): ResourceBindingSpec {
  const kept = withoutKeys(existing, [...DETECTED_FIELDS, 'suspension']);
  const suspension = mergeSuspension(existing.suspension?.scheduling, detected.suspension);
  return {
    ...kept,
    ...definedFields(Object.fromEntries(DETECTED_FIELDS.map((f) => [f, detected[f]]))),
    ...definedFields({ suspension }),
    resource: detected.resource,
  };
}

/** The policy's suspension, keeping `scheduling` that third parties set on the binding. */
function mergeSuspension(
  scheduling: boolean | undefined,
  fromPolicy: ResourceBindingSpec['suspension'],
): ResourceBindingSpec['suspension'] {
  if (scheduling === undefined) return fromPolicy;
  return { ...fromPolicy, scheduling };
}

/**
 * Whether a binding changed in what the detector plans from: its metadata (but the placement the
 * scheduler records) and the spec fields it writes. The scheduler's placement and the evictors'
 * tasks then do not wake it: it keeps those fields as they are.
 */
export function detectorReadChanged(b: ResourceBinding, old: ResourceBinding): boolean {
  const read = (x: ResourceBinding): unknown => ({
    labels: x.metadata.labels,
    annotations: withoutKeys(x.metadata.annotations ?? {}, [annotations.appliedPlacement]),
    ownerReferences: x.metadata.ownerReferences,
    finalizers: x.metadata.finalizers,
    deletionTimestamp: x.metadata.deletionTimestamp,
    spec: Object.fromEntries([...DETECTED_FIELDS, 'suspension' as const].map((f) => [f, x.spec[f]])),
  });
  return !isSameJson(read(b), read(old));
}

function isUpToDate(a: ResourceBinding, b: ResourceBinding): boolean {
  const strip = (x: ResourceBinding): unknown => ({
    labels: x.metadata.labels,
    annotations: x.metadata.annotations,
    ownerReferences: x.metadata.ownerReferences,
    finalizers: x.metadata.finalizers,
    spec: { ...x.spec, resource: { ...x.spec.resource, resourceVersion: undefined } },
  });
  return isSameJson(strip(a), strip(b));
}
