/**
 * The operations a ResourceInterpreterCustomization may script: the field of `customizations`
 * that holds each script and the global function the script must define.
 */
import type { CustomizationRules } from '@kf/api';

export type InterpreterOperation =
  | 'Retain'
  | 'InterpretReplica'
  | 'ReviseReplica'
  | 'InterpretStatus'
  | 'AggregateStatus'
  | 'InterpretHealth'
  | 'InterpretDependency'
  | 'InterpretComponent';

export interface OperationRule {
  readonly field: keyof CustomizationRules;
  readonly entry: string;
  /** How the entry function is declared, for messages that say what to write. */
  readonly signature: string;
}

export const operationRules: Readonly<Record<InterpreterOperation, OperationRule>> = {
  Retain: { field: 'retention', entry: 'Retain', signature: 'Retain(desiredObj, observedObj)' },
  InterpretReplica: { field: 'replicaResource', entry: 'GetReplicas', signature: 'GetReplicas(desiredObj)' },
  ReviseReplica: {
    field: 'replicaRevision',
    entry: 'ReviseReplica',
    signature: 'ReviseReplica(desiredObj, desiredReplica)',
  },
  InterpretStatus: {
    field: 'statusReflection',
    entry: 'ReflectStatus',
    signature: 'ReflectStatus(observedObj)',
  },
  AggregateStatus: {
    field: 'statusAggregation',
    entry: 'AggregateStatus',
    signature: 'AggregateStatus(desiredObj, statusItems)',
  },
  InterpretHealth: {
    field: 'healthInterpretation',
    entry: 'InterpretHealth',
    signature: 'InterpretHealth(observedObj)',
  },
  InterpretDependency: {
    field: 'dependencyInterpretation',
    entry: 'GetDependencies',
    signature: 'GetDependencies(desiredObj)',
  },
  InterpretComponent: {
    field: 'componentResource',
    entry: 'GetComponents',
    signature: 'GetComponents(desiredObj)',
  },
};

export const interpreterOperations = Object.keys(operationRules) as readonly InterpreterOperation[];
