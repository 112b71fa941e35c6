/**
 * policy.karmada.io/v1alpha1 PropagationPolicy and ClusterPropagationPolicy, and the placement
 * and failover shapes that bindings copy from them.
 */
import { defineKind, type AllKeys } from './kind.ts';
import type { Condition, KarmadaObject, LabelSelector, Toleration } from './meta.ts';

/** Cluster fields a field selector may test. */
export type ClusterField = 'provider' | 'region' | 'zone';

export interface FieldSelectorRequirement {
  readonly key: ClusterField;
  readonly operator: 'In' | 'NotIn';
  readonly values?: readonly string[];
}

export interface FieldSelector {
  readonly matchExpressions?: readonly FieldSelectorRequirement[];
}

/** Selects clusters; every set part must match (see the matching rules in the control plane). */
export interface ClusterAffinity {
  readonly labelSelector?: LabelSelector;
  readonly fieldSelector?: FieldSelector;
  readonly clusterNames?: readonly string[];
  /** Clusters never selected, whatever else matches. */
  readonly exclude?: readonly string[];
}

/** A named affinity used when the term it belongs to is chosen and lacks capacity. */
export interface OverflowAffinityTerm extends ClusterAffinity {
  readonly affinityName: string;
}

/** One ordered cluster group of `clusterAffinities`. */
export interface ClusterAffinityTerm extends ClusterAffinity {
  readonly affinityName: string;
  readonly overflowAffinities?: readonly OverflowAffinityTerm[];
}

export type SpreadFieldValue = 'cluster' | 'region' | 'zone' | 'provider';

export interface SpreadConstraint {
  /** Not together with `spreadByLabel`; neither set means `cluster`. */
  readonly spreadByField?: SpreadFieldValue;
  readonly spreadByLabel?: string;
  readonly maxGroups?: number;
  /** Defaults to 1. */
  readonly minGroups?: number;
}

export type ReplicaSchedulingType = 'Duplicated' | 'Divided';
export type ReplicaDivisionPreference = 'Aggregated' | 'Weighted';
export type DynamicWeightFactor = 'AvailableReplicas';

export interface StaticClusterWeight {
  readonly targetCluster: ClusterAffinity;
  /** At least 1. */
  readonly weight: number;
}

export interface ClusterPreferences {
  readonly staticWeightList?: readonly StaticClusterWeight[];
  /** When set, `staticWeightList` is ignored. */
  readonly dynamicWeight?: DynamicWeightFactor;
}

export interface ReplicaSchedulingStrategy {
  /** Defaults to `Divided`. */
  readonly replicaSchedulingType?: ReplicaSchedulingType;
  readonly replicaDivisionPreference?: ReplicaDivisionPreference;
  readonly weightPreference?: ClusterPreferences;
}

export interface WorkloadAffinityTerm {
  readonly groupByLabelKey: string;
}

export interface WorkloadAffinity {
  readonly affinity?: WorkloadAffinityTerm;
  readonly antiAffinity?: WorkloadAffinityTerm;
}

export interface Placement {
  /** Not together with `clusterAffinities`. */
  readonly clusterAffinity?: ClusterAffinity;
  readonly clusterAffinities?: readonly ClusterAffinityTerm[];
  readonly clusterTolerations?: readonly Toleration[];
  readonly spreadConstraints?: readonly SpreadConstraint[];
  readonly replicaScheduling?: ReplicaSchedulingStrategy;
  readonly workloadAffinity?: WorkloadAffinity;
}

/** What happens to the workload left on the cluster a workload was moved away from. */
export type PurgeMode = 'Directly' | 'Gracefully' | 'Never';

export const purgeModes = {
  /** Delete at once; the new placement waits until the old copy is gone. */
  directly: 'Directly',
  /** Keep until the workload is healthy elsewhere or the grace period ends. */
  gracefully: 'Gracefully',
  /** Keep until someone confirms (application failover only). */
  never: 'Never',
} as const satisfies Record<string, PurgeMode>;

