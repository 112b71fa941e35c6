/**
 * Health and reflected status of one member object: from the scripts of its kind's
 * ResourceInterpreterCustomization when there are some (they override the built-in rules), else
 * from the built-in rules. A script that fails is a verdict too, never an exception: the health is
 * Unknown, the status is left out, and the failure is returned for the controller to report.
 */
import type { ResourceHealth } from '@kf/api';
import type { MemberInterpreter } from '../../interpreter/customizations.ts';
import type { MemberObject } from '../execution/manifest-plan.ts';
import { interpretHealth } from './interpret-health.ts';
import { reflectStatus } from './reflect-status.ts';

type Json = Readonly<Record<string, unknown>>;

/** The scripts judged here, by the operation names of upstream's interpreter. */
export type JudgingOperation = 'InterpretHealth' | 'InterpretStatus';

export interface ScriptFailure {
  readonly operation: JudgingOperation;
  readonly message: string;
}

export interface ObjectVerdict {
  readonly health: ResourceHealth;
  readonly status?: Json;
  readonly failures: readonly ScriptFailure[];
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function healthOf(obj: MemberObject, scripts: MemberInterpreter | undefined): ObjectVerdict {
  let scripted: boolean | undefined;
  try {
    scripted = scripts?.interpretHealth(obj);
  } catch (err: unknown) {
    return { health: 'Unknown', failures: [{ operation: 'InterpretHealth', message: messageOf(err) }] };
  }
  if (scripted === undefined) return { health: interpretHealth(obj), failures: [] };
  return { health: scripted ? 'Healthy' : 'Unhealthy', failures: [] };
}

type StatusVerdict = { readonly status?: Json; readonly failure?: ScriptFailure };

function statusOf(obj: MemberObject, scripts: MemberInterpreter | undefined): StatusVerdict {
  let scripted: unknown;
  try {
    scripted = scripts?.reflectStatus(obj);
  } catch (err: unknown) {
    return { failure: { operation: 'InterpretStatus', message: messageOf(err) } };
  }
  if (scripted === undefined) {
    const builtIn = reflectStatus(obj);
    return builtIn === undefined ? {} : { status: builtIn };
  }
  // nil: the script reflects nothing, as upstream leaves the status out.
  if (scripted === null) return {};
  if (typeof scripted === 'object' && !Array.isArray(scripted)) return { status: scripted as Json };
  return {
    failure: {
      operation: 'InterpretStatus',
      message: `the ReflectStatus script returned ${Array.isArray(scripted) ? 'a list' : typeof scripted}, not a table of fields: a manifest's status is an object`,
    },
  };
}

export function judgeObject(obj: MemberObject, scripts: MemberInterpreter | undefined): ObjectVerdict {
  const health = healthOf(obj, scripts);
  const { status, failure } = statusOf(obj, scripts);
  return {
    health: health.health,
    ...(status === undefined ? {} : { status }),
    failures: failure === undefined ? health.failures : [...health.failures, failure],
  };
}
