/**
 * apps.karmada.io/v1alpha1 WorkloadRebalancer: a one-off request to place the listed workloads
 * afresh, as if they had never been scheduled, with a result per workload.
 */
import { defineKind } from './kind.ts';
import type { KarmadaObject, Time } from './meta.ts';

/** A workload (resource template) a rebalancer names; upstream's apps/v1alpha1 ObjectReference. */
export interface WorkloadReference {
  readonly apiVersion: string;
  readonly kind: string;
  /** Empty or unset: a cluster-scoped workload (its binding is a ClusterResourceBinding). */
  readonly namespace?: string;
  readonly name: string;
}

export interface WorkloadRebalancerSpec {
  /** At least one. */
  readonly workloads: readonly WorkloadReference[];
  /**
   * Seconds after `status.finishTime` at which the rebalancer is deleted; unset keeps it, 0
   * deletes it as soon as it finishes.
   */
  readonly ttlSecondsAfterFinished?: number;
}

export type RebalanceResult = 'Successful' | 'Failed';

export const rebalanceResults = {
  successful: 'Successful',
  failed: 'Failed',
} as const satisfies Record<string, RebalanceResult>;

/** Why a workload's rebalance failed. */
export type RebalanceFailedReason = 'ReferencedBindingNotFound';

export const rebalanceFailedReasons = {
  /** The workload has no binding: nothing to reschedule. */
  referencedBindingNotFound: 'ReferencedBindingNotFound',
} as const satisfies Record<string, RebalanceFailedReason>;

export interface ObservedWorkload {
  readonly workload: WorkloadReference;
  /** Unset while the rebalance of this workload is still to be done (or retried). */
  readonly result?: RebalanceResult;
  readonly reason?: RebalanceFailedReason;
}

export interface WorkloadRebalancerStatus {
  /** Sorted by apiVersion, kind, namespace and name. */
  readonly observedWorkloads?: readonly ObservedWorkload[];
  /** The `metadata.generation` the status is about. */
  readonly observedGeneration?: number;
  /** When every workload last had a result. */
  readonly finishTime?: Time;
}

export type WorkloadRebalancer = KarmadaObject<WorkloadRebalancerSpec, WorkloadRebalancerStatus>;

export const workloadRebalancerKind = defineKind<WorkloadRebalancer>({
  group: 'apps.karmada.io',
  version: 'v1alpha1',
  kind: 'WorkloadRebalancer',
  plural: 'workloadrebalancers',
  namespaced: false,
  specFields: { workloads: true, ttlSecondsAfterFinished: true },
  statusFields: { observedWorkloads: true, observedGeneration: true, finishTime: true },
});
