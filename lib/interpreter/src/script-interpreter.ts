/**
 * The eight operations as typed calls of one script, with Karmada's rules for what each function
 * must return:
 *
 * - InterpretHealth → a boolean.
 * - GetReplicas → a number (truncated to an int32) and a table of replica requirements or nil.
 * - ReviseReplica, Retain, AggregateStatus → an object with a kind.
 * - ReflectStatus → a table (the status, any JSON).
 * - GetDependencies → a table of references, each checked.
 * - GetComponents → a table of components, or nil for none.
 *
 * Tables are read into Karmada's Go types (see convert/), empty tables settled against the
 * objects the script was given, and anything else is an InterpreterScriptError of reason
 * `result` that says what the function should return.
 */
import type { AggregatedStatusItem, Component, ReplicaRequirements } from '@kf/api';
import { settleEmptyTables, type ResultShape } from './convert/empty-fields.ts';
import { DecodeError, decodeAs, type Schema } from './convert/go-decode.ts';
import { componentsSchema, dependenciesSchema, replicaRequirementsSchema } from './convert/schemas.ts';
import { type DependentObjectReference, dependencyProblems } from './dependencies.ts';
import { InterpreterScriptError } from './errors.ts';
import { type JsonObject, type JsonValue, type KubeObject, isJsonObject } from './json.ts';
import type { LuaResult } from './lua/sandbox.ts';
import type { InterpreterOperation } from './operations.ts';
import type { ScriptSource } from './registry.ts';
import { LuaVmPool, type VmOptions } from './vm-pool.ts';

export interface ReplicaResult {
  readonly replicas: number;
  readonly requirements?: ReplicaRequirements;
}

export class ScriptInterpreter {
  readonly pool: LuaVmPool;

  static async create(options: VmOptions = {}): Promise<ScriptInterpreter> {
    return new ScriptInterpreter(await LuaVmPool.create(options));
  }

  constructor(pool: LuaVmPool) {
    this.pool = pool;
  }

  interpretHealth(source: ScriptSource, observed: KubeObject): boolean {
    const [health] = this.run(source, 'InterpretHealth', [observed], 1);
    if (health?.type !== 'boolean') {
      throw resultError(
        source,
        `InterpretHealth must return a boolean (true when healthy), got ${typeOf(health)}`,
      );
    }
    return health.json === true;
  }

  getReplicas(source: ScriptSource, desired: KubeObject): ReplicaResult {
    const [replica, requires] = this.run(source, 'InterpretReplica', [desired], 2);
    if (replica?.type !== 'number' || typeof replica.json !== 'number') {
      throw resultError(
        source,
        `GetReplicas must return the number of replicas first, got ${typeOf(replica)}`,
      );
    }
    const replicas = Math.trunc(replica.json);
    if (replicas < -(2 ** 31) || replicas >= 2 ** 31) {
      throw resultError(
        source,
        `GetReplicas returned ${replica.json} replicas, which is out of the int32 range`,
      );
    }
    if (requires === undefined || requires.type === 'nil') return { replicas };
    if (requires.type !== 'table') {
      throw resultError(
        source,
        `GetReplicas must return a table of replica requirements or nil second, got ${requires.type}`,
      );
    }
    const requirements = decoded(source, table(source, requires), 'object', replicaRequirementsSchema);
    return { replicas, requirements: requirements as unknown as ReplicaRequirements };
  }

  reviseReplica(source: ScriptSource, desired: KubeObject, replicas: number): KubeObject {
    const [revised] = this.run(source, 'ReviseReplica', [desired, Math.trunc(replicas)], 1);
    return objectResult(source, 'ReviseReplica', revised, [desired]);
  }

  retain(source: ScriptSource, desired: KubeObject, observed: KubeObject): KubeObject {
    const [retained] = this.run(source, 'Retain', [desired, observed], 1);
    return objectResult(source, 'Retain', retained, [desired, observed]);
  }

