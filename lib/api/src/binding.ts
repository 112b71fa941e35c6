/**
 * work.karmada.io/v1alpha2 ResourceBinding (namespaced) and ClusterResourceBinding (cluster
 * scoped): one resource template, its placement and where it was scheduled. Both kinds share
 * the same spec and status.
 */
import { defineKind, type AllKeys } from './kind.ts';
import type { Condition, KarmadaObject, NodeSelector, ResourceList, Time, Toleration } from './meta.ts';
import type {
  ConflictResolution,
  DeprecatedPurgeMode,
  FailoverBehavior,
  Placement,
  PurgeMode,
  SuspendClusters,
} from './policy.ts';
import type { ResourceHealth } from './work.ts';

/** The resource template a binding is for. */
export interface ObjectReference {
  readonly apiVersion: string;
  readonly kind: string;
  /** Empty for cluster-scoped templates. */
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
}

export interface NodeClaim {
  readonly hardNodeAffinity?: NodeSelector;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly Toleration[];
}

/** What one replica needs, as read from the template's pod spec. */
export interface ReplicaRequirements {
  readonly nodeClaim?: NodeClaim;
  readonly resourceRequest?: ResourceList;
  readonly namespace?: string;
  readonly priorityClassName?: string;
}

export interface ComponentReplicaRequirements {
  readonly nodeClaim?: NodeClaim;
  readonly resourceRequest?: ResourceList;
  readonly priorityClassName?: string;
}

/** One pod template of a multi-template workload. */
export interface Component {
  readonly name: string;
  readonly replicas: number;
  readonly replicaRequirements?: ComponentReplicaRequirements;
}

export interface ComponentReplicas {
  readonly name: string;
  readonly replicas?: number;
}

/** A scheduling decision for one cluster. */
export interface TargetCluster {
  readonly name: string;
  readonly replicas?: number;
  readonly components?: readonly ComponentReplicas[];
}

/** Eviction reasons written by the failover producers. */
export const evictionReasons = {
  taintUntolerated: 'TaintUntolerated',
  applicationFailure: 'ApplicationFailure',
  /** Extension, not upstream: leaving a cluster the workload fled to, to go back where it ran before. */
  failBack: 'FailBack',
} as const;

/** Producers of graceful eviction tasks. */
export const evictionProducers = {
  taintManager: 'TaintManager',
  resourceBindingApplicationFailover: 'resource-binding-application-failover-controller',
  clusterResourceBindingApplicationFailover: 'cluster-resource-binding-application-failover-controller',
  /** Extension, not upstream. */
  failBack: 'fail-back-controller',
} as const;

/** A cluster being moved away from, kept until the workload is safe elsewhere. */
export interface GracefulEvictionTask {
  readonly fromCluster: string;
  /** Read it through `givenPurgeMode` (it may carry a deprecated name); we write current names only. */
  readonly purgeMode?: PurgeMode | DeprecatedPurgeMode;
  /** Replicas the cluster had; only set when > 0. */
  readonly replicas?: number;
  /** CamelCase, 1–32 characters, e.g. `TaintUntolerated`. */
  readonly reason: string;
  readonly message?: string;
  readonly producer: string;
  /** Per-task timeout; not together with `suppressDeletion`. */
  readonly gracePeriodSeconds?: number;
  /** True keeps the task until someone sets it to false. */
  readonly suppressDeletion?: boolean;
  /** State captured for stateful failover, injected as labels on the new cluster. */
  readonly preservedLabelState?: Readonly<Record<string, string>>;
  /** Stamped by the graceful eviction controller when it first sees the task. */
  readonly creationTimestamp?: Time;
  readonly clustersBeforeFailover?: readonly string[];
}

/**
 * Extension, not in upstream Karmada (proposed there, never implemented): clusters this
 * binding was evicted from, kept after the eviction task is gone so that the scheduler can
 * avoid placing the workload straight back. Upstream components ignore it. Application failover
 * keeps these entries in the binding annotation `failover.karmada-failover.io/eviction-history`
 * (a JSON array of them), the form that works under Karmada's CRDs; `spec.evictionHistory`, which
 * only the project's CRD has, is still read, and emptied into the annotation at the next write.
 */
export interface EvictionHistoryEntry {
  readonly clusterName: string;
  /** When the eviction happened. */
  readonly creationTimestamp: Time;
  readonly reason?: string;
  readonly producer?: string;
}

/** Another binding that depends on this one (dependencies follow their parents). */
export interface BindingSnapshot {
  /** Empty for a ClusterResourceBinding. */
  readonly namespace?: string;
  readonly name: string;
  readonly clusters?: readonly TargetCluster[];
}

export interface BindingSuspension {
  readonly dispatching?: boolean;
  readonly dispatchingOnClusters?: SuspendClusters;
  /** True stops the scheduler from processing the binding. */
  readonly scheduling?: boolean;
}

