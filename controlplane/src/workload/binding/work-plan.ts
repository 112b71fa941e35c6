/**
 * From a binding to its Works: which Works are orphans, whether a `Directly` purge still
 * blocks the new placement, and the Work each target cluster should have: the template with
 * that cluster's replica count, labelled and annotated so that Works, bindings and member
 * objects can be traced to one another.
 */
import {
  annotations,
  clusterNameFromExecutionNamespace,
  conflictResolutionAnnotationValues,
  executionNamespaceFor,
  finalizers,
  givenPurgeMode,
  isSameJson,
  labels,
  purgeModes,
  readFenceSetting,
  workConditionTypes,
  type Manifest,
  type ResourceBinding,
  type TargetCluster,
  type Work,
} from '@kf/api';
import { bindingIdLabel, isClusterBindingKey } from '../../bindings.ts';
import { compactDigestOf, manifestsDigest } from '../../cached-forms.ts';
import { workNameFor } from '../../names.ts';
import { definedFields, withoutKeys } from '../defined-fields.ts';
import { isReplicatedKind } from '../resource-detector/replicas.ts';
import { recordOf, type ResourceTemplate } from '../template.ts';
import { withoutControlPlaneFields } from './member-fields.ts';

/**
 * Clusters that may keep a Work: the placement, dependants' clusters, and non-Directly evictions
 * (`Immediately`, the deprecated name of `Directly`, counts as Directly).
 */
export function expectedClusters(b: ResourceBinding): ReadonlySet<string> {
  const names = new Set<string>();
  for (const c of b.spec.clusters ?? []) names.add(c.name);
  for (const r of b.spec.requiredBy ?? []) for (const c of r.clusters ?? []) names.add(c.name);
  for (const t of b.spec.gracefulEvictionTasks ?? [])
    if (givenPurgeMode(t.purgeMode) !== purgeModes.directly) names.add(t.fromCluster);
  return names;
}

export function clusterOfWork(w: Work): string | undefined {
  return clusterNameFromExecutionNamespace(w.metadata.namespace ?? '');
}

/** Works in clusters the binding no longer expects (those already deleting are left alone). */
export function orphanWorks(b: ResourceBinding, works: readonly Work[]): readonly Work[] {
  const expected = expectedClusters(b);
  return works.filter((w) => {
    const c = clusterOfWork(w);
    return c !== undefined && !expected.has(c) && w.metadata.deletionTimestamp === undefined;
  });
}

/**
 * Works whose copies their agent fenced (condition `Fenced=True`) on a cluster the binding still
 * expects: the agent never applies them again, so they are deleted and made afresh.
 */
export function fencedWorks(b: ResourceBinding, works: readonly Work[]): readonly Work[] {
  const expected = expectedClusters(b);
  return works.filter((w) => {
    const c = clusterOfWork(w);
    const fenced = w.status?.conditions?.some(
      (x) => x.type === workConditionTypes.fenced && x.status === 'True',
    );
    return (
      fenced === true && c !== undefined && expected.has(c) && w.metadata.deletionTimestamp === undefined
    );
  });
}

/** Clusters a `Directly` eviction is purging that still hold a Work (deleting or not). */
export function pendingDirectPurges(b: ResourceBinding, works: readonly Work[]): readonly string[] {
  const directly = new Set(
    (b.spec.gracefulEvictionTasks ?? [])
      .filter((t) => givenPurgeMode(t.purgeMode) === purgeModes.directly)
      .map((t) => t.fromCluster),
  );
  return [
    ...new Set(works.map(clusterOfWork).filter((c): c is string => c !== undefined && directly.has(c))),
  ].sort();
}

/** `spec.clusters` followed by the dependants' clusters not already in it. */
export function targetClusters(b: ResourceBinding): readonly TargetCluster[] {
  const targets = [...(b.spec.clusters ?? [])];
  const seen = new Set(targets.map((c) => c.name));
  for (const r of b.spec.requiredBy ?? []) {
    for (const c of r.clusters ?? []) {
      if (!seen.has(c.name)) {
        seen.add(c.name);
        targets.push({ name: c.name });
      }
    }
  }
  return targets;
}

/** Metadata the member object must not carry over from the control plane. */
const PRUNED_METADATA = [
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'managedFields',
  'resourceVersion',
  'selfLink',
  'uid',
  'ownerReferences',
  'finalizers',
] as const;
const DEPLOYMENT_REVISION = 'deployment.kubernetes.io/revision';

function conflictResolutionOf(b: ResourceBinding, t: ResourceTemplate): string {
  const v = t.metadata.annotations?.[annotations.conflictResolution];
  if (v === conflictResolutionAnnotationValues.overwrite || v === conflictResolutionAnnotationValues.abort)
    return v;
  return b.spec.conflictResolution === 'Overwrite'
    ? conflictResolutionAnnotationValues.overwrite
    : conflictResolutionAnnotationValues.abort;
}

