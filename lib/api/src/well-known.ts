/** Label, annotation and finalizer keys, namespaces and event reasons Karmada components share. */

export const labels = {
  propagationPolicyPermanentId: 'propagationpolicy.karmada.io/permanent-id',
  clusterPropagationPolicyPermanentId: 'clusterpropagationpolicy.karmada.io/permanent-id',
  resourceBindingPermanentId: 'resourcebinding.karmada.io/permanent-id',
  clusterResourceBindingPermanentId: 'clusterresourcebinding.karmada.io/permanent-id',
  workPermanentId: 'work.karmada.io/permanent-id',
  bindingManagedBy: 'binding.karmada.io/managed-by',
  /** `"true"` on member objects Karmada manages. */
  managed: 'karmada.io/managed',
  /** `"true"` on system objects such as execution namespaces. */
  system: 'karmada.io/system',
  resourceTemplateClaimedBy: 'resourcetemplate.karmada.io/claimed-by',
} as const;

export const annotations = {
  propagationPolicyNamespace: 'propagationpolicy.karmada.io/namespace',
  propagationPolicyName: 'propagationpolicy.karmada.io/name',
  clusterPropagationPolicyName: 'clusterpropagationpolicy.karmada.io/name',
  /** JSON of the placement the scheduler last scheduled; the taint manager reads tolerations from it. */
  appliedPlacement: 'policy.karmada.io/applied-placement',
  appliedOverrides: 'policy.karmada.io/applied-overrides',
  appliedClusterOverrides: 'policy.karmada.io/applied-cluster-overrides',
  resourceBindingNamespace: 'resourcebinding.karmada.io/namespace',
  resourceBindingName: 'resourcebinding.karmada.io/name',
  clusterResourceBindingName: 'clusterresourcebinding.karmada.io/name',
  resourceTemplateGeneration: 'resourcetemplate.karmada.io/generation',
  resourceTemplateUid: 'resourcetemplate.karmada.io/uid',
  resourceTemplateManagedLabels: 'resourcetemplate.karmada.io/managed-labels',
  resourceTemplateManagedAnnotations: 'resourcetemplate.karmada.io/managed-annotations',
  workName: 'work.karmada.io/name',
  workNamespace: 'work.karmada.io/namespace',
  /** `overwrite` or `abort`. */
  conflictResolution: 'work.karmada.io/conflict-resolution',
  /**
   * Extension, not upstream: on a binding, the comma-separated clusters where application failover
   * has seen the workload Healthy, so that "was healthy before" survives a controller restart.
   */
  applicationFailoverHealthyClusters: 'failover.karmada-failover.io/healthy-clusters',
  /**
   * Extension, not upstream: on a binding, JSON object of cluster → when application failover first
   * saw the workload Unhealthy there (RFC 3339, the control plane's clock), so that the
   * tolerationSeconds timer survives a controller restart or a change of leader.
   */
  applicationFailoverUnhealthySince: 'failover.karmada-failover.io/unhealthy-since',
  /**
   * Extension, not upstream: on a PropagationPolicy or ClusterPropagationPolicy, opts its workloads
   * into fail-back, the value being the stabilization window in whole seconds; the resource detector
   * copies it onto their bindings.
   */
  failBackAfterSeconds: 'failover.karmada-failover.io/fail-back-after-seconds',
  /**
   * Extension, not upstream: on a binding, JSON of where it ran before cluster failover moved it
   * (written with the first eviction, removed by fail-back). See controlplane's fail-back controller.
   */
  placementBeforeFailover: 'failover.karmada-failover.io/placement-before-failover',
  /**
   * Extension, not upstream: on a ClusterTaintPolicy, the hold time in whole seconds (the taints are
   * added once the conditions have held that long). The portable form of `spec.addAfterSeconds`,
   * which Karmada's own CRD does not know.
   */
  addAfterSeconds: 'failover.karmada-failover.io/add-after-seconds',
  /**
   * Extension, not upstream: on a Cluster, written by the control plane's health monitor while the
   * member's clock is 5 s or more off the control plane's, the offset in seconds (member minus
   * control plane, one decimal, signed). Shown by `explain`; liveness never depends on it.
   */
  clockOffsetSeconds: 'failover.karmada-failover.io/clock-offset-seconds',
  /**
   * Extension, not upstream: on a PropagationPolicy or ClusterPropagationPolicy (the resource
   * detector copies it onto their bindings), how long in whole seconds the cluster application
   * failover moved a workload away from stays closed to it; 0 keeps it closed for good. The
   * portable form of `spec.failover.application.blockPredecessorSeconds`, which Karmada's own CRDs
   * do not know; the annotation wins when both are set.
   */
  blockPredecessorSeconds: 'failover.karmada-failover.io/block-predecessor-seconds',
  /**
   * Extension, not upstream: on a binding, a JSON array of the clusters application failover moved
   * it away from (`clusterName`, `creationTimestamp`, `reason`, `producer`), read by the scheduler's
   * EvictionHistory filter. The portable form of `spec.evictionHistory`, which Karmada's own CRDs
   * do not know; entries found there (written by an earlier version) are still read.
   */
  evictionHistory: 'failover.karmada-failover.io/eviction-history',
  /**
   * Extension, not upstream: on a PropagationPolicy or ClusterPropagationPolicy whose failover
   * purges `Directly` (copied by the resource detector onto its bindings, and by the binding
   * controller onto their Works), the fence timeout in whole seconds: a member agent that has not
   * renewed its Lease for that long deletes the copies of such Works itself, and the control plane,
   * once it has seen no renewal for the timeout + the Lease duration + its margin, lets a new
   * placement start without waiting for the cluster to come back.
   */
  fenceAfterSeconds: 'failover.karmada-failover.io/fence-after-seconds',
} as const;

