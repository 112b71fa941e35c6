/**
 * What the dependencies distributor writes for one dependant binding P: an attached binding per
 * dependency object D (created, or merged into the binding D already has), and P's mark removed
 * from the attached bindings it no longer needs.
 *
 * An attached binding (named like D's own binding, in P's namespace, controlled by D) carries
 * P's clusters in `spec.requiredBy` (with those a graceful eviction keeps P's old copy on, see
 * {@link snapshotOf}) and the label {@link dependedByLabel} of P; the binding
 * controller writes D's Works to `spec.clusters` plus every `requiredBy` entry's clusters. Its
 * `conflictResolution` and `preserveResourcesOnDeletion` are those of the bindings requiring it,
 * resolved as upstream does when they disagree: any Overwrite wins over Abort (unset counts as
 * Abort), any true over false; a binding with a placement of its own (D has a policy) keeps its
 * own. Upstream leaves an attached binding that nothing requires any more in place, without
 * target clusters; here it is deleted (its Works go with it), which ends in the same member
 * state without leaving bindings behind.
 */
import {
  finalizers,
  givenPurgeMode,
  isSameJson,
  purgeModes,
  labels,
  type BindingSnapshot,
  type ConflictResolution,
  type ObjectMeta,
  type ResourceBinding,
  type ResourceBindingSpec,
} from '@kf/api';
import { bindingNameFor } from '../../names.ts';
import { definedFields, withoutKeys } from '../defined-fields.ts';
import type { ResourceTemplate } from '../template.ts';
import { dependedByLabel } from './depended-by.ts';

export type AttachedWrite =
  | { readonly kind: 'Create'; readonly binding: ResourceBinding }
  | {
      readonly kind: 'Update';
      readonly binding: ResourceBinding;
      /** Which strategies the requiring bindings disagree on (upstream's DependencyPolicyConflict). */
      readonly conflicts: readonly string[];
    }
  | { readonly kind: 'Delete'; readonly binding: ResourceBinding }
  /** The binding of that name is controlled by another object (D deleted and re-created): wait for GC. */
  | { readonly kind: 'OwnedByOther'; readonly name: string; readonly ownerUid: string };

export interface AttachedPlanInput {
  /** P's namespace and name. */
  readonly namespace: string;
  readonly name: string;
  /** P when it propagates its dependencies now (exists, not deleting, `propagateDeps`); else undefined. */
  readonly parent: ResourceBinding | undefined;
  /** The dependency objects found (ignored without a parent: every attachment is then removed). */
  readonly dependencies: readonly ResourceTemplate[];
  /** The ResourceBindings of P's namespace. */
  readonly bindings: readonly ResourceBinding[];
  /** A binding of P's namespace by name (P itself is taken from `parent`). */
  readonly bindingNamed: (name: string) => ResourceBinding | undefined;
  /**
   * The permanent id of a binding created now (upstream's admission webhook gives every new
   * ResourceBinding a random one); the binding controller finds a binding's Works by it.
   */
  readonly newPermanentId: string;
}

/** Every write that makes P's attachments what `input` calls for, in a stable order. */
export function planAttachedBindings(input: AttachedPlanInput): AttachedWrite[] {
  const wanted = input.parent === undefined ? [] : uniqueObjects(input.dependencies);
  const wantedNames = new Set(wanted.map((d) => attachedNameOf(d)));
  const writes: AttachedWrite[] = [];
  const label = dependedByLabel(input.namespace, input.name);
  for (const b of input.bindings) {
    const name = b.metadata.name ?? '';
    if (wantedNames.has(name) || b.metadata.deletionTimestamp !== undefined) continue;
    if (b.metadata.labels?.[label] === undefined && !isRequiredBy(b, input)) continue;
    writes.push(detach(b, input));
  }
  if (input.parent !== undefined) {
    const parent = input.parent;
    for (const d of wanted) {
      const existing = input.bindingNamed(attachedNameOf(d));
      const write = attach(d, existing, { ...input, parent });
      if (write !== undefined) writes.push(write);
    }
  }
  return writes;
}

function attachedNameOf(d: ResourceTemplate): string {
  return bindingNameFor(d.kind ?? '', d.metadata.name ?? '');
}

