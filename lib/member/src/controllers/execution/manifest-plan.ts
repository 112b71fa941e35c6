/**
 * Pure rules of the execution controller: what is applied to the member for a manifest, whether
 * an existing member object may be taken over or deleted, and which member changes are drift.
 */
import {
  annotations,
  conflictResolutionAnnotationValues,
  executionNamespacePrefix,
  jsonEqual,
  labels,
  type Manifest,
} from '@kf/api';

/** A member object as this agent reads it: any kind, plain JSON. */
export interface MemberObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly generation?: number;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly managedFields?: readonly unknown[];
    readonly [field: string]: unknown;
  };
  readonly [field: string]: unknown;
}

export interface WorkRef {
  readonly namespace: string;
  readonly name: string;
}

/** Server-populated metadata that an apply must not send (and the namespace, set below). */
const SERVER_FIELDS = [
  'resourceVersion',
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'managedFields',
  'selfLink',
  'namespace',
] as const;

/** What identifies a manifest's object: apiVersion, kind, namespace (may be empty) and name. */
export interface ManifestIdentity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function manifestIdentity(m: Manifest): ManifestIdentity {
  const meta = (typeof m.metadata === 'object' && m.metadata !== null ? m.metadata : {}) as Record<
    string,
    unknown
  >;
  return {
    apiVersion: text(m.apiVersion),
    kind: text(m.kind),
    namespace: text(meta.namespace),
    name: text(meta.name),
  };
}

/**
 * The object to server-side apply for a manifest: the manifest without status and
 * server-populated metadata, marked as managed by Karmada and pointing back at its Work (as the
 * control plane already marks it). Cluster-scoped kinds lose any namespace; namespaced ones
 * default to `default`.
 */
export function desiredObject(manifest: Manifest, work: WorkRef, namespaced: boolean): MemberObject {
  const rest: MemberObject = { ...(manifest as MemberObject) };
  Reflect.deleteProperty(rest, 'status');
  const meta: Record<string, unknown> & {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  } = {
    ...rest.metadata,
  };
  for (const field of SERVER_FIELDS) Reflect.deleteProperty(meta, field);
  const ns = manifestIdentity(manifest).namespace;
  return {
    ...rest,
    metadata: {
      ...meta,
      ...(namespaced ? { namespace: ns === '' ? 'default' : ns } : {}),
      labels: { ...meta.labels, [labels.managed]: 'true' },
      annotations: {
        ...meta.annotations,
        [annotations.workNamespace]: work.namespace,
        [annotations.workName]: work.name,
      },
    },
  };
}

/** Karmada's marks on a member object; stripped when a Work is deleted with preserveResourcesOnDeletion. */
const KARMADA_LABELS = [
  labels.managed,
  labels.workPermanentId,
  labels.resourceBindingPermanentId,
  labels.propagationPolicyPermanentId,
  labels.clusterPropagationPolicyPermanentId,
];
const KARMADA_ANNOTATIONS = [
  annotations.workName,
  annotations.workNamespace,
  annotations.resourceTemplateUid,
  annotations.resourceTemplateGeneration,
  annotations.resourceTemplateManagedLabels,
  annotations.resourceTemplateManagedAnnotations,
  annotations.resourceBindingNamespace,
  annotations.resourceBindingName,
  annotations.propagationPolicyNamespace,
  annotations.propagationPolicyName,
  annotations.clusterPropagationPolicyName,
];

/**
 * The apply that leaves a member object behind when its Work goes with
 * `preserveResourcesOnDeletion`: the same content without Karmada's labels and annotations, so
 * that server-side apply removes them (the agent owned them) and nothing else changes.
 */
export function releasedObject(desired: MemberObject): MemberObject {
  const meta = desired.metadata ?? {};
  const strip = (m: Readonly<Record<string, string>> | undefined, keys: readonly string[]) =>
    Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => !keys.includes(k)));
  return {
    ...desired,
    metadata: {
      ...meta,
      labels: strip(meta.labels, KARMADA_LABELS),
      annotations: strip(meta.annotations, KARMADA_ANNOTATIONS),
    },
  };
}

export function isManaged(obj: MemberObject | undefined): boolean {
  return obj?.metadata?.labels?.[labels.managed] === 'true';
}

/**
 * Whether applying `desired` over the live object is allowed: always when absent or managed by
 * Karmada; an unmanaged object only with `work.karmada.io/conflict-resolution: overwrite`.
 * Returns the reason when refused.
 */
export function adoptionRefusal(live: MemberObject | undefined, desired: MemberObject): string | undefined {
  if (live === undefined || isManaged(live)) return undefined;
  const resolution = desired.metadata?.annotations?.[annotations.conflictResolution];
  if (resolution === conflictResolutionAnnotationValues.overwrite) return undefined;
  return (
    `${desired.kind ?? 'object'} ${objectName(desired)} already exists in the member and is not managed by ` +
    `Karmada; set annotation ${annotations.conflictResolution}: overwrite to take it over`
  );
}

/** Only objects Karmada manages for this very Work are deleted with it. */
export function mayDelete(live: MemberObject | undefined, work: WorkRef): boolean {
  const a = live?.metadata?.annotations;
  return (
    isManaged(live) &&
    a?.[annotations.workNamespace] === work.namespace &&
    a[annotations.workName] === work.name
  );
}

/** `namespace/name` of the Work a member object belongs to, from its annotations. */
export function owningWorkKey(obj: MemberObject): string | undefined {
  if (!isManaged(obj)) return undefined;
  const ns = obj.metadata?.annotations?.[annotations.workNamespace];
  const name = obj.metadata?.annotations?.[annotations.workName];
  if (ns === undefined || name === undefined || !ns.startsWith(executionNamespacePrefix)) return undefined;
  return `${ns}/${name}`;
}

/** `apps/v1/Deployment/ns/name`: how applied versions are remembered. */
export function objectRecordKey(obj: MemberObject): string {
  return `${obj.apiVersion ?? ''}/${obj.kind ?? ''}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/** `namespace/name`, or `name` for a cluster-scoped object. */
export function objectName(obj: MemberObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns === undefined ? name : `${ns}/${name}`;
}

/** The object without what changes on its own (status, versions, managed fields). */
function content(obj: MemberObject): unknown {
  const rest: MemberObject = { ...obj };
  Reflect.deleteProperty(rest, 'status');
  return {
    ...rest,
    metadata: {
      ...obj.metadata,
      resourceVersion: undefined,
      managedFields: undefined,
      generation: undefined,
    },
  };
}

/**
 * Whether a member change may be drift to repair: deletions always; otherwise only changes other
 * than status, and not the version this agent itself wrote last. An object seen before any apply
 * of this process is left to the Work's own reconcile.
 */
export function isDrift(
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  obj: MemberObject,
  old: MemberObject | undefined,
  appliedVersion: string | undefined,
): boolean {
  if (type === 'DELETED') return true;
  if (appliedVersion === undefined || obj.metadata?.resourceVersion === appliedVersion) return false;
  if (type === 'ADDED' || old === undefined) return true;
  return !jsonEqual(content(obj), content(old));
}
