/**
 * What a WorkloadRebalancer asks of each workload, and what its status says, as upstream:
 *
 * - A workload's binding is `<name>-<kind lowercased>`: a ResourceBinding in the workload's
 *   namespace when it names one, else a ClusterResourceBinding.
 * - Rebalancing a workload is setting its binding's `spec.rescheduleTriggeredAt` to the
 *   rebalancer's creation time, unless it is already at or after it: the scheduler then places the
 *   binding afresh, as if nothing had been placed before, the next time it looks.
 * - A workload is `Successful` once that is written (or found written), `Failed` with
 *   `ReferencedBindingNotFound` when it has no binding; a failure to write leaves it without a
 *   result, to be tried again. A workload with a result is never looked at again.
 * - When `spec.workloads` changes, new workloads are added without a result, and workloads no
 *   longer listed leave the status unless they were `Successful` (what was done stays on record);
 *   a changed entry counts as one removed and one added. The status is sorted, so reordering the
 *   list changes nothing but `observedGeneration`.
 * - The rebalancer is finished when every workload has a result; `finishTime` is when the status
 *   last changed to a finished one. `ttlSecondsAfterFinished` after it, the rebalancer is deleted;
 *   without the field it is kept.
 *
 * Deliberate difference: `finishTime` is removed while a workload is without a result (after a
 * workload is added, or while a write is retried), where upstream leaves the previous one in place;
 * a finish time is then always about the workloads the status lists.
 */
import {
  formatTime,
  isSameJson,
  parseTime,
  rebalanceFailedReasons,
  rebalanceResults,
  type ObservedWorkload,
  type ResourceBinding,
  type Time,
  type WorkloadRebalancerStatus,
  type WorkloadReference,
} from '@kf/api';
import { bindingNameFor } from '../../names.ts';

/** What a workload's rebalance came to: the `result` and `reason` of its status entry. */
export type WorkloadOutcome = Required<Pick<ObservedWorkload, 'result'>> & Pick<ObservedWorkload, 'reason'>;

export const rebalanced: WorkloadOutcome = { result: rebalanceResults.successful };

export const bindingNotFound: WorkloadOutcome = {
  result: rebalanceResults.failed,
  reason: rebalanceFailedReasons.referencedBindingNotFound,
};

/** True for a workload in a namespace: its binding is a ResourceBinding there. */
export function isNamespacedWorkload(w: WorkloadReference): boolean {
  return w.namespace !== undefined && w.namespace !== '';
}

/** The key of the workload's binding: `namespace/name` (ResourceBinding) or `name` (ClusterResourceBinding). */
export function bindingKeyFor(w: WorkloadReference): string {
  const name = bindingNameFor(w.kind, w.name);
  return isNamespacedWorkload(w) ? `${w.namespace ?? ''}/${name}` : name;
}

/** `Deployment default/web` or `ClusterRole admin`: a workload in messages. */
export function describeWorkload(w: WorkloadReference): string {
  return `${w.kind} ${isNamespacedWorkload(w) ? `${w.namespace ?? ''}/` : ''}${w.name}`;
}

/** The reference with exactly its four fields, the namespace only when set, as the status holds it. */
function asRecorded(w: WorkloadReference): WorkloadReference {
  return {
    apiVersion: w.apiVersion,
    kind: w.kind,
    ...(isNamespacedWorkload(w) ? { namespace: w.namespace } : {}),
    name: w.name,
  };
}

/** Two references name the same workload when all four fields match (unset namespace = empty). */
function identityOf(w: WorkloadReference): string {
  return JSON.stringify([w.apiVersion, w.kind, w.namespace ?? '', w.name]);
}

/** Whether two references name the same workload (see {@link identityOf}). */
export function isSameWorkload(a: WorkloadReference, b: WorkloadReference): boolean {
  return identityOf(a) === identityOf(b);
}

/** Upstream's order: `apiVersion kind namespace name` compared as one string. */
function orderKeyOf(w: WorkloadReference): string {
  return `${w.apiVersion} ${w.kind} ${w.namespace ?? ''} ${w.name}`;
}

/**
 * The status entries for the workloads the spec lists now, given the entries the status holds:
 * entries still listed are kept as they are (result included), entries no longer listed are kept
 * only when `Successful`, and workloads listed for the first time get an entry without a result.
 * A workload listed twice gets one entry. Sorted by {@link orderKeyOf}.
 */