export const conflictResolutionAnnotationValues = {
  overwrite: 'overwrite',
  abort: 'abort',
} as const;

export const finalizers = {
  /** On Clusters, until the execution namespace is gone and no binding lists the cluster. */
  clusterController: 'karmada.io/cluster-controller',
  /** On Works, until the agent removed the member objects. */
  executionController: 'karmada.io/execution-controller',
  bindingController: 'karmada.io/binding-controller',
  clusterResourceBindingController: 'karmada.io/cluster-resource-binding-controller',
  propagationPolicyController: 'karmada.io/propagation-policy-controller',
  clusterPropagationPolicyController: 'karmada.io/cluster-propagation-policy-controller',
} as const;

export const namespaces = {
  /** Control-plane components. */
  system: 'karmada-system',
  /** Cluster heartbeat Leases (name = cluster name) and cluster credential Secrets. */
  cluster: 'karmada-cluster',
} as const;

/** Reasons of the Events Karmada components emit. */
export const eventReasons = {
  createExecutionSpaceSucceed: 'CreateExecutionSpaceSucceed',
  createExecutionSpaceFailed: 'CreateExecutionSpaceFailed',
  removeExecutionSpaceSucceed: 'RemoveExecutionSpaceSucceed',
  removeExecutionSpaceFailed: 'RemoveExecutionSpaceFailed',
  taintClusterSucceed: 'TaintClusterSucceed',
  taintClusterFailed: 'TaintClusterFailed',
  evictWorkloadFromClusterSucceed: 'EvictWorkloadFromClusterSucceed',
  evictWorkloadFromClusterFailed: 'EvictWorkloadFromClusterFailed',
  scheduleBindingSucceed: 'ScheduleBindingSucceed',
  scheduleBindingFailed: 'ScheduleBindingFailed',
  syncWorkSucceed: 'SyncWorkSucceed',
  syncWorkFailed: 'SyncWorkFailed',
  cleanupWorkFailed: 'CleanupWorkFailed',
  aggregateStatusSucceed: 'AggregateStatusSucceed',
  aggregateStatusFailed: 'AggregateStatusFailed',
  applyPolicySucceed: 'ApplyPolicySucceed',
  applyPolicyFailed: 'ApplyPolicyFailed',
  getReplicasSucceed: 'GetReplicasSucceed',
  getReplicasFailed: 'GetReplicasFailed',
  reflectStatusSucceed: 'ReflectStatusSucceed',
  reflectStatusFailed: 'ReflectStatusFailed',
  interpretHealthSucceed: 'InterpretHealthSucceed',
  interpretHealthFailed: 'InterpretHealthFailed',
  /** karmada-failover's own: a NoExecute taint held back because Ready=Unknown is stale. */
  taintDeferredStaleReady: 'TaintDeferredStaleReady',
  /** karmada-failover's own: a Push cluster cannot be reached as its Cluster says (no Secret, no endpoint…). */
  pushAccessFailed: 'PushAccessFailed',
} as const;