/**
 * The names `Directly` and `Gracefully` had before Karmada v1.15. Upstream deprecated them then
 * and still accepts them up to v1.18 (they go in v1.19), so a policy or binding written for such a
 * Karmada may carry them. We never write them; readers take them through {@link givenPurgeMode}.
 */
export type DeprecatedPurgeMode = 'Immediately' | 'Graciously';

/** The current name of each deprecated one. */
export const currentPurgeModeOf = {
  Immediately: purgeModes.directly,
  Graciously: purgeModes.gracefully,
} as const satisfies Record<DeprecatedPurgeMode, PurgeMode>;

/**
 * How {@link givenPurgeMode} reads a purge mode written as `M`: as its current name when `M` is
 * a deprecated one, else as `M` itself.
 */
export type CurrentPurgeMode<M extends PurgeMode | DeprecatedPurgeMode> = M extends DeprecatedPurgeMode
  ? (typeof currentPurgeModeOf)[M]
  : M;

function isDeprecatedPurgeMode(mode: string): mode is DeprecatedPurgeMode {
  return mode === 'Immediately' || mode === 'Graciously';
}

/**
 * A purge mode as written in a policy or binding, read the way every reader must: a deprecated
 * name (`Immediately`, `Graciously`) as its current one, so nothing downstream has to know the
 * old names; an explicit empty string (`purgeMode: ""`, which Go clients write for an unset
 * field) as unset, like a missing field, so callers apply their default instead of taking `""`
 * for a mode.
 */
export function givenPurgeMode<M extends PurgeMode | DeprecatedPurgeMode>(
  mode: M | '' | undefined,
): CurrentPurgeMode<M> | undefined {
  if (mode === undefined || mode === '') return undefined;
  return (isDeprecatedPurgeMode(mode) ? currentPurgeModeOf[mode] : mode) as CurrentPurgeMode<M>;
}

export interface StatePreservationRule {
  /** Label key the captured value is injected under. */
  readonly aliasLabelName: string;
  /** JSONPath template rooted at the reflected status, e.g. `{ .jobStatus.jobID }`. */
  readonly jsonPath: string;
}

export interface StatePreservation {
  readonly rules: readonly StatePreservationRule[];
}

export interface DecisionConditions {
  /** How long a workload may be unhealthy before it is moved; defaults to 300. */
  readonly tolerationSeconds?: number;
}

export interface ApplicationFailoverBehavior {
  readonly decisionConditions: DecisionConditions;
  /** Defaults to `Gracefully`; read it through {@link givenPurgeMode}. */
  readonly purgeMode?: PurgeMode | DeprecatedPurgeMode;
  /** Only with `Gracefully` (or `Graciously`); upstream's admission defaults it to 600. */
  readonly gracePeriodSeconds?: number;
  /**
   * How long the cluster the workload was moved away from stays closed to it (seconds; 0 keeps
   * it closed until the eviction record is removed). From the application failover proposal,
   * which upstream never implemented; the scheduler reads it from the binding's eviction history.
   * Only the project's CRD has this field (Karmada's API server drops it, or rejects the policy
   * under strict validation): the form that works under Karmada's CRDs is the policy annotation
   * `failover.karmada-failover.io/block-predecessor-seconds` (`annotations.blockPredecessorSeconds`),
   * which wins when both are set; this field is still read.
   */
  readonly blockPredecessorSeconds?: number;
  readonly statePreservation?: StatePreservation;
}

export interface ClusterFailoverBehavior {
  /** `Directly` or `Gracefully` (the default); read it through {@link givenPurgeMode}. */
  readonly purgeMode?: Exclude<PurgeMode, 'Never'> | DeprecatedPurgeMode;
  readonly statePreservation?: StatePreservation;
}

export interface FailoverBehavior {
  readonly application?: ApplicationFailoverBehavior;
  readonly cluster?: ClusterFailoverBehavior;
}