/** One object per attached binding name (a label selector and a name may find the same object). */
function uniqueObjects(objects: readonly ResourceTemplate[]): ResourceTemplate[] {
  const byName = new Map<string, ResourceTemplate>();
  for (const o of objects) if (!byName.has(attachedNameOf(o))) byName.set(attachedNameOf(o), o);
  return [...byName.values()].sort((a, b) => (attachedNameOf(a) < attachedNameOf(b) ? -1 : 1));
}

function isRequiredBy(b: ResourceBinding, p: { readonly namespace: string; readonly name: string }): boolean {
  return (b.spec.requiredBy ?? []).some((r) => isEntryOf(r, p));
}

function isEntryOf(r: BindingSnapshot, p: { readonly namespace: string; readonly name: string }): boolean {
  return (r.namespace ?? '') === p.namespace && r.name === p.name;
}

/** P's entry and label removed; deleted when nothing requires it and it has no placement. */
function detach(b: ResourceBinding, input: AttachedPlanInput): AttachedWrite {
  const requiredBy = (b.spec.requiredBy ?? []).filter((r) => !isEntryOf(r, input));
  if (requiredBy.length === 0 && b.spec.placement === undefined) return { kind: 'Delete', binding: b };
  const label = dependedByLabel(input.namespace, input.name);
  const metadata: ObjectMeta = {
    ...b.metadata,
    labels: Object.fromEntries(Object.entries(b.metadata.labels ?? {}).filter(([k]) => k !== label)),
  };
  const kept: ResourceBindingSpec = { ...b.spec, requiredBy };
  const spec = b.spec.placement === undefined ? withStrategies(kept, strategiesOf(requiredBy, input)) : kept;
  return { kind: 'Update', binding: { ...b, metadata, spec }, conflicts: [] };
}

function resourceOf(d: ResourceTemplate): ResourceBindingSpec['resource'] {
  return {
    apiVersion: d.apiVersion ?? '',
    kind: d.kind ?? '',
    ...definedFields({
      namespace: d.metadata.namespace,
      uid: d.metadata.uid,
      resourceVersion: d.metadata.resourceVersion,
    }),
    name: d.metadata.name ?? '',
  };
}

/**
 * P's entry: the clusters P is placed on, and the clusters a graceful eviction still keeps P's old
 * copy on (purge mode other than Directly). Upstream lists the placement only, so the old copy,
 * which serves until its replacement is healthy, loses its ConfigMaps and Secrets at the start of
 * the eviction, and a pod of it that restarts then cannot start.
 */
function snapshotOf(parent: ResourceBinding): BindingSnapshot {
  const placed = parent.spec.clusters ?? [];
  const kept = (parent.spec.gracefulEvictionTasks ?? [])
    .filter((t) => givenPurgeMode(t.purgeMode) !== purgeModes.directly)
    .map((t) => t.fromCluster)
    .filter((name, i, all) => all.indexOf(name) === i && !placed.some((c) => c.name === name));
  return {
    namespace: parent.metadata.namespace ?? '',
    name: parent.metadata.name ?? '',
    ...definedFields({
      clusters: kept.length === 0 ? parent.spec.clusters : [...placed, ...kept.map((name) => ({ name }))],
    }),
  };
}

/** `existing` with `entry` replacing the entry of the same binding, or appended. */
function mergedRequiredBy(existing: readonly BindingSnapshot[], entry: BindingSnapshot): BindingSnapshot[] {
  const key = { namespace: entry.namespace ?? '', name: entry.name };
  if (!existing.some((r) => isEntryOf(r, key))) return [...existing, entry];
  return existing.map((r) => (isEntryOf(r, key) ? entry : r));
}

function attach(
  d: ResourceTemplate,
  existing: ResourceBinding | undefined,
  input: AttachedPlanInput & { readonly parent: ResourceBinding },
): AttachedWrite | undefined {
  const parent = input.parent;
  const mark = {
    [dependedByLabel(input.namespace, input.name)]:
      parent.metadata.labels?.[labels.resourceBindingPermanentId] ?? '',
  };
  if (existing === undefined) {
    const requiredBy = [snapshotOf(parent)];
    const spec = withStrategies({ resource: resourceOf(d), requiredBy }, strategiesOf(requiredBy, input));
    const ids = { ...mark, [labels.resourceBindingPermanentId]: input.newPermanentId };
    return { kind: 'Create', binding: { metadata: newMetadata(d, input.namespace, ids), spec } };
  }
  const owner = existing.metadata.ownerReferences?.find((o) => o.controller === true);
  if (owner !== undefined && d.metadata.uid !== undefined && owner.uid !== d.metadata.uid) {
    return { kind: 'OwnedByOther', name: existing.metadata.name ?? '', ownerUid: owner.uid };
  }
  return mergeInto(existing, { d, mark, input });
}

