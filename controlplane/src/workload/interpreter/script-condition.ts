/**
 * How a failing customization script shows on a binding. Karmada reports such failures only as
 * Events (GetReplicasFailed on the template, SyncWorkFailed and AggregateStatusFailed), which
 * expire and say nothing about whether the script still fails. Here each scripted step also keeps
 * a condition of its own on the binding, owned by the one controller that runs that step:
 *
 * | Step            | Condition type            | Controller               | Event on failure      |
 * | --------------- | ------------------------- | ------------------------ | --------------------- |
 * | GetReplicas     | `ReplicasInterpreted`     | resource-detector        | GetReplicasFailed     |
 * | GetComponents   | `ReplicasInterpreted`     | resource-detector        | GetComponentsFailed   |
 * | ReviseReplica   | `ReplicasRevised`         | binding                  | SyncWorkFailed        |
 * | AggregateStatus | `StatusAggregated`        | binding-status           | AggregateStatusFailed |
 * | GetDependencies | `DependenciesInterpreted` | dependencies-distributor | GetDependenciesFailed |
 *
 * True while the kind's script works, False (reason `<Step>Failed`, the script's error as the
 * message) while it fails, absent when no customization scripts the step for the kind. The Event
 * goes out when the condition turns False or its message changes, so a script that keeps failing
 * is reported once, not on every retry.
 *
 * GetComponents (InterpretComponent, gate MultiplePodTemplatesScheduling) stands in for
 * GetReplicas where it applies, so the two share one condition: it says how the workload's size
 * was found and whether that still works, whichever script found it.
 */
import { findCondition, removeCondition, setCondition, type Condition } from '@kf/api';
import { InterpreterScriptError, type ResourceInterpreter } from '@kf/interpreter';

export type ScriptStep =
  'GetReplicas' | 'GetComponents' | 'ReviseReplica' | 'AggregateStatus' | 'GetDependencies';

interface StepNames {
  readonly type: string;
  readonly failedReason: string;
  readonly succeededReason: string;
  readonly succeededMessage: string;
  /** Reason of the Warning Event, as upstream names the failure. */
  readonly eventReason: string;
}

export const SCRIPT_CONDITIONS: Readonly<Record<ScriptStep, StepNames>> = {
  GetReplicas: {
    type: 'ReplicasInterpreted',
    failedReason: 'GetReplicasFailed',
    succeededReason: 'GetReplicasSucceed',
    succeededMessage: 'Replicas and replica requirements come from the InterpretReplica script.',
    eventReason: 'GetReplicasFailed',
  },
  GetComponents: {
    type: 'ReplicasInterpreted',
    failedReason: 'GetComponentsFailed',
    succeededReason: 'GetComponentsSucceed',
    succeededMessage: "The workload's components come from the InterpretComponent script.",
    eventReason: 'GetComponentsFailed',
  },
  ReviseReplica: {
    type: 'ReplicasRevised',
    failedReason: 'ReviseReplicaFailed',
    succeededReason: 'ReviseReplicaSucceed',
    succeededMessage: "Each cluster's replicas were set by the ReviseReplica script.",
    eventReason: 'SyncWorkFailed',
  },
  AggregateStatus: {
    type: 'StatusAggregated',
    failedReason: 'AggregateStatusFailed',
    succeededReason: 'AggregateStatusSucceed',
    succeededMessage: "The template's status was aggregated by the AggregateStatus script.",
    eventReason: 'AggregateStatusFailed',
  },
  GetDependencies: {
    type: 'DependenciesInterpreted',
    failedReason: 'GetDependenciesFailed',
    succeededReason: 'GetDependenciesSucceed',
    succeededMessage: "The workload's dependencies come from the InterpretDependency scripts.",
    eventReason: 'GetDependenciesFailed',
  },
};

/** What running a step's script came to: no script for the kind, a result, or a script error. */
export type ScriptOutcome<T> =
  | { readonly kind: 'none' }
  | { readonly kind: 'succeeded'; readonly value: T }
  | { readonly kind: 'failed'; readonly message: string };

/**
 * Runs `call` on the interpreter: `none` when there is no interpreter or `call` answers undefined
 * (no script for the kind), `failed` when a script failed. Any other error is not the script's
 * and propagates.
 */
export function runScript<T>(
  interpreter: ResourceInterpreter | undefined,
  call: (i: ResourceInterpreter) => T | undefined,
): ScriptOutcome<T> {
  if (interpreter === undefined) return { kind: 'none' };
  try {
    const value = call(interpreter);
    return value === undefined ? { kind: 'none' } : { kind: 'succeeded', value };
  } catch (err: unknown) {
    if (err instanceof InterpreterScriptError) return { kind: 'failed', message: err.message };
    throw err;
  }
}

export interface ScriptConditionPlan {
  readonly conditions: readonly Condition[];
  /** A Warning Event to record once the conditions are written. */
  readonly event?: { readonly reason: string; readonly message: string };
}

/** The binding's conditions for `outcome` of `step`; undefined when they already say so. */
export function planScriptCondition(
  conditions: readonly Condition[] | undefined,
  step: ScriptStep,
  outcome: ScriptOutcome<unknown>,
  nowMs: number,
): ScriptConditionPlan | undefined {
  const names = SCRIPT_CONDITIONS[step];
  const existing = findCondition(conditions, names.type);
  if (outcome.kind === 'none') {
    return existing === undefined ? undefined : { conditions: removeCondition(conditions, names.type) };
  }
  const update =
    outcome.kind === 'failed'
      ? { type: names.type, status: 'False' as const, reason: names.failedReason, message: outcome.message }
      : {
          type: names.type,
          status: 'True' as const,
          reason: names.succeededReason,
          message: names.succeededMessage,
        };
  if (
    existing?.status === update.status &&
    existing.reason === update.reason &&
    existing.message === update.message
  ) {
    return undefined;
  }
  const next = setCondition(conditions, update, nowMs);
  return outcome.kind === 'failed'
    ? { conditions: next, event: { reason: names.eventReason, message: outcome.message } }
    : { conditions: next };
}