/** Annotations naming the binding (on the Work and on the member object). */
function bindingAnnotations(key: string, b: ResourceBinding): Record<string, string> {
  if (isClusterBindingKey(key)) return { [annotations.clusterResourceBindingName]: b.metadata.name ?? '' };
  return {
    [annotations.resourceBindingNamespace]: b.metadata.namespace ?? '',
    [annotations.resourceBindingName]: b.metadata.name ?? '',
  };
}

/** Labels and annotations on the member object that trace it back to its binding and Work. */
function tracingMetadata(
  key: string,
  b: ResourceBinding,
  t: ResourceTemplate,
  cluster: string,
): { readonly labels: Record<string, string>; readonly annotations: Record<string, string> } {
  const idLabel = bindingIdLabel(key);
  const templateAnnotations = withoutKeys(t.metadata.annotations ?? {}, [DEPLOYMENT_REVISION]);
  return {
    labels: { ...t.metadata.labels, [idLabel]: b.metadata.labels?.[idLabel] ?? '', [labels.managed]: 'true' },
    annotations: {
      ...(templateAnnotations as Record<string, string>),
      ...bindingAnnotations(key, b),
      [annotations.resourceTemplateGeneration]: String(t.metadata.generation ?? 0),
      [annotations.resourceTemplateUid]: t.metadata.uid ?? '',
      [annotations.workName]: workNameFor(t.kind ?? '', t.metadata.name ?? '', t.metadata.namespace),
      [annotations.workNamespace]: executionNamespaceFor(cluster),
      [annotations.conflictResolution]: conflictResolutionOf(b, t),
    },
  };
}

/**
 * Whether each cluster's copy of the template is revised to the cluster's replicas: the binding
 * has replicas or replica requirements (upstream's `IsWorkload`). Unlike upstream, components
 * alone do not count: a multi-template workload is placed whole, with no replica count per cluster
 * that its templates could be revised to.
 */
export function isWorkloadBinding(b: ResourceBinding): boolean {
  return (b.spec.replicas ?? 0) > 0 || b.spec.replicaRequirements !== undefined;
}

/** The template's spec with the cluster's replicas, for workloads of kinds that have them. */
function specFor(
  b: ResourceBinding,
  t: ResourceTemplate,
  c: TargetCluster,
): Readonly<Record<string, unknown>> | undefined {
  const spec = recordOf(t.spec);
  if (spec === undefined || !isWorkloadBinding(b) || !isReplicatedKind(t.apiVersion, t.kind)) return spec;
  return { ...spec, replicas: c.replicas ?? 0 };
}

/** The member object for cluster `c`: the template pruned, with `c`'s replicas and tracing metadata. */
export function manifestFor(
  key: string,
  b: ResourceBinding,
  t: ResourceTemplate,
  c: TargetCluster,
): Manifest {
  const rest = withoutKeys(t as ResourceTemplate & Record<string, unknown>, ['status', 'spec', 'metadata']);
  const metadata = { ...withoutKeys(t.metadata, PRUNED_METADATA), ...tracingMetadata(key, b, t, c.name) };
  return dropUndefined(
    withoutControlPlaneFields({ ...rest, metadata, ...definedFields({ spec: specFor(b, t, c) }) }),
  );
}

/** JSON round trip: removes `undefined` fields so that comparisons with API objects hold. */
function dropUndefined<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function isDispatchSuspended(b: ResourceBinding, cluster: string): boolean {
  const s = b.spec.suspension;
  return s?.dispatching === true || s?.dispatchingOnClusters?.clusterNames?.includes(cluster) === true;
}

/**
 * The fence timeout the binding's Works carry, in seconds: the binding's
 * `failover.karmada-failover.io/fence-after-seconds`, when valid and when a failover of the binding
 * purges `Directly` (the only purge that waits for the old copies to be gone).
 */
export function fenceSecondsOf(b: ResourceBinding): number | undefined {
  const setting = readFenceSetting(b.metadata.annotations);
  if (setting.kind !== 'on') return undefined;
  const f = b.spec.failover;
  const directly = [f?.cluster?.purgeMode, f?.application?.purgeMode].some(
    (m) => givenPurgeMode(m) === purgeModes.directly,
  );
  return directly ? setting.seconds : undefined;
}

/** Annotations of a Work that the binding controller alone sets, and so removes when not wanted. */
const OWNED_WORK_ANNOTATIONS = [annotations.fenceAfterSeconds] as const;

/** The Work cluster `c` should have. */
export function desiredWork(key: string, b: ResourceBinding, t: ResourceTemplate, c: TargetCluster): Work {
  const idLabel = bindingIdLabel(key);
  const fence = fenceSecondsOf(b);
  return {
    apiVersion: 'work.karmada.io/v1alpha1',
    kind: 'Work',
    metadata: {
      name: workNameFor(t.kind ?? '', t.metadata.name ?? '', t.metadata.namespace),
      namespace: executionNamespaceFor(c.name),
      labels: { [idLabel]: b.metadata.labels?.[idLabel] ?? '' },
      annotations: {
        ...bindingAnnotations(key, b),
        [annotations.conflictResolution]: conflictResolutionOf(b, t),
        ...(fence === undefined ? {} : { [annotations.fenceAfterSeconds]: String(fence) }),
      },
      finalizers: [finalizers.executionController],
    },
    spec: {
      workload: { manifests: [manifestFor(key, b, t, c)] },
      ...(isDispatchSuspended(b, c.name) ? { suspendDispatching: true } : {}),
      preserveResourcesOnDeletion: b.spec.preserveResourcesOnDeletion ?? false,
    },
  };
}