/** `existing` requiring P's clusters too, with P's mark. */
function mergeInto(
  existing: ResourceBinding,
  want: {
    readonly d: ResourceTemplate;
    readonly mark: Readonly<Record<string, string>>;
    readonly input: AttachedPlanInput & { readonly parent: ResourceBinding };
  },
): AttachedWrite | undefined {
  const requiredBy = mergedRequiredBy(existing.spec.requiredBy ?? [], snapshotOf(want.input.parent));
  const merged: ResourceBindingSpec = { ...existing.spec, requiredBy, resource: resourceOf(want.d) };
  // A binding with a placement belongs to D's own policy, which sets its strategies.
  const own = existing.spec.placement !== undefined;
  const strategies = strategiesOf(requiredBy, want.input);
  const binding: ResourceBinding = {
    ...existing,
    metadata: { ...existing.metadata, labels: { ...existing.metadata.labels, ...want.mark } },
    spec: own ? merged : withStrategies(merged, strategies),
  };
  if (isUpToDate(existing, binding)) return undefined;
  return { kind: 'Update', binding, conflicts: own ? [] : strategies.conflicts };
}

function newMetadata(d: ResourceTemplate, namespace: string, label: Record<string, string>): ObjectMeta {
  return {
    name: attachedNameOf(d),
    namespace,
    labels: label,
    ownerReferences: [
      {
        apiVersion: d.apiVersion ?? '',
        kind: d.kind ?? '',
        name: d.metadata.name ?? '',
        uid: d.metadata.uid ?? '',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
    finalizers: [finalizers.bindingController],
  };
}

interface Strategies {
  /** Undefined when nothing requires the binding any more (upstream clears them). */
  readonly conflictResolution: ConflictResolution | undefined;
  readonly preserveResourcesOnDeletion: boolean | undefined;
  readonly conflicts: readonly string[];
}

/**
 * The strategies of the bindings in `requiredBy` (P from the input, the others looked up; one
 * not found no longer counts: its own cleanup removes its entry).
 */
function strategiesOf(requiredBy: readonly BindingSnapshot[], input: AttachedPlanInput): Strategies {
  const requiring = requiredBy
    .map((r) =>
      input.parent !== undefined && isEntryOf(r, input)
        ? input.parent
        : (r.namespace ?? '') === input.namespace
          ? input.bindingNamed(r.name)
          : undefined,
    )
    .filter((b): b is ResourceBinding => b !== undefined);
  if (requiring.length === 0)
    return { conflictResolution: undefined, preserveResourcesOnDeletion: undefined, conflicts: [] };
  const overwrite = requiring.map((b) => b.spec.conflictResolution === 'Overwrite');
  const preserve = requiring.map((b) => b.spec.preserveResourcesOnDeletion === true);
  const conflicts = [
    ...(overwrite.includes(true) && overwrite.includes(false)
      ? ['ConflictResolution conflicted (Overwrite vs Abort)']
      : []),
    ...(preserve.includes(true) && preserve.includes(false)
      ? ['PreserveResourcesOnDeletion conflicted (true vs false)']
      : []),
  ];
  return {
    conflictResolution: overwrite.includes(true) ? 'Overwrite' : 'Abort',
    preserveResourcesOnDeletion: preserve.includes(true),
    conflicts,
  };
}

function withStrategies(spec: ResourceBindingSpec, s: Strategies): ResourceBindingSpec {
  return {
    ...(withoutKeys(spec, ['conflictResolution', 'preserveResourcesOnDeletion']) as ResourceBindingSpec),
    ...definedFields({
      conflictResolution: s.conflictResolution,
      preserveResourcesOnDeletion: s.preserveResourcesOnDeletion,
    }),
  };
}

/** A change of D's resourceVersion alone is not worth a write (the binding controller watches D). */
function isUpToDate(a: ResourceBinding, b: ResourceBinding): boolean {
  const strip = (x: ResourceBinding): unknown => ({
    labels: x.metadata.labels,
    spec: { ...x.spec, resource: { ...x.spec.resource, resourceVersion: undefined } },
  });
  return isSameJson(strip(a), strip(b));
}
