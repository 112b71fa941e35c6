/**
 * Karmada's third-party customizations and their test cases, run here as Karmada's own test runs
 * them: every case of a kind's testdata/ folder against every customization of its
 * customizations.yaml, each named result compared with the case's expected output.
 *
 * The comparison follows Karmada's: replica requirements, references and components compare as
 * Go values (unknown fields dropped, quantities by value, references and components in sorted
 * order); objects compare as JSON after removing the fields the expected object marks
 * `{{EXCLUDE}}`; everything else compares as JSON.
 */
import { readFile, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ResourceInterpreterCustomization } from '@kf/api';
import { isDeepStrictEqual } from 'node:util';
import { scriptOutputFolder } from '@kf/testing';
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import { decodeAs, type Schema } from '../convert/go-decode.ts';
import { componentsSchema, dependenciesSchema, replicaRequirementsSchema } from '../convert/schemas.ts';
import { mergeDependencies, type DependentObjectReference } from '../dependencies.ts';
import { type JsonObject, type JsonValue, type KubeObject, isJsonObject } from '../json.ts';
import { parseQuantity } from '../kube/quantity.ts';
import { type InterpreterOperation, interpreterOperations } from '../operations.ts';
import type { ScriptSource } from '../registry.ts';
import type { ScriptInterpreter } from '../script-interpreter.ts';
import { parseCustomizations } from '../yaml.ts';

/** The folder of Karmada's third-party customizations, fetched into the cache if missing. */
export async function thirdPartyCustomizationsFolder(): Promise<string> {
  return join(dirname(await scriptOutputFolder('fetch-karmada.sh')), 'thirdparty');
}

export interface ThirdPartyKind {
  /** e.g. `flink.apache.org/v1beta1/FlinkDeployment`. */
  readonly path: string;
  readonly customizations: readonly ResourceInterpreterCustomization[];
  readonly cases: readonly ThirdPartyCase[];
}

export interface ThirdPartyCase {
  readonly file: string;
  readonly name: string;
  readonly operation: string;
  readonly desiredObj?: KubeObject;
  readonly observedObj?: KubeObject;
  readonly statusItems?: readonly JsonObject[] | null;
  readonly inputReplicas?: number;
  readonly output?: JsonObject;
}

/** Every group/version/Kind folder under `root` that holds a customizations.yaml. */
export async function thirdPartyKinds(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name === 'customizations.yaml')
    .map((e) => e.parentPath.slice(root.length + 1))
    .sort();
}

export async function loadThirdPartyKind(root: string, path: string): Promise<ThirdPartyKind> {
  const folder = join(root, path);
  return loadCustomizationCases(path, join(folder, 'customizations.yaml'), join(folder, 'testdata'));
}

/**
 * A kind whose customizations file and case folder are named freely (a customization shipped as
 * one manifest, its cases kept apart), read as Karmada's third-party folders are.
 */
export async function loadCustomizationCases(
  path: string,
  customizationsFile: string,
  casesFolder: string,
): Promise<ThirdPartyKind> {
  const customizations = parseCustomizations(await readFile(customizationsFile, 'utf8'));
  const files = (await readdir(casesFolder)).sort();
  const cases: ThirdPartyCase[] = [];
  for (const file of files) {
    const text = indentQuotedContinuations(await readFile(join(casesFolder, file), 'utf8'));
    const docs = loadAll(text, { schema: CORE_SCHEMA });
    for (const doc of docs) if (isJsonObject(doc)) cases.push({ ...(doc as object), file } as ThirdPartyCase);
  }
  return { path, customizations, cases };
}

/**
 * Kubernetes' YAML reader accepts a single-quoted value that wraps onto a line indented no deeper
 * than its key (some of Karmada's test files have one); a strict YAML 1.2 reader does not, so
 * such continuation lines are indented under their key first.
 */
export function indentQuotedContinuations(text: string): string {
  const lines = text.split('\n');
  let openIndent: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (openIndent !== undefined) {
      const indent = line.length - line.trimStart().length;
      if (indent <= openIndent) lines[i] = ' '.repeat(openIndent + 2) + line.trimStart();
      if (quoteCount(line) % 2 === 1) openIndent = undefined;
      continue;
    }
    const start = /^(\s*)(?:- )?[^\s:'"#][^:'"#]*: '(.*)$/.exec(line);
    if (start !== null && quoteCount(start[2] ?? '') % 2 === 0) openIndent = (start[1] ?? '').length;
  }
  return lines.join('\n');
}