/** The Work with `extra` merged into its workload's labels (stateful failover injection). */
export function withWorkloadLabels(w: Work, extra: Readonly<Record<string, string>> | undefined): Work {
  const [manifest, ...rest] = w.spec.workload?.manifests ?? [];
  if (extra === undefined || manifest === undefined) return w;
  const metadata = (manifest as { metadata?: { labels?: Record<string, string> } }).metadata ?? {};
  const labelled = { ...manifest, metadata: { ...metadata, labels: { ...metadata.labels, ...extra } } };
  return { ...w, spec: { ...w.spec, workload: { manifests: [labelled, ...rest] } } };
}

export type WorkWrite =
  | { readonly kind: 'Create'; readonly work: Work }
  /**
   * A merge patch of what the binding controller owns (labels and annotations it sets, the spec),
   * sent without a resourceVersion: the agent's status writes and anyone else's labels do not make
   * it conflict, and it cannot undo them. `work` is the existing Work with the patch applied.
   */
  | { readonly kind: 'Patch'; readonly patch: object; readonly work: Work }
  /**
   * A whole-object update with the existing resourceVersion: only when a finalizer is missing, since
   * a merge patch replaces the finalizer list and could drop one added meanwhile.
   */
  | { readonly kind: 'Update'; readonly work: Work }
  /** The Work is being deleted (e.g. a Directly purge just finished): retry once it is gone. */
  | { readonly kind: 'WaitForDeletion'; readonly work: Work };

/** What to write so that `existing` becomes `wanted`; undefined when it already is. */
export function planWorkWrite(wanted: Work, existing: Work | undefined): WorkWrite | undefined {
  if (existing === undefined) return { kind: 'Create', work: wanted };
  if (existing.metadata.deletionTimestamp !== undefined) return { kind: 'WaitForDeletion', work: existing };
  const m = existing.metadata;
  const dropped = OWNED_WORK_ANNOTATIONS.filter(
    (k) => m.annotations?.[k] !== undefined && wanted.metadata.annotations?.[k] === undefined,
  );
  const mergedAnnotations = withoutKeys({ ...m.annotations, ...wanted.metadata.annotations }, dropped);
  const merged: Work = {
    ...existing,
    metadata: {
      ...m,
      labels: { ...m.labels, ...wanted.metadata.labels },
      annotations: mergedAnnotations as Record<string, string>,
      finalizers: [...new Set([...(m.finalizers ?? []), ...(wanted.metadata.finalizers ?? [])])],
    },
    spec: wanted.spec,
  };
  const sameLabels = isSameJson(m.labels, merged.metadata.labels);
  const sameAnnotations = isSameJson(m.annotations, merged.metadata.annotations);
  const sameFinalizers = isSameJson(m.finalizers, merged.metadata.finalizers);
  const sameSpec = isSameWorkSpec(existing.spec, wanted.spec);
  if (sameLabels && sameAnnotations && sameFinalizers && sameSpec) return undefined;
  if (!sameFinalizers) return { kind: 'Update', work: merged };
  const patch = {
    ...metadataPatch(wanted, { labels: !sameLabels, annotations: !sameAnnotations }, dropped),
    ...(sameSpec ? {} : { spec: specPatch(existing.spec, wanted.spec) }),
  };
  return { kind: 'Patch', patch, work: merged };
}

/**
 * Whether a Work's spec is the wanted one, also when the Work comes from the shared cache with its
 * manifests reduced to a digest (cached-forms.ts).
 */
function isSameWorkSpec(existing: Work['spec'], wanted: Work['spec']): boolean {
  const digest = compactDigestOf(existing.workload);
  if (digest === undefined) return isSameJson(existing, wanted);
  return (
    isSameJson({ ...existing, workload: undefined }, { ...wanted, workload: undefined }) &&
    digest === manifestsDigest(wanted.workload?.manifests)
  );
}

/**
 * The labels and annotations `wanted` sets, for those that differ, and `dropped` annotations
 * removed; nothing when neither differs.
 */
function metadataPatch(
  wanted: Work,
  differs: { labels: boolean; annotations: boolean },
  dropped: readonly string[],
): object {
  const removals = Object.fromEntries(dropped.map((k) => [k, null]));
  const metadata = {
    ...(differs.labels ? { labels: wanted.metadata.labels } : {}),
    ...(differs.annotations ? { annotations: { ...wanted.metadata.annotations, ...removals } } : {}),
  };
  return Object.keys(metadata).length === 0 ? {} : { metadata };
}

/** `wanted` as a merge patch over `existing`: top-level fields `wanted` lacks are removed (null). */
function specPatch(existing: Work['spec'], wanted: Work['spec']): Record<string, unknown> {
  const removed = Object.keys(existing).filter((k) => !(k in wanted));
  return { ...Object.fromEntries(removed.map((k) => [k, null])), ...wanted };
}