export function observedWorkloadsFor(
  workloads: readonly WorkloadReference[],
  observed: readonly ObservedWorkload[],
): ObservedWorkload[] {
  const listed = new Map(workloads.map((w) => [identityOf(w), asRecorded(w)]));
  const entries: ObservedWorkload[] = [];
  for (const entry of observed) {
    const id = identityOf(entry.workload);
    if (listed.delete(id)) entries.push(entry);
    else if (entry.result === rebalanceResults.successful) entries.push(entry);
  }
  for (const workload of listed.values()) entries.push({ workload });
  return entries.sort((a, b) => compare(orderKeyOf(a.workload), orderKeyOf(b.workload)));
}

function compare(a: string, b: string): number {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}

/**
 * True when the binding's `rescheduleTriggeredAt` is at or after `requestedAt`: a fresh placement
 * was asked for no earlier than this request, so writing would add nothing. Unset or unreadable
 * is not.
 */
export function isTriggeredSince(triggeredAt: Time | undefined, requestedAt: Time): boolean {
  const at = parseTime(triggeredAt);
  const requested = parseTime(requestedAt);
  return at !== undefined && requested !== undefined && at >= requested;
}

/** What a workload's binding needs: there is none, a write, or nothing more. */
export type BindingStep =
  | { readonly kind: 'missing' }
  /** The merge patch that asks for a fresh placement, guarded by the binding's resourceVersion. */
  | { readonly kind: 'trigger'; readonly binding: ResourceBinding; readonly patch: object }
  | { readonly kind: 'triggered'; readonly binding: ResourceBinding };

export function bindingStepFor(binding: ResourceBinding | undefined, requestedAt: Time): BindingStep {
  if (binding === undefined) return { kind: 'missing' };
  if (isTriggeredSince(binding.spec.rescheduleTriggeredAt, requestedAt))
    return { kind: 'triggered', binding };
  const patch = {
    metadata: { resourceVersion: binding.metadata.resourceVersion },
    spec: { rescheduleTriggeredAt: requestedAt },
  };
  return { kind: 'trigger', binding, patch };
}

export interface SettleInput {
  /** `metadata.generation` of the rebalancer. */
  readonly generation: number | undefined;
  readonly current: WorkloadRebalancerStatus | undefined;
  /** The entries after this pass: {@link observedWorkloadsFor}, then the outcomes found. */
  readonly observed: readonly ObservedWorkload[];
  readonly nowMs: number;
}

export interface Settled {
  readonly status: WorkloadRebalancerStatus;
  /** The status differs from the current one and must be written. */
  readonly changed: boolean;
  /** Every workload has a result. */
  readonly finished: boolean;
}

/** The status to hold after a pass, and whether it must be written. */
export function settleStatus(input: SettleInput): Settled {
  const { current, observed, generation } = input;
  const finished = observed.every((e) => e.result !== undefined);
  const base: WorkloadRebalancerStatus = {
    observedWorkloads: observed,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  const same = isSameJson(base, {
    observedWorkloads: current?.observedWorkloads,
    observedGeneration: current?.observedGeneration,
  });
  const kept = same ? current?.finishTime : undefined;
  const finishTime = finished ? (kept ?? formatTime(input.nowMs)) : undefined;
  const status = finishTime === undefined ? base : { ...base, finishTime };
  return { status, changed: !same || finishTime !== current?.finishTime, finished };
}

/** The status as a merge patch of the status subresource: a field to drop is sent as null. */
export function statusPatch(status: WorkloadRebalancerStatus, resourceVersion: string | undefined): object {
  return {
    metadata: { resourceVersion },
    status: {
      observedWorkloads: status.observedWorkloads ?? null,
      observedGeneration: status.observedGeneration ?? null,
      finishTime: status.finishTime ?? null,
    },
  };
}

export type Expiry =
  /** No TTL, or not finished: kept (a change to the rebalancer is looked at again). */
  { readonly kind: 'keep' } | { readonly kind: 'wait'; readonly ms: number } | { readonly kind: 'delete' };

/** Whether a rebalancer with this TTL and finish time is due for deletion at `nowMs`. */
export function expiryOf(
  ttlSeconds: number | undefined,
  finishTime: Time | undefined,
  nowMs: number,
): Expiry {
  const finishedMs = parseTime(finishTime);
  if (ttlSeconds === undefined || finishedMs === undefined) return { kind: 'keep' };
  const dueMs = finishedMs + ttlSeconds * 1000;
  return nowMs >= dueMs ? { kind: 'delete' } : { kind: 'wait', ms: dueMs - nowMs };
}