/** Quotes that open or close a single-quoted scalar (`''` is an escaped quote). */
function quoteCount(text: string): number {
  return (text.replaceAll("''", '').match(/'/g) ?? []).length;
}

/** The script of `customization` for the case's operation (matched case-insensitively). */
export function caseSource(customization: ResourceInterpreterCustomization, c: ThirdPartyCase): ScriptSource {
  const operation = interpreterOperations.find((op) => op.toLowerCase() === c.operation.toLowerCase());
  if (operation === undefined) throw new Error(`${c.file}: unknown operation ${c.operation}`);
  const field = {
    Retain: 'retention',
    InterpretReplica: 'replicaResource',
    ReviseReplica: 'replicaRevision',
    InterpretStatus: 'statusReflection',
    AggregateStatus: 'statusAggregation',
    InterpretHealth: 'healthInterpretation',
    InterpretDependency: 'dependencyInterpretation',
    InterpretComponent: 'componentResource',
  } as const satisfies Record<InterpreterOperation, string>;
  const script = customization.spec.customizations[field[operation]]?.luaScript ?? '';
  const name = customization.metadata.name ?? '';
  return {
    operation,
    customization: name,
    resourceVersion: undefined,
    script,
    key: `${name}/${operation}/${script}`,
  };
}

type CaseRunner = (
  scripts: ScriptInterpreter,
  source: ScriptSource,
  c: ThirdPartyCase,
) => [string, unknown][];

const objectOf = (c: ThirdPartyCase): KubeObject => c.desiredObj ?? c.observedObj ?? {};

/** Each operation's results, named as Karmada's test runner names them. */
const CASE_RUNNERS: Readonly<Record<InterpreterOperation, CaseRunner>> = {
  InterpretHealth: (s, source, c) => [['healthy', s.interpretHealth(source, objectOf(c))]],
  InterpretReplica: (s, source, c) => {
    const { replicas, requirements } = s.getReplicas(source, objectOf(c));
    return [
      ['replica', replicas],
      ['requires', requirements ?? null],
    ];
  },
  ReviseReplica: (s, source, c) => [['revised', s.reviseReplica(source, objectOf(c), c.inputReplicas ?? 0)]],
  Retain: (s, source, c) => [['retained', s.retain(source, c.desiredObj ?? {}, c.observedObj ?? {})]],
  AggregateStatus: (s, source, c) => [
    ['aggregatedStatus', s.aggregateStatus(source, objectOf(c), (c.statusItems ?? undefined) as never)],
  ],
  InterpretStatus: (s, source, c) => [['status', s.reflectStatus(source, objectOf(c))]],
  InterpretDependency: (s, source, c) => [
    ['dependencies', mergeDependencies([s.getDependencies(source, objectOf(c))])],
  ],
  InterpretComponent: (s, source, c) => [['components', s.getComponents(source, objectOf(c))]],
};

/** The named results of one case. */
export function runCase(
  scripts: ScriptInterpreter,
  source: ScriptSource,
  c: ThirdPartyCase,
): Map<string, unknown> {
  return new Map(CASE_RUNNERS[source.operation](scripts, source, c));
}

/** The first difference between a case's expected output and `results`, or undefined when they agree. */
export function caseMismatch(c: ThirdPartyCase, results: ReadonlyMap<string, unknown>): string | undefined {
  for (const [name, expected] of Object.entries(c.output ?? {})) {
    if (!results.has(name)) return `output ${name} is expected but the operation has no such result`;
    const actual = results.get(name);
    if (!resultEquals(name, expected, actual)) {
      return `${name}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
    }
  }
  return undefined;
}

const TYPED: Readonly<Record<string, Schema>> = {
  requires: replicaRequirementsSchema,
  dependencies: dependenciesSchema,
  components: componentsSchema,
};

function resultEquals(name: string, expected: JsonValue, actual: unknown): boolean {
  const schema = TYPED[name];
  if (schema !== undefined) {
    if (expected === null || actual === null) return expected === actual;
    return isDeepStrictEqual(goValue(expected, schema, name), goValue(actual as JsonValue, schema, name));
  }
  if (isJsonObject(expected) && (name === 'retained' || name === 'revised' || name === 'aggregatedStatus')) {
    const excluded = new Set<string>();
    const want = withoutExcluded(expected, [], excluded, true);
    const got = withoutExcluded(actual as JsonValue, [], excluded, false);
    return isDeepStrictEqual(want, got);
  }
  return isDeepStrictEqual(normalize(expected), normalize(actual as JsonValue));
}

/** A typed result as Go compares it: decoded, quantities as exact values, lists sorted. */
function goValue(value: JsonValue, schema: Schema, name: string): unknown {
  const decoded = normalize(quantitiesAsValues(decodeAs(value, schema) ?? null));
  if (name === 'dependencies') return mergeDependencies([decoded as unknown as DependentObjectReference[]]);
  if (name === 'components' && Array.isArray(decoded)) {
    const nameOf = (component: JsonValue): string =>
      isJsonObject(component) && typeof component.name === 'string' ? component.name : '';
    return [...decoded].sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
  }
  return decoded;
}

function quantitiesAsValues(value: JsonValue, key = ''): JsonValue {
  if (Array.isArray(value)) return value.map((v) => quantitiesAsValues(v));
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = key === 'resourceRequest' && typeof v === 'string' ? exactValue(v) : quantitiesAsValues(v, k);
  }
  return out;
}

function exactValue(text: string): string {
  const q = parseQuantity(text);
  let { mantissa, exponent } = q;
  while (mantissa !== 0n && mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  return `${mantissa}e${mantissa === 0n ? 0 : exponent}`;
}

/** Removes fields marked `{{EXCLUDE}}` in the expected object, and the same paths in the actual one. */
function withoutExcluded(
  value: JsonValue,
  path: readonly string[],
  excluded: Set<string>,
  collecting: boolean,
): JsonValue {
  if (Array.isArray(value))
    return value.map((v, i) => withoutExcluded(v, [...path, String(i)], excluded, collecting));
  if (!isJsonObject(value)) return normalize(value);
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    const key = [...path, k].join('.');
    if (collecting && v === '{{EXCLUDE}}') {
      excluded.add(key);
      continue;
    }
    if (!collecting && excluded.has(key)) continue;
    out[k] = withoutExcluded(v, [...path, k], excluded, collecting);
  }
  return out;
}

/** JSON without key order or -0, so that equal JSON compares equal. */
function normalize(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(normalize);
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value).sort()) out[key] = normalize(value[key] ?? null);
    return out;
  }
  return Object.is(value, -0) ? 0 : value;
}