  /** `items` undefined reaches the script as nil, an empty list as an empty table. */
  aggregateStatus(
    source: ScriptSource,
    desired: KubeObject,
    items: readonly AggregatedStatusItem[] | undefined,
  ): KubeObject {
    const [aggregated] = this.run(source, 'AggregateStatus', [desired, items?.map(statusItemForLua)], 1);
    return objectResult(source, 'AggregateStatus', aggregated, []);
  }

  reflectStatus(source: ScriptSource, observed: KubeObject): JsonValue {
    const [status] = this.run(source, 'InterpretStatus', [observed], 1);
    if (status?.type !== 'table')
      throw resultError(source, `ReflectStatus must return a table, got ${typeOf(status)}`);
    return settleEmptyTables(table(source, status), 'object');
  }

  /** One script's references, checked; merging several scripts' is the caller's. */
  getDependencies(source: ScriptSource, desired: KubeObject): DependentObjectReference[] {
    const [dependencies] = this.run(source, 'InterpretDependency', [desired], 1);
    if (dependencies?.type !== 'table') {
      throw resultError(
        source,
        `GetDependencies must return a table of references, got ${typeOf(dependencies)}`,
      );
    }
    const refs = decoded(
      source,
      table(source, dependencies),
      'list',
      dependenciesSchema,
    ) as unknown as DependentObjectReference[];
    const problems = dependencyProblems(refs);
    if (problems.length > 0)
      throw resultError(source, `GetDependencies returned invalid references: ${problems.join('; ')}`);
    return refs;
  }

  getComponents(source: ScriptSource, desired: KubeObject): Component[] {
    const [components] = this.run(source, 'InterpretComponent', [desired], 1);
    if (components === undefined || components.type === 'nil') return [];
    if (components.type !== 'table') {
      throw resultError(
        source,
        `GetComponents must return a table of components or nil, got ${components.type}`,
      );
    }
    return decoded(source, table(source, components), 'list', componentsSchema) as unknown as Component[];
  }

  private run(
    source: ScriptSource,
    operation: InterpreterOperation,
    args: readonly unknown[],
    nresults: number,
  ): readonly LuaResult[] {
    if (source.operation !== operation) {
      throw new TypeError(`${source.customization}'s ${source.operation} script cannot run as ${operation}`);
    }
    return this.pool.run(source, args, nresults);
  }
}

/** The fields Karmada marshals for a status item: zero values left out, the cluster name kept. */
function statusItemForLua(item: AggregatedStatusItem): JsonObject {
  const out: JsonObject = { clusterName: item.clusterName };
  if (item.status !== undefined) out.status = item.status as JsonObject;
  if (item.applied === true) out.applied = true;
  if (item.appliedMessage !== undefined && item.appliedMessage !== '')
    out.appliedMessage = item.appliedMessage;
  if (item.health !== undefined) out.health = item.health;
  return out;
}

function typeOf(result: LuaResult | undefined): string {
  return result?.type ?? 'nothing';
}

function resultError(source: ScriptSource, detail: string): InterpreterScriptError {
  return new InterpreterScriptError(source.operation, source.customization, 'result', detail);
}

function table(source: ScriptSource, result: LuaResult): JsonValue {
  if (result.json === undefined) {
    throw resultError(
      source,
      `the returned table cannot be read as JSON: ${result.notJson ?? 'unknown value'}`,
    );
  }
  return result.json;
}

function decoded(source: ScriptSource, value: JsonValue, shape: ResultShape, schema: Schema): JsonValue {
  try {
    return decodeAs(settleEmptyTables(value, shape), schema) ?? (shape === 'list' ? [] : {});
  } catch (error) {
    if (error instanceof DecodeError)
      throw resultError(source, `the returned table does not fit: ${error.message}`);
    throw error;
  }
}

function objectResult(
  source: ScriptSource,
  entry: string,
  result: LuaResult | undefined,
  references: readonly unknown[],
): KubeObject {
  if (result?.type !== 'table')
    throw resultError(source, `${entry} must return the object, got ${typeOf(result)}`);
  const object = settleEmptyTables(table(source, result), 'object', references);
  if (!isJsonObject(object) || typeof object.kind !== 'string' || object.kind === '') {
    throw resultError(source, `${entry} must return an object with its kind (Object 'Kind' is missing)`);
  }
  return object;
}
