/** work.karmada.io/v1alpha1 Work: the manifests to apply in one member cluster. */
import { defineKind } from './kind.ts';
import type { Condition, KarmadaObject } from './meta.ts';

/** Health of a workload as interpreted on the member cluster. */
export type ResourceHealth = 'Healthy' | 'Unhealthy' | 'Unknown';

export const resourceHealths = {
  healthy: 'Healthy',
  unhealthy: 'Unhealthy',
  unknown: 'Unknown',
} as const satisfies Record<string, ResourceHealth>;

/** A complete Kubernetes object to apply in the member cluster. */
export type Manifest = Readonly<Record<string, unknown>>;

export interface WorkloadTemplate {
  readonly manifests?: readonly Manifest[];
}

export interface WorkSpec {
  readonly workload?: WorkloadTemplate;
  /** True stops applying (status is still collected); absent means false. */
  readonly suspendDispatching?: boolean;
  /** True keeps the member objects when the Work is deleted; absent means false. */
  readonly preserveResourcesOnDeletion?: boolean;
}

/** Which manifest a status entry is about. */
export interface ResourceIdentifier {
  /** Index of the manifest in `spec.workload.manifests`. */
  readonly ordinal: number;
  /** `''` for the core group. */
  readonly group?: string;
  readonly version: string;
  readonly kind: string;
  /** Required key; the agent sends `''`. */
  readonly resource: string;
  readonly namespace?: string;
  readonly name: string;
}

export interface ManifestStatus {
  readonly identifier: ResourceIdentifier;
  /** The status reflected from the member object (a subset of `.status` for well-known kinds). */
  readonly status?: Readonly<Record<string, unknown>>;
  readonly health?: ResourceHealth;
}

export interface WorkStatus {
  readonly conditions?: readonly Condition[];
  readonly manifestStatuses?: readonly ManifestStatus[];
}

export type Work = KarmadaObject<WorkSpec, WorkStatus>;

export const workKind = defineKind<Work>({
  group: 'work.karmada.io',
  version: 'v1alpha1',
  kind: 'Work',
  plural: 'works',
  shortNames: ['wk'],
  namespaced: true,
  specFields: { workload: true, suspendDispatching: true, preserveResourcesOnDeletion: true },
  statusFields: { conditions: true, manifestStatuses: true },
});

export const workConditionTypes = {
  applied: 'Applied',
  progressing: 'Progressing',
  available: 'Available',
  degraded: 'Degraded',
  dispatching: 'Dispatching',
  /**
   * Extension, not upstream: True once the member agent deleted the Work's copies because it had
   * not renewed its Lease for the Work's fence timeout (reason `FenceTimeout`).
   */
  fenced: 'Fenced',
  /**
   * Extension, not upstream: True while the member agent has the Work's copies in its fence record
   * and will delete them itself after the Work's fence timeout without a Lease renewal. The control
   * plane releases a fenced Work without its agent only when this says so (or nothing was applied).
   */
  fenceArmed: 'FenceArmed',
} as const;

export const workConditionReasons = {
  /** Applied=True. */
  appliedSuccessful: 'AppliedSuccessful',
  /** Applied=False. */
  appliedFailed: 'AppliedFailed',
  /** Dispatching=True. */
  dispatching: 'Dispatching',
  /** Dispatching=False. */
  suspendDispatching: 'SuspendDispatching',
  /** Fenced=True. */
  fenceTimeout: 'FenceTimeout',
  /** FenceArmed=True. */
  fenceArmed: 'FenceArmed',
  /** FenceArmed=False: the Work no longer carries a fence timeout. */
  fenceNotArmed: 'FenceNotArmed',
} as const;

export const workConditionMessages = {
  appliedSuccessful: 'Manifest has been successfully applied',
  dispatching: 'Work is being dispatched to member clusters.',
  suspendDispatching: 'Work dispatching is in a suspended state.',
} as const;
