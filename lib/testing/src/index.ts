export * from './types.ts';
export { kubeBinaries, scriptOutputFolder, REPO_ROOT, type KubeBinaries } from './binaries.ts';
export { LocalCluster, type ClusterRole } from './cluster.ts';
export { installCrds, CRD_DIR } from './crds.ts';
export {
  agentKubeconfig,
  applyAgentAccess,
  AGENT_POLICY_FILE,
  AGENT_RBAC_FILE,
  type AgentAccessOptions,
} from './agent-access.ts';
export { createKwokNodes, kwokNode, DEFAULT_NODE_CAPACITY, type NodeCapacity } from './kwok-nodes.ts';
export {
  startControlPlane,
  startMember,
  startFederation,
  killRun,
  type LocalFederation,
} from './federation.ts';
export { newRunDir, removeRunDir } from './run-dir.ts';
export { FAILOVER_MEMBER_HOST, MEMBER_STATUS_FLAGS } from './member-host-timing.ts';
export { ManagedProcess, type ProcessSpec } from './process.ts';
export { freePort } from './ports.ts';
export { ensureClusterPki, type ClusterPki } from './pki.ts';
export { waitUntil, eventually, httpsStatus } from './readiness.ts';
export { demoDeployment, rollOut } from './rollout.ts';
export {
  startFailoverFederation,
  applyDefaultTaintPolicy,
  controlPlaneFlags,
  runControlPlane,
  FailoverFederation,
  DEFAULT_FAILOVER_TIMING,
  FAILOVER_AGENT_FLAGS,
  FAILOVER_MEMBER_HOST_FLAGS,
  CONTROL_PLANE_USER,
  FAILOVER_AGENT_LEASE,
  AGENT_MAIN,
  CONTROLPLANE_MAIN,
  DEFAULT_TAINT_POLICY_FILE,
  DEFAULT_TAINT_POLICY_NAME,
  type AgentStartOptions,
  type FailoverFederationOptions,
  type FailoverTiming,
} from './failover-federation.ts';
export { TcpProxy, type ProxyMode, type TcpProxyOptions } from './faults/tcp-proxy.ts';
export {
  Observer,
  copiesSeen,
  everNoExecute,
  leftAfter,
  noExecuteAddedAfter,
  versionsSeen,
  type ObservedWorkload,
  type Sample,
} from './faults/partition-observer.ts';
export {
  READY_TARGET_MS,
  SHIPPED_TAINT_HOLD_SECONDS,
  failsOver,
  partitionAgentLink,
  partitionPushLink,
  pushLinkOutcome,
  readyAgainAt,
  renewedAgainAt,
  settleMs,
  type LinkFault,
  type LinkPartitionRun,
} from './faults/link-partition.ts';
export { FederationLinks, LINK, type LinkState } from './faults/federation-links.ts';
export {
  ClusterHistory,
  changeOf,
  firstMatchAt,
  isHealthy,
  readyAt,
  readyFirstAt,
  readyTransitions,
  taintsAdded,
  taintsHeld,
  timesReadyLeftTrue,
  type ClusterChange,
  type ReadyTransition,
  type TaintAdded,
} from './faults/cluster-history.ts';
export {
  clockOffsetEnv,
  clockOffsetEnvFor,
  findLibfaketime,
  parseClockOffset,
  MAX_CLOCK_AHEAD_MS,
  MAX_CLOCK_BEHIND_MS,
} from './clock-offset.ts';
export {
  FaultControlServer,
  faultSocketPath,
  listLinks,
  parseFaultCommand,
  sendFaultCommand,
  type FaultCommand,
  type FaultControlOptions,
  type FaultTarget,
} from './faults/fault-control.ts';
export { SimulatedMembers, type SimulatedMembersOptions } from './simulated-members.ts';
export { Dnsmasq, DNSMASQ, KUBERNETES_FQDN, KUBERNETES_IP, type DnsmasqOptions } from './dnsmasq.ts';
export { ProbeProcess, PROBE_MAIN, type ProbeProcessOptions } from './probe-process.ts';
export {
  LocalPrometheus,
  PROMETHEUS,
  prometheusConfig,
  type PrometheusOptions,
  type PromAlert,
  type PromSeries,
  type PromTarget,
  type ScrapeTarget,
} from './prometheus.ts';
export {
  GRAFANA_DIR,
  loadDashboards,
  queriesOf,
  runDashboardQueries,
  withGrafanaVariables,
  type Dashboard,
  type DashboardQuery,
  type QueryOutcome,
} from './dashboards.ts';
export { MemberDns, DEFAULT_PROBE_TIMING, type MemberDnsOptions, type ProbeTiming } from './member-dns.ts';
export {
  placementOf,
  formatPlacement,
  worksOfBinding,
  memberDeployment,
  type MemberCopy,
  type WorkState,
} from './workload-view.ts';
export { runDemo, ALERT_RULES, type DemoOptions, type DemoReport } from './demo/demo.ts';
export { Timeline, type TimelineEntry } from './cli/timeline.ts';
export { dividedByStaticWeights, duplicatedOnto } from './placements.ts';
export { appliedWorkStatus, type ReportedObject } from './work-report.ts';
export {
  freeFormCrd,
  installCrd,
  servedAs,
  CRD_RESOURCE,
  type CustomResourceDefinition,
} from './custom-resources.ts';
export {
  KarmadaControlPlane,
  karmadaBinaries,
  KARMADA_TEST_CONTROLLER_FLAGS,
  KARMADA_VERSION,
  type KarmadaBinaries,
  type KarmadaComponent,
  type KarmadaOptions,
} from './karmada.ts';
export {
  KarmadaFederation,
  NOT_READY_NO_EXECUTE,
  type KarmadaFederationOptions,
} from './karmada-federation.ts';
export { bearerKubeConfig, canI, v1Resource, whoAmI, type AccessTarget } from './access-review.ts';
