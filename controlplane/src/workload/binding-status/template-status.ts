/**
 * The status a template gets from its clusters' status items. A kind with an AggregateStatus
 * script (a ResourceInterpreterCustomization) gets what the script returns, built-in kinds
 * included: upstream asks the customized interpreters before the built-in one. The script is
 * given the binding's `status.aggregatedStatus` as upstream gives it (no items: nil) and returns
 * the whole template; only its status is written, as upstream's status update keeps only that.
 * Deployments without a script fold as deployment-status.ts does; other kinds get nothing.
 */
import type { AggregatedStatusItem } from '@kf/api';
import type { ResourceInterpreter } from '@kf/interpreter';
import { runScript } from '../interpreter/script-condition.ts';
import { asKubeObject, recordOf, type ResourceTemplate } from '../template.ts';
import { aggregateDeploymentStatus } from './deployment-status.ts';

type Status = Readonly<Record<string, unknown>>;

export type TemplateStatus =
  /** The kind's status is not aggregated. */
  | { readonly kind: 'none' }
  /** `status` (undefined: none) is the template's status; `scripted` when a script made it. */
  | { readonly kind: 'status'; readonly status: Status | undefined; readonly scripted: boolean }
  | { readonly kind: 'failed'; readonly message: string };

function isDeployment(apiVersion: string | undefined, kind: string | undefined): boolean {
  return apiVersion === 'apps/v1' && kind === 'Deployment';
}

/** Whether the kind's template status is aggregated at all (before reading the template). */
export function aggregatesStatus(
  apiVersion: string,
  kind: string,
  interpreter: ResourceInterpreter | undefined,
): boolean {
  return (
    isDeployment(apiVersion, kind) || interpreter?.hookEnabled(apiVersion, kind, 'AggregateStatus') === true
  );
}

export function templateStatus(
  t: ResourceTemplate,
  items: readonly AggregatedStatusItem[],
  interpreter: ResourceInterpreter | undefined,
): TemplateStatus {
  const outcome = runScript(interpreter, (i) =>
    i.aggregateStatus(asKubeObject(t), items.length === 0 ? undefined : items),
  );
  if (outcome.kind === 'failed') return outcome;
  if (outcome.kind === 'succeeded') {
    return { kind: 'status', status: recordOf(outcome.value['status']), scripted: true };
  }
  if (!isDeployment(t.apiVersion, t.kind)) return { kind: 'none' };
  return { kind: 'status', status: aggregateDeploymentStatus(t, items) as Status, scripted: false };
}
