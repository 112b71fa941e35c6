/**
 * Kind descriptors: everything a generic client, cache or CRD needs to know about one kind.
 * Structural, so they fit any `{ group, version, plural, namespaced }` parameter.
 */

declare const objectType: unique symbol;

export interface KindDescriptor<T = unknown> {
  readonly group: string;
  readonly version: string;
  /** `group/version`. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly namespaced: boolean;
  /**
   * Every top-level `spec` field the kind has, sorted; for a kind without a spec (`topLevel`),
   * its fields beside `metadata`.
   */
  readonly specFields: readonly string[];
  /** The kind's fields sit at the top level, not under `spec` (as in webhook configurations). */
  readonly topLevel: boolean;
  /** Every top-level `status` field the kind has, sorted. */
  readonly statusFields: readonly string[];
  /** Never set: carries the object type so that `list(clusterKind)` can return `Cluster[]`. */
  readonly [objectType]?: T;
}

/** The object type a descriptor stands for. */
export type ObjectOf<D> = D extends KindDescriptor<infer T> ? T : never;

/** A set of every key of T (optional ones included): the compiler rejects missing or unknown keys. */
export type AllKeys<T> = { readonly [K in keyof Required<T>]: true };

type SpecOf<T> = T extends { readonly spec: infer S }
  ? S
  : Omit<T, 'apiVersion' | 'kind' | 'metadata' | 'status'>;
type StatusOf<T> = T extends { readonly status?: infer S } ? NonNullable<S> : never;

export interface KindDefinition<T> {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly shortNames?: readonly string[];
  readonly namespaced: boolean;
  /** The fields sit at the top level, not under `spec` (default false). */
  readonly topLevel?: boolean;
  readonly specFields: AllKeys<SpecOf<T>>;
  /** `{}` for a kind without a status (its object type has `status?: never`). */
  readonly statusFields: [StatusOf<T>] extends [never] ? Record<string, never> : AllKeys<StatusOf<T>>;
}

/** Every Karmada CRD is listed by `kubectl get karmada-io`. */
export const karmadaCategory = 'karmada-io';

/** Builds a frozen descriptor; derived names follow the Kubernetes conventions. */
export function defineKind<T>(def: KindDefinition<T>): KindDescriptor<T> {
  return Object.freeze({
    group: def.group,
    version: def.version,
    apiVersion: `${def.group}/${def.version}`,
    kind: def.kind,
    listKind: `${def.kind}List`,
    plural: def.plural,
    singular: def.kind.toLowerCase(),
    shortNames: Object.freeze([...(def.shortNames ?? [])]),
    categories: Object.freeze([karmadaCategory]),
    namespaced: def.namespaced,
    specFields: Object.freeze(Object.keys(def.specFields).sort()),
    topLevel: def.topLevel === true,
    statusFields: Object.freeze(Object.keys(def.statusFields).sort()),
  });
}

/** `<plural>.<group>`: the name of the kind's CustomResourceDefinition. */
export function crdNameOf(d: Pick<KindDescriptor, 'plural' | 'group'>): string {
  return `${d.plural}.${d.group}`;
}
