/**
 * The member side of a cluster, for a host that runs it against the member's API server: the
 * cluster-status controller (probe, Ready thresholds, summaries, API enablements), the heartbeat
 * Lease, the execution and work-status controllers with the resource interpreter, the self-fence,
 * and the member access they share. The host wires them and passes in its configuration, clock,
 * logger and metrics.
 */
export {
  WORK_APPLY_RESULTS,
  WORK_DELETE_RESULTS,
  type MemberMetrics,
  type WorkApplyResult,
  type WorkDeleteResult,
} from './metrics.ts';
export { memberMetricFamilies, type MemberMetricFamilies } from './host/metric-families.ts';

// The host's flags and configuration.
export {
  MEMBER_HOST_DEFAULTS,
  addMemberHostFlags,
  memberHostConfigOf,
  type MemberHostConfig,
  type MemberHostOptions,
} from './host/host-config.ts';

export {
  closeMemberConnection,
  openMemberConnection,
  type ConnectionOptions,
  type MemberConnection,
} from './host/member-connection.ts';
export {
  connectionPingIntervalMs,
  memberRenewIntervalMs,
  memberStatusParts,
  memberWorkDeps,
  type MemberHostDeps,
  type StatusParts,
  type WorkHosting,
} from './host/member-host.ts';

// Member access.
export { MemberHttp } from './member/member-http.ts';
export { discoverMember, memberVersion } from './member/discovery.ts';
export { probeMemberHealth } from './member/health-probe.ts';
export { CacheSyncTimeoutError, MemberInventory, type InventoryViews } from './member/inventory.ts';
export { MemberObjects, type MemberEventHandler } from './member/member-objects.ts';
export { MemberRestMapper, NoMappingError, type Mapping } from './member/rest-mapper.ts';
export { NAMESPACE_RESOURCE, type Namespace } from './member/namespace.ts';

// Cluster status and heartbeat.
export {
  clusterStatusController,
  type ClusterStatusDeps,
  type MemberStatusSource,
} from './controllers/cluster-status/controller.ts';
export type { Discovery } from './controllers/cluster-status/api-enablements.ts';
export type { ProbeResult } from './controllers/cluster-status/ready-condition.ts';
export type { Thresholds } from './controllers/cluster-status/ready-threshold.ts';
export { heartbeatRunnable, type HeartbeatDeps } from './controllers/heartbeat/heartbeat.ts';
export { renewIntervalMs } from './controllers/heartbeat/lease-plan.ts';
export { KeyTrigger } from './controllers/key-trigger.ts';
export { specChanges } from './controllers/spec-changes.ts';

// Works.
export { executionController, type WorkDeps } from './controllers/execution/controller.ts';
export { deleteFencedObject, type FenceWiring } from './controllers/execution/fenced-apply.ts';
export type { MemberObject } from './controllers/execution/manifest-plan.ts';
export type { NamespaceLister } from './controllers/execution/namespace-guard.ts';
export { workStatusController } from './controllers/work-status/controller.ts';
export {
  InterpreterCustomizations,
  type FollowingInterpreter,
  type MemberInterpreter,
} from './interpreter/customizations.ts';

// The self-fence.
export { FENCE_RECORD_NAME, MemberFenceStore, type FenceRecordStore } from './fence/fence-store.ts';
export { SelfFence, type SelfFenceDeps } from './fence/self-fence.ts';

export { without } from './object-fields.ts';

// Registration: a member as a Cluster (by its agent, or by a Push join) and its credentials.
export {
  credentialNames,
  reportsAnything,
  secretRefs,
  type CredentialNames,
  type ReportedSecrets,
} from './registration/credential-names.ts';
export {
  CLUSTER_ROLE_BINDING_RESOURCE,
  CLUSTER_ROLE_RESOURCE,
  EVERY_VERB_RULES,
  SECRET_RESOURCE,
  SERVICE_ACCOUNT_RESOURCE,
  controlPlaneSecrets,
  credentialObjectsToRemove,
  type MemberTokens,
  type Secret,
} from './registration/credentials-plan.ts';
export { ensureMemberCredentials, type MemberCredentialsDeps } from './registration/member-credentials.ts';
export {
  applyCredentialSecrets,
  ensureNamespace,
  writeCluster,
  type WriteOptions,
} from './registration/control-plane-writes.ts';
export {
  decideRegistration,
  type RegistrationDecision,
  type RegistrationInput,
} from './registration/registration-plan.ts';
export { pushMemberAccess, pushSecretKey, type PushAccess } from './member/push-access.ts';
