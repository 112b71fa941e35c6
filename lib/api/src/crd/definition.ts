/** Assembles an apiextensions.k8s.io/v1 CustomResourceDefinition from a kind descriptor. */
import { crdNameOf, type KindDescriptor } from '../kind.ts';
import { obj, str, type Schema, type ValidationRule } from './schema.ts';

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description?: string;
  /** 0 for the default view, 1 for `-o wide` only. */
  readonly priority?: number;
}

export interface CustomResourceDefinitionVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly additionalPrinterColumns?: readonly PrinterColumn[];
  readonly schema: { readonly openAPIV3Schema: Schema };
  readonly subresources?: { readonly status: Readonly<Record<string, never>> };
}

export interface CustomResourceDefinition {
  readonly apiVersion: 'apiextensions.k8s.io/v1';
  readonly kind: 'CustomResourceDefinition';
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly group: string;
    readonly names: {
      readonly kind: string;
      readonly listKind: string;
      readonly plural: string;
      readonly singular: string;
      readonly shortNames?: readonly string[];
      readonly categories: readonly string[];
    };
    readonly scope: 'Namespaced' | 'Cluster';
    readonly versions: readonly CustomResourceDefinitionVersion[];
  };
}

export interface CrdParts {
  /** What the kind is for, one sentence. */
  readonly description: string;
  /** The spec; for a top-level kind, an object whose properties become the top-level fields. */
  readonly spec: Schema;
  /** Unset for kinds without a status (no status field, no status subresource), as upstream. */
  readonly status?: Schema;
  /** Restrictions on metadata.name (the only metadata a CRD schema may restrict). */
  readonly name?: Schema;
  readonly rules?: readonly ValidationRule[];
  readonly columns?: readonly PrinterColumn[];
}

export const ageColumn: PrinterColumn = {
  name: 'AGE',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
};

export function customResourceDefinition(kind: KindDescriptor, parts: CrdParts): CustomResourceDefinition {
  const metadata: Schema =
    parts.name === undefined ? { type: 'object' } : { type: 'object', properties: { name: parts.name } };
  // A top-level kind's fields (and what it requires of them) stand where `spec` would.
  const body = kind.topLevel ? (parts.spec.properties ?? {}) : { spec: parts.spec };
  const required = kind.topLevel ? (parts.spec.required ?? []) : ['spec'];
  const root = obj(
    parts.description,
    {
      apiVersion: str('Versioned schema of this representation of the object.'),
      kind: str('REST resource this object represents.'),
      metadata,
      ...body,
      ...(parts.status === undefined ? {} : { status: parts.status }),
    },
    { required, ...(parts.rules === undefined ? {} : { rules: parts.rules }) },
  );
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdNameOf(kind) },
    spec: {
      group: kind.group,
      names: {
        kind: kind.kind,
        listKind: kind.listKind,
        plural: kind.plural,
        singular: kind.singular,
        ...(kind.shortNames.length > 0 ? { shortNames: kind.shortNames } : {}),
        categories: kind.categories,
      },
      scope: kind.namespaced ? 'Namespaced' : 'Cluster',
      versions: [
        {
          name: kind.version,
          served: true,
          storage: true,
          ...(parts.columns === undefined ? {} : { additionalPrinterColumns: parts.columns }),
          schema: { openAPIV3Schema: root },
          ...(parts.status === undefined ? {} : { subresources: { status: {} } }),
        },
      ],
    },
  };
}
