import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAllYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { allKinds } from './all-kinds.ts';
import {
  crdFileName,
  customResourceDefinitions,
  renderCrdFile,
  type CustomResourceDefinition,
  type Schema,
} from './crd/index.ts';
import { crdNameOf, type KindDescriptor } from './kind.ts';

const crdDir = join(import.meta.dirname, '..', '..', '..', 'deploy', 'crds');
const files = readdirSync(crdDir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const generated = new Map(customResourceDefinitions().map((crd) => [crdFileName(crd), crd]));
const fileOf = (kind: KindDescriptor): string => `${kind.group}_${kind.plural}.yaml`;
const readCrd = (file: string): string => readFileSync(join(crdDir, file), 'utf8');

function parsedCrd(kind: KindDescriptor): V1CustomResourceDefinition {
  const [doc] = loadAllYaml(readCrd(fileOf(kind))) as V1CustomResourceDefinition[];
  if (doc === undefined) throw new Error(`${fileOf(kind)} is empty`);
  return doc;
}

function generatedCrd(file: string): CustomResourceDefinition {
  const crd = generated.get(file);
  if (crd === undefined) throw new Error(`no kind produces ${file}`);
  return crd;
}

describe('deploy/crds', () => {
  it('holds one <group>_<plural>.yaml per kind and nothing else', () => {
    expect(files).toEqual(allKinds.map(fileOf).sort());
    expect([...generated.keys()].sort()).toEqual(files);
  });

  it.each(files)('%s is what lib/api/src/crd renders (run write-crds-main.ts after editing)', (file) => {
    expect(readCrd(file)).toBe(renderCrdFile(generatedCrd(file)));
  });

  it.each(files)('%s parses to exactly the object it was rendered from', (file) => {
    const docs = loadAllYaml(readCrd(file));
    expect(docs).toHaveLength(1);
    expect(docs).toEqual(loadAllYaml(JSON.stringify(generatedCrd(file))));
  });
});

describe.each(allKinds.map((k) => [k.kind, k] as const))('the %s CRD', (_name, kind) => {
  const crd = parsedCrd(kind);
  const [version] = crd.spec.versions;
  const root = version?.schema?.openAPIV3Schema;
  // A top-level kind's fields stand beside metadata, where others have spec.
  const specProps = kind.topLevel
    ? Object.keys(root?.properties ?? {})
        .filter((p) => !['apiVersion', 'kind', 'metadata', 'status'].includes(p))
        .sort()
    : Object.keys(root?.properties?.['spec']?.properties ?? {}).sort();
  const statusProps = Object.keys(root?.properties?.['status']?.properties ?? {}).sort();

  it('is named, grouped and scoped as the kind descriptor says', () => {
    expect(crd.metadata?.name).toBe(crdNameOf(kind));
    expect(crd.spec.group).toBe(kind.group);
    expect(crd.spec.scope).toBe(kind.namespaced ? 'Namespaced' : 'Cluster');
    expect(crd.spec.names).toEqual({
      kind: kind.kind,
      listKind: kind.listKind,
      plural: kind.plural,
      singular: kind.singular,
      ...(kind.shortNames.length > 0 ? { shortNames: kind.shortNames } : {}),
      categories: kind.categories,
    });
  });

  it('serves one version, the descriptor version, which is also the storage version', () => {
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([[kind.version, true, true]]);
  });

  it('has a status subresource exactly when it has status fields, and requires spec', () => {
    if (kind.statusFields.length > 0) expect(version?.subresources?.status).toEqual({});
    else {
      expect(version?.subresources).toBeUndefined();
      expect(root?.properties?.['status']).toBeUndefined();
    }
    expect(root?.required).toEqual(kind.topLevel ? kind.specFields : ['spec']);
  });

  it('declares exactly the spec fields of the descriptor', () => {
    expect(specProps).toEqual(kind.specFields);
  });

  it('declares exactly the status fields of the descriptor', () => {
    expect(statusProps).toEqual(kind.statusFields);
  });

  it('prints columns that point at declared fields', () => {
    const schema = generatedCrd(fileOf(kind)).spec.versions[0]?.schema.openAPIV3Schema ?? {};
    const missing = (version?.additionalPrinterColumns ?? [])
      .map((c) => c.jsonPath)
      .filter((path) => path !== '.metadata.creationTimestamp' && !hasPath(schema, path));
    expect(missing).toEqual([]);
  });
});

/** Follows `.a.b[*].c` / `.a[?(@.x=="y")].b` through properties and array items. */
function hasPath(schema: Schema, jsonPath: string): boolean {
  const steps = jsonPath
    .replace(/\[\?\(.*?\)\]|\[\*\]/g, '')
    .split('.')
    .filter((s) => s !== '');
  let node: Schema | undefined = schema;
  for (const step of steps) {
    while (node?.items !== undefined) node = node.items;
    if (node?.['x-kubernetes-preserve-unknown-fields'] === true) return true;
    node = node?.properties?.[step];
  }
  return node !== undefined;
}

/** The schemas under `node`, with their paths: properties, list items, map values. */
function childrenOf(node: Schema, path: string): [string, Schema][] {
  return [
    ...Object.entries(node.properties ?? {}).map(([k, v]): [string, Schema] => [`${path}.${k}`, v]),
    ...(node.items === undefined ? [] : [[`${path}[]`, node.items] as [string, Schema]]),
    ...(node.additionalProperties === undefined
      ? []
      : [[`${path}{}`, node.additionalProperties] as [string, Schema]]),
  ];
}

/** Problems that would make the API server reject the CRD, or make a rule unusable. */
function structuralProblems(node: Schema, path: string): string[] {
  const problems = [
    ...typeProblems(node, path),
    ...requiredProblems(node, path),
    ...listMapProblems(node, path),
    ...ruleProblems(node, path),
    ...enumProblems(node, path),
  ];
  return [...problems, ...childrenOf(node, path).flatMap(([p, child]) => structuralProblems(child, p))];
}

function typeProblems(node: Schema, path: string): string[] {
  if (node.type === undefined && node['x-kubernetes-int-or-string'] !== true) return [`${path}: no type`];
  if (node.type === 'array' && node.items === undefined) return [`${path}: array without items`];
  if (node['x-kubernetes-embedded-resource'] === true && node.type !== 'object') {
    return [`${path}: embedded resource that is not an object`];
  }
  return [];
}

function requiredProblems(node: Schema, path: string): string[] {
  return (node.required ?? [])
    .filter((r) => node.properties?.[r] === undefined)
    .map((r) => `${path}: requires undeclared ${r}`);
}

function listMapProblems(node: Schema, path: string): string[] {
  if (node['x-kubernetes-list-type'] !== 'map') return [];
  const item = node.items;
  return (node['x-kubernetes-list-map-keys'] ?? ['<none>'])
    .filter((k) => item?.properties?.[k] === undefined || !(item.required ?? []).includes(k))
    .map((k) => `${path}: list map key ${k} is not a required item property`);
}

function ruleProblems(node: Schema, path: string): string[] {
  const rules = node['x-kubernetes-validations'] ?? [];
  const unbounded =
    node.type === 'array' && rules.length > 0 && node.maxItems === undefined
      ? [`${path}: array with CEL rules needs maxItems`]
      : [];
  const badPaths = rules
    .filter((r) => r.fieldPath !== undefined && !hasPath(node, r.fieldPath))
    .map((r) => `${path}: rule fieldPath ${r.fieldPath ?? ''} names no field`);
  const noMessage = rules.filter((r) => r.message === '').map(() => `${path}: rule without message`);
  return [...unbounded, ...badPaths, ...noMessage];
}

function enumProblems(node: Schema, path: string): string[] {
  const values = node.enum;
  const problems: string[] = [];
  if (values !== undefined && new Set(values).size !== values.length)
    problems.push(`${path}: repeated enum value`);
  if (values !== undefined && node.default !== undefined && !values.includes(node.default as string)) {
    problems.push(`${path}: default ${JSON.stringify(node.default)} not in enum`);
  }
  if (node.pattern !== undefined) {
    try {
      new RegExp(node.pattern, 'u');
    } catch {
      problems.push(`${path}: pattern does not compile`);
    }
  }
  return problems;
}

/**
 * Spec fields users write with no upper bound: a list without maxItems, a map without
 * maxProperties, a free string without maxLength. Objects kept as written (embedded manifests)
 * and quantities (bounded by their pattern's shape) are not looked into.
 */
function unboundedFields(node: Schema, path: string): string[] {
  if (node['x-kubernetes-preserve-unknown-fields'] === true || node['x-kubernetes-int-or-string'] === true)
    return [];
  const own =
    (node.type === 'array' && node.maxItems === undefined) ||
    (node.additionalProperties !== undefined && node.maxProperties === undefined) ||
    (node.type === 'string' &&
      node.maxLength === undefined &&
      node.enum === undefined &&
      node.format !== 'date-time')
      ? [path]
      : [];
  return [...own, ...childrenOf(node, path).flatMap(([p, child]) => unboundedFields(child, p))];
}

/** Kinds whose whole spec users write (bindings and Works are written by the control plane). */
const userWrittenKinds = allKinds.filter((k) => k.group !== 'work.karmada.io');

describe.each(userWrittenKinds.map((k) => [k.kind, k] as const))('the %s spec', (_name, kind) => {
  it('bounds every list, map and free string', () => {
    const root = generatedCrd(fileOf(kind)).spec.versions[0]?.schema.openAPIV3Schema;
    const fields = kind.topLevel
      ? kind.specFields.map((f) => unboundedFields(root?.properties?.[f] ?? {}, `.${f}`))
      : [unboundedFields(root?.properties?.['spec'] ?? {}, '.spec')];
    expect(fields.flat()).toEqual([]);
  });
});

describe.each([...generated.entries()])('the schema in %s', (_file, crd) => {
  it('is structural: typed nodes, declared required fields, keyed list maps, bounded and well-aimed rules', () => {
    const schema = crd.spec.versions[0]?.schema.openAPIV3Schema ?? {};
    expect(structuralProblems(schema, '')).toEqual([]);
  });
});
