export { createResourceInterpreter, ResourceInterpreter } from './resource-interpreter.ts';
export { ScriptInterpreter, type ReplicaResult } from './script-interpreter.ts';
export { CustomizationRegistry, type RegistryChange, type ScriptSource } from './registry.ts';
export {
  LuaVmPool,
  DEFAULT_MEMORY_LIMIT_BYTES,
  DEFAULT_TIMEOUT_MS,
  type PoolStats,
  type VmOptions,
} from './vm-pool.ts';
export { InterpreterScriptError, type InterpreterFailure } from './errors.ts';
export {
  operationRules,
  interpreterOperations,
  type InterpreterOperation,
  type OperationRule,
} from './operations.ts';
export { type DependentObjectReference, dependencyProblems, mergeDependencies } from './dependencies.ts';
export { parseCustomizations } from './yaml.ts';
export type { JsonObject, JsonValue, KubeObject } from './json.ts';
export {
  InterpreterFeed,
  changedTargets,
  isTargeted,
  type CustomizationCache,
  type FedInterpreter,
  type FeedLog,
  type InterpreterFeedOptions,
  type KeySource,
  type TargetKind,
} from './feed.ts';