export interface ResourceSelector {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name?: string;
  /** Ignored when `name` is set. */
  readonly labelSelector?: LabelSelector;
}

export interface SuspendClusters {
  readonly clusterNames?: readonly string[];
}

export interface Suspension {
  /** Only `true` has an effect; not together with `dispatchingOnClusters`. */
  readonly dispatching?: boolean;
  readonly dispatchingOnClusters?: SuspendClusters;
}

export type ConflictResolution = 'Abort' | 'Overwrite';
export type PreemptionBehavior = 'Always' | 'Never';
export type ActivationPreference = 'Lazy';
export type PriorityClassSource = 'KubePriorityClass';

export interface SchedulePriority {
  readonly priorityClassSource: PriorityClassSource;
  readonly priorityClassName: string;
}

export interface PropagationSpec {
  readonly resourceSelectors: readonly ResourceSelector[];
  /** Deprecated upstream in favour of `propagateDeps`. */
  readonly association?: boolean;
  readonly propagateDeps?: boolean;
  readonly placement?: Placement;
  /** Higher wins; defaults to 0. */
  readonly priority?: number;
  /** Defaults to `Never`. */
  readonly preemption?: PreemptionBehavior;
  readonly dependentOverrides?: readonly string[];
  /** Defaults to `default-scheduler`. */
  readonly schedulerName?: string;
  readonly failover?: FailoverBehavior;
  /** Defaults to `Abort`. */
  readonly conflictResolution?: ConflictResolution;
  readonly activationPreference?: ActivationPreference;
  readonly suspension?: Suspension;
  readonly preserveResourcesOnDeletion?: boolean;
  readonly schedulePriority?: SchedulePriority;
}

/**
 * Extension, not in upstream Karmada (its policies have no status): lets the control plane
 * report problems that upstream's admission webhook would have rejected, since here the CRD
 * schema is the only admission. Upstream clients ignore it.
 */
export interface PolicyStatus {
  readonly observedGeneration?: number;
  readonly conditions?: readonly Condition[];
}

export type PropagationPolicy = KarmadaObject<PropagationSpec, PolicyStatus>;
export type ClusterPropagationPolicy = KarmadaObject<PropagationSpec, PolicyStatus>;

const propagationSpecFields = {
  resourceSelectors: true,
  association: true,
  propagateDeps: true,
  placement: true,
  priority: true,
  preemption: true,
  dependentOverrides: true,
  schedulerName: true,
  failover: true,
  conflictResolution: true,
  activationPreference: true,
  suspension: true,
  preserveResourcesOnDeletion: true,
  schedulePriority: true,
} as const satisfies AllKeys<PropagationSpec>;

const policyStatusFields = {
  observedGeneration: true,
  conditions: true,
} as const satisfies AllKeys<PolicyStatus>;

export const propagationPolicyKind = defineKind<PropagationPolicy>({
  group: 'policy.karmada.io',
  version: 'v1alpha1',
  kind: 'PropagationPolicy',
  plural: 'propagationpolicies',
  shortNames: ['pp'],
  namespaced: true,
  specFields: propagationSpecFields,
  statusFields: policyStatusFields,
});

export const clusterPropagationPolicyKind = defineKind<ClusterPropagationPolicy>({
  group: 'policy.karmada.io',
  version: 'v1alpha1',
  kind: 'ClusterPropagationPolicy',
  plural: 'clusterpropagationpolicies',
  shortNames: ['cpp'],
  namespaced: false,
  specFields: propagationSpecFields,
  statusFields: policyStatusFields,
});

/** The scheduler a binding uses when `schedulerName` is empty. */
export const defaultSchedulerName = 'default-scheduler';

/** Upstream defaults that admission fills in; readers must apply them to absent fields. */
export const DEFAULT_TOLERATION_SECONDS = 300;
export const DEFAULT_GRACE_PERIOD_SECONDS = 600;