export interface BindingSchedulePriority {
  readonly priority?: number;
}

export interface WorkloadAffinityGroups {
  readonly affinityGroup?: string;
  readonly antiAffinityGroup?: string;
}

export interface ResourceBindingSpec {
  readonly resource: ObjectReference;
  readonly propagateDeps?: boolean;
  readonly replicaRequirements?: ReplicaRequirements;
  readonly replicas?: number;
  readonly components?: readonly Component[];
  readonly clusters?: readonly TargetCluster[];
  readonly placement?: Placement;
  readonly gracefulEvictionTasks?: readonly GracefulEvictionTask[];
  readonly evictionHistory?: readonly EvictionHistoryEntry[];
  readonly requiredBy?: readonly BindingSnapshot[];
  readonly schedulerName?: string;
  readonly failover?: FailoverBehavior;
  readonly conflictResolution?: ConflictResolution;
  /** A time after `status.lastScheduledTime` asks the scheduler for a fresh placement. */
  readonly rescheduleTriggeredAt?: Time;
  readonly suspension?: BindingSuspension;
  readonly preserveResourcesOnDeletion?: boolean;
  readonly schedulePriority?: BindingSchedulePriority;
  readonly workloadAffinityGroups?: WorkloadAffinityGroups;
}

/** The template's state in one cluster, aggregated from that cluster's Work. */
export interface AggregatedStatusItem {
  readonly clusterName: string;
  readonly status?: Readonly<Record<string, unknown>>;
  readonly applied?: boolean;
  readonly appliedMessage?: string;
  readonly health?: ResourceHealth;
}

export interface ResourceBindingStatus {
  readonly schedulerObservedGeneration?: number;
  /** The `clusterAffinities` term the current placement is based on. */
  readonly schedulerObservingAffinityName?: string;
  readonly lastScheduledTime?: Time;
  readonly conditions?: readonly Condition[];
  readonly aggregatedStatus?: readonly AggregatedStatusItem[];
}

export type ResourceBinding = KarmadaObject<ResourceBindingSpec, ResourceBindingStatus>;
export type ClusterResourceBinding = KarmadaObject<ResourceBindingSpec, ResourceBindingStatus>;

const bindingSpecFields = {
  resource: true,
  propagateDeps: true,
  replicaRequirements: true,
  replicas: true,
  components: true,
  clusters: true,
  placement: true,
  gracefulEvictionTasks: true,
  evictionHistory: true,
  requiredBy: true,
  schedulerName: true,
  failover: true,
  conflictResolution: true,
  rescheduleTriggeredAt: true,
  suspension: true,
  preserveResourcesOnDeletion: true,
  schedulePriority: true,
  workloadAffinityGroups: true,
} as const satisfies AllKeys<ResourceBindingSpec>;

const bindingStatusFields = {
  schedulerObservedGeneration: true,
  schedulerObservingAffinityName: true,
  lastScheduledTime: true,
  conditions: true,
  aggregatedStatus: true,
} as const satisfies AllKeys<ResourceBindingStatus>;

export const resourceBindingKind = defineKind<ResourceBinding>({
  group: 'work.karmada.io',
  version: 'v1alpha2',
  kind: 'ResourceBinding',
  plural: 'resourcebindings',
  shortNames: ['rb'],
  namespaced: true,
  specFields: bindingSpecFields,
  statusFields: bindingStatusFields,
});

export const clusterResourceBindingKind = defineKind<ClusterResourceBinding>({
  group: 'work.karmada.io',
  version: 'v1alpha2',
  kind: 'ClusterResourceBinding',
  plural: 'clusterresourcebindings',
  shortNames: ['crb'],
  namespaced: false,
  specFields: bindingSpecFields,
  statusFields: bindingStatusFields,
});

export const bindingConditionTypes = {
  scheduled: 'Scheduled',
  fullyApplied: 'FullyApplied',
  /** karmada-failover's own: a graceful eviction past its timeout keeps a copy nothing replaces. */
  lastCopyKept: 'LastCopyKept',
} as const;

/** Reasons of the `Scheduled` condition. */
export const scheduledReasons = {
  success: 'Success',
  schedulerError: 'SchedulerError',
  noClusterFit: 'NoClusterFit',
  unschedulable: 'Unschedulable',
  quotaExceeded: 'QuotaExceeded',
} as const;

/** Reasons of the `FullyApplied` condition. */
export const fullyAppliedReasons = {
  success: 'FullyAppliedSuccess',
  failed: 'FullyAppliedFailed',
} as const;

export const bindingConditionMessages = {
  scheduled: 'Binding has been scheduled successfully.',
  fullyApplied: 'All works have been successfully applied',
  notFullyApplied: 'Failed to apply all works, see status.aggregatedStatus for details',
} as const;
