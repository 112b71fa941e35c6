/**
 * Everything of cluster failover running together on loopback: a local federation (control plane
 * and N members with KWOK nodes), one member agent process per member (least privilege, as
 * `karmadactl register` would set it up), one control-plane process with `--failover`, and the
 * default ClusterTaintPolicy of deploy/controlplane. Periods are short so that a failover takes
 * seconds. Every process reaches its API servers through a fault-injection proxy per link
 * (`fed.links`), so that a test can cut, blackhole or delay one link. Used by the end-to-end
 * tests, the demo and the reschedule benchmark; what it starts, `destroy()` stops.
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AppsV1Api, type KubeConfig } from '@kubernetes/client-node';
import {
  annotations,
  clusterKind,
  clusterTaintPolicyKind,
  findCondition,
  namespaces,
  propagationPolicyKind,
  resourceBindingKind,
  workKind,
  type Cluster,
  type ClusterTaintPolicy,
  type PropagationPolicy,
  type ResourceBinding,
  type Work,
} from '@kf/api';
import { LEASE_RESOURCE, ResourceClient, isAlreadyExists, loadKubeConfig, type Lease } from '@kf/kube';
import { CONTROLPLANE_NODE_FLAGS } from '@kf/runtime';
import { canI } from './access-review.ts';
import { agentKubeconfig, applyAgentAccess } from './agent-access.ts';
import { REPO_ROOT } from './binaries.ts';
import type { LocalCluster } from './cluster.ts';
import { clockOffsetEnvFor, parseClockOffset } from './clock-offset.ts';
import { FederationLinks, LINK } from './faults/federation-links.ts';
import { karmadaBinaries } from './karmada.ts';
import { MEMBER_STATUS_FLAGS } from './member-host-timing.ts';
import { PID_FILE, startFederation, type LocalFederation } from './federation.ts';
import type { MemberOptions } from './types.ts';
import { freePort } from './ports.ts';
import { ManagedProcess } from './process.ts';
import { waitUntil } from './readiness.ts';

const execFileAsync = promisify(execFile);

export const AGENT_MAIN = join(REPO_ROOT, 'agent', 'src', 'main.ts');
export const CONTROLPLANE_MAIN = join(REPO_ROOT, 'controlplane', 'src', 'main.ts');
export const DEFAULT_TAINT_POLICY_FILE = join(
  REPO_ROOT,
  'deploy',
  'controlplane',
  'cluster-taint-policy.yaml',
);
export const DEFAULT_TAINT_POLICY_NAME = 'not-ready-no-execute';

/** The agent's Lease in the harness: 4 s, renewed every quarter of it (1 s). */
export const FAILOVER_AGENT_LEASE = { durationMs: 4_000, renewIntervalMs: 1_000 } as const;

/**
 * A member host's short periods, the agent's and the control plane's for Push members alike:
 * status every 1 s, Lease renewed every 1 s, Ready debounced 3 s.
 */
export const FAILOVER_MEMBER_HOST_FLAGS: readonly string[] = [
  ...MEMBER_STATUS_FLAGS,
  `--cluster-lease-duration=${String(FAILOVER_AGENT_LEASE.durationMs / 1000)}s`,
  `--cluster-lease-renew-interval-fraction=${String(FAILOVER_AGENT_LEASE.renewIntervalMs / FAILOVER_AGENT_LEASE.durationMs)}`,
];

/** The agent's: the member host's short periods, one replica. */
export const FAILOVER_AGENT_FLAGS: readonly string[] = [
  ...FAILOVER_MEMBER_HOST_FLAGS,
  '--leader-elect=false',
];

export interface FailoverTiming {
  /** `--cluster-monitor-period` in seconds (default 1). */
  readonly monitorPeriodSeconds: number;
  /** `--cluster-monitor-grace-period` in seconds (default 5). */
  readonly monitorGraceSeconds: number;
  /** `--cluster-startup-grace-period` in seconds (default 20). */
  readonly startupGraceSeconds: number;
  /** The default ClusterTaintPolicy's hold time, its add-after-seconds annotation (default 3; 0 taints at once). */
  readonly taintHoldSeconds: number;
}

export const DEFAULT_FAILOVER_TIMING: FailoverTiming = {
  monitorPeriodSeconds: 1,
  monitorGraceSeconds: 5,
  startupGraceSeconds: 20,
  taintHoldSeconds: 3,
};

export interface FailoverFederationOptions {
  /** Members member1..memberN (default 2). */
  readonly members?: number;
  /** KWOK nodes per member (default 1). */
  readonly nodes?: number;
  /** Allocatable of each KWOK node (default: cpu 32, memory 256Gi, pods 110). */
  readonly nodeCapacity?: MemberOptions['nodeCapacity'];
  readonly timing?: Partial<FailoverTiming>;
  /** Extra control-plane flags (after the harness's own, so they win). */
  readonly controlPlaneFlags?: readonly string[];
  /** Extra agent flags (after the harness's own, so they win). */
  readonly agentFlags?: readonly string[];
  /**
   * Members joined in Push mode (`controlplane join`, over the link `controlplane-member:<name>`):
   * no agent; the control plane reports their status, renews their Lease and applies their Works.
   */
  readonly pushMembers?: readonly string[];
  /**
   * What joins the Push members: `controlplane join` (default) or Karmada's own `karmadactl join`
   * (Karmada's Cluster and Secret shapes, its member ServiceAccount and role).
   */
  readonly pushJoin?: 'controlplane' | 'karmadactl';
  /** Whether to start agents and wait for Ready clusters (default true); a benchmark may play the agents itself. */
  readonly agents?: boolean;
  /**
   * Members whose agent is Karmada's own karmada-agent (built by scripts/build-karmada.sh) instead
   * of the project's, with the same identity, timings and links (default none).
   */
  readonly karmadaAgents?: readonly string[];
  /**
   * Members whose agent runs with its clock off the host's, by member: `{ member1: '-60s' }`
   * (see {@link AgentStartOptions.clockOffset}; default none).
   */
  readonly agentClockOffsets?: Readonly<Record<string, string>>;
  /** Root folder for this run (default: a fresh folder under .run/, removed by destroy()). */
  readonly runDir?: string;
  /**
   * Runs the control-plane process as its deployed identity (ServiceAccount
   * `karmada-system/karmada-failover-cp`, a client certificate bound only by
   * deploy/controlplane/rbac.yaml) instead of the API server's admin (default false).
   */
  readonly controlPlaneAsDeployed?: boolean;
  /**
   * The control-plane program (default the sources, controlplane/src/main.ts): a benchmark passes
   * the production bundle, controlplane/dist/controlplane.mjs, to measure the process as deployed.
   */
  readonly controlPlaneEntry?: string;
  /** The control plane's `--log-level` (default info; its log is `<runDir>/logs/controlplane.log`). */
  readonly logLevel?: string;
  /**
   * Whether each process's link to an API server goes through its own proxy in this process
   * (`fed.links`; default true). Off, processes talk to the servers directly: for a benchmark
   * whose own event loop should not carry the control plane's traffic.
   */
  readonly proxies?: boolean;
}

/** A running failover federation: clusters, agents, control plane, and admin clients. */
export class FailoverFederation {
  readonly federation: LocalFederation;
  readonly timing: FailoverTiming;
  readonly controlPlaneProcess: ManagedProcess;
  /** `http://127.0.0.1:<port>` of the control plane's /metrics and /readyz. */
  readonly controlPlaneUrl: string;
  /** Admin clients on the Karmada control plane. */
  readonly clusters: ResourceClient<Cluster>;
  readonly bindings: ResourceClient<ResourceBinding>;
  readonly works: ResourceClient<Work>;
  readonly policies: ResourceClient<PropagationPolicy>;
  readonly taintPolicies: ResourceClient<ClusterTaintPolicy>;
  readonly leases: ResourceClient<Lease>;
  /** Deployments (resource templates) on the Karmada control plane. */
  readonly apps: AppsV1Api;
  /**
   * The proxied links of every process to its API servers: `links.controlPlane`,
   * `links.agentToControlPlane(member)`, `links.agentToMember(member)`, and
   * `links.probesToControlPlane(member)` once MemberDns started probes.
   */
  readonly links: FederationLinks;

  readonly #agents = new Map<string, ManagedProcess>();
  readonly #karmadaAgents = new Set<string>();
  readonly #pushMembers: ReadonlySet<string>;
  readonly #memberApps = new Map<string, AppsV1Api>();
  readonly #agentUrls = new Map<string, string>();

  constructor(parts: {
    readonly federation: LocalFederation;
    readonly timing: FailoverTiming;
    readonly controlPlaneProcess: ManagedProcess;
    readonly controlPlaneUrl: string;
    readonly agents: ReadonlyMap<string, StartedAgent>;
    readonly links: FederationLinks;
    readonly pushMembers: ReadonlySet<string>;
  }) {
    const { federation } = parts;
    this.federation = federation;
    this.#pushMembers = parts.pushMembers;
    this.links = parts.links;
    this.timing = parts.timing;
    this.controlPlaneProcess = parts.controlPlaneProcess;
    this.controlPlaneUrl = parts.controlPlaneUrl;
    for (const [name, agent] of parts.agents) {
      this.#agents.set(name, agent.process);
      this.#agentUrls.set(name, agent.url);
      if (agent.karmadaAgent) this.#karmadaAgents.add(name);
    }
    const kc = federation.controlPlane.kubeConfig();
    this.clusters = new ResourceClient<Cluster>(kc, clusterKind);
    this.bindings = new ResourceClient<ResourceBinding>(kc, resourceBindingKind);
    this.works = new ResourceClient<Work>(kc, workKind);
    this.policies = new ResourceClient<PropagationPolicy>(kc, propagationPolicyKind);
    this.taintPolicies = new ResourceClient<ClusterTaintPolicy>(kc, clusterTaintPolicyKind);
    this.leases = new ResourceClient<Lease>(kc, LEASE_RESOURCE);
    this.apps = kc.makeApiClient(AppsV1Api);
  }

  get runDir(): string {
    return this.federation.runDir;
  }

  get memberNames(): readonly string[] {
    return this.federation.members.map((m) => m.name);
  }

  member(name: string): LocalCluster {
    return this.federation.member(name);
  }

  /** Deployments API of a member cluster (admin). */
  /** One client per member, made at first use (its kubeconfig is read once, not at every call). */
  memberApps(name: string): AppsV1Api {
    let apps = this.#memberApps.get(name);
    if (apps === undefined) {
      apps = this.member(name).kubeConfig().makeApiClient(AppsV1Api);
      this.#memberApps.set(name, apps);
    }
    return apps;
  }

  controlPlaneKubeConfig(): KubeConfig {
    return this.federation.controlPlane.kubeConfig();
  }

  /** Whether the member was joined in Push mode (the control plane hosts it; it has no agent). */
  isPush(name: string): boolean {
    return this.#pushMembers.has(name);
  }

  agent(name: string): ManagedProcess {
    const agent = this.#agents.get(name);
    if (agent === undefined) {
      throw new Error(
        this.isPush(name) ? `${name} is a Push member: it has no agent` : `no agent for ${name}`,
      );
    }
    return agent;
  }

  /** `http://127.0.0.1:<port>` of the member agent's /metrics, /healthz and /readyz. */
  agentUrl(name: string): string {
    const url = this.#agentUrls.get(name);
    if (url === undefined) throw new Error(`no agent for ${name}`);
    return url;
  }

  /** SIGKILLs the member's agent (a crashed agent: no more status, no more heartbeats). */
  async killAgent(name: string): Promise<void> {
    await this.agent(name).kill();
  }

  /**
   * Starts the member's agent again (same flags and identity); with a `clockOffset`, its clock is
   * that far off the host's from now on (the agent must not be running).
   */
  async startAgent(name: string, opts: AgentStartOptions = {}): Promise<void> {
    if (opts.clockOffset !== undefined) await this.#setClockOffset(name, opts.clockOffset);
    await this.agent(name).start();
  }

  /**
   * Stops the member's agent (SIGTERM, as a rollout or an eviction would) and starts it again;
   * with a `clockOffset`, as a host whose clock was set wrong meanwhile.
   */
  async restartAgent(name: string, opts: AgentStartOptions = {}): Promise<void> {
    await this.agent(name).stop();
    await this.startAgent(name, opts);
  }

  async #setClockOffset(name: string, offset: string): Promise<void> {
    const agent = this.agent(name);
    if (agent.isRunning()) throw new Error(`agent of ${name} is running: restart it to change its clock`);
    if (this.#karmadaAgents.has(name)) throw new Error(`${name}: ${NO_OFFSET_FOR_KARMADA_AGENT}`);
    this.#agents.set(name, agent.withEnv(await clockOffsetEnvFor(offset)));
  }

  /**
   * The control plane is lost at once, as with its host: SIGKILL to the control-plane process and
   * to the control plane's kube-apiserver (etcd keeps the data). Agents and probes keep running
   * and find nothing to talk to.
   */
  async killControlPlane(): Promise<void> {
    await Promise.all([this.controlPlaneProcess.kill(), this.federation.controlPlane.killApiServer()]);
  }

  /** Brings the control plane back after killControlPlane(): its API server, then the process, ready. */
  async resumeControlPlane(): Promise<void> {
    await this.federation.controlPlane.resumeApiServer();
    await this.controlPlaneProcess.start();
    await waitForControlPlaneReady(this.controlPlaneProcess, this.controlPlaneUrl);
  }

  /** Restarts the control-plane process (SIGTERM, then the same flags) and waits until it is ready. */
  async restartControlPlaneProcess(): Promise<void> {
    await this.controlPlaneProcess.stop();
    await this.controlPlaneProcess.start();
    await waitForControlPlaneReady(this.controlPlaneProcess, this.controlPlaneUrl);
  }

  /** SIGKILLs the member's API server only: its agent keeps running and reports it unreachable. */
  async killMemberApiServer(name: string): Promise<void> {
    await this.member(name).killApiServer();
  }

  async startMemberApiServer(name: string): Promise<void> {
    await this.member(name).resumeApiServer();
  }

  /** The whole member goes down, its agent included when it has one (a data centre lost). */
  async stopMember(name: string): Promise<void> {
    if (!this.isPush(name)) await this.killAgent(name);
    await this.member(name).stop();
  }

  /** Brings a stopped member back (same data), then its agent when it has one. */
  async startMember(name: string): Promise<void> {
    await this.member(name).start();
    if (!this.isPush(name)) await this.startAgent(name);
  }

  /** The Ready condition's status of a Cluster (undefined when absent). */
  async readyStatus(name: string): Promise<string | undefined> {
    const cluster = await this.clusters.get(name);
    return findCondition(cluster.status?.conditions, 'Ready')?.status;
  }

  /** Waits until every member's Cluster is Ready=True and carries no taint. */
  async waitForHealthyClusters(timeoutMs = 120_000): Promise<void> {
    await waitUntil(
      'every Cluster Ready and untainted',
      async () => {
        for (const name of this.memberNames) {
          const cluster = await this.clusters.find(name);
          if (cluster === undefined) return false;
          if (findCondition(cluster.status?.conditions, 'Ready')?.status !== 'True') return false;
          if ((cluster.spec.taints ?? []).length > 0) return false;
        }
        return true;
      },
      { timeoutMs, intervalMs: 250, abortIf: () => this.#deadProcess() },
    );
  }

  /** Stops the control plane and the agents, then the proxies and the clusters; the run folder stays. */
  async stop(): Promise<void> {
    await this.#stopProcesses();
    await this.federation.stop();
  }

  /** stop(), then removes the run folder if the harness made it (unless KF_KEEP_RUNS=1). */
  async destroy(): Promise<void> {
    await this.#stopProcesses();
    await this.federation.destroy();
  }

  async #stopProcesses(): Promise<void> {
    // Links restored first: a process stops faster when it can say goodbye (release its Lease).
    this.links.restoreAll();
    await Promise.allSettled([
      this.controlPlaneProcess.stop(),
      ...[...this.#agents.values()].map((a) => a.stop()),
    ]);
    await this.links.close();
  }

  #deadProcess(): string | undefined {
    if (!this.controlPlaneProcess.isRunning()) {
      return `the control plane exited; see ${this.controlPlaneProcess.logFile}`;
    }
    return undefined;
  }
}

/** Control-plane flags for a timing (the process runs as the control plane's admin). */
export function controlPlaneFlags(t: FailoverTiming): string[] {
  return [
    '--failover',
    '--leader-elect=false',
    `--cluster-monitor-period=${t.monitorPeriodSeconds}s`,
    `--cluster-monitor-grace-period=${t.monitorGraceSeconds}s`,
    `--cluster-startup-grace-period=${t.startupGraceSeconds}s`,
  ];
}

/**
 * Starts clusters, then agents (each with a client certificate for `system:karmada:agent:<name>`
 * under deploy/agent and its per-cluster RBAC, see agent-access.ts), then the control plane, and
 * waits until every Cluster is Ready and untainted. On failure it stops whatever it started.
 */
export async function startFailoverFederation(
  opts: FailoverFederationOptions = {},
): Promise<FailoverFederation> {
  const timing: FailoverTiming = { ...DEFAULT_FAILOVER_TIMING, ...opts.timing };
  checkClockOffsets(opts);
  const federation = await startFederation({
    members: opts.members ?? 2,
    member: {
      nodes: opts.nodes ?? 1,
      ...(opts.nodeCapacity === undefined ? {} : { nodeCapacity: opts.nodeCapacity }),
    },
    ...(opts.runDir !== undefined ? { runDir: opts.runDir } : {}),
  });
  const started: ManagedProcess[] = [];
  const links = new FederationLinks(join(federation.runDir, 'links'), opts.proxies !== false);
  try {
    await mkdir(join(federation.runDir, 'logs'), { recursive: true });
    await prepareControlPlane(federation, timing, opts.karmadaAgents ?? []);
    const pushMembers = new Set(opts.pushMembers ?? []);
    const agents = await hostMembers({ federation, links, opts }, started);
    const { process: controlPlane, url } = await startControlPlaneProcess(
      { federation, links, timing, opts },
      started,
    );
    const fed = new FailoverFederation({
      federation,
      timing,
      controlPlaneProcess: controlPlane,
      controlPlaneUrl: url,
      agents,
      links,
      pushMembers,
    });
    if (opts.agents !== false || pushMembers.size > 0) await fed.waitForHealthyClusters();
    return fed;
  } catch (err) {
    await Promise.allSettled(started.map((p) => p.stop()));
    await links.close();
    await federation.destroy();
    throw err;
  }
}

/** What starting the members' hosts needs. */
interface MemberStartParts {
  readonly federation: LocalFederation;
  readonly links: FederationLinks;
  readonly opts: FailoverFederationOptions;
}

/** Starts the agents of Pull members (unless `agents: false`) and joins the Push members. */
async function hostMembers(
  parts: MemberStartParts,
  started: ManagedProcess[],
): Promise<Map<string, StartedAgent>> {
  const push = new Set(parts.opts.pushMembers ?? []);
  const agents =
    parts.opts.agents === false ? new Map<string, StartedAgent>() : await startAgents(parts, started);
  for (const member of parts.federation.members.filter((m) => push.has(m.name))) {
    await joinPushMember(parts.federation, parts.links, member, parts.opts.pushJoin ?? 'controlplane');
  }
  return agents;
}

/** Fails before any cluster starts on a clock offset that could not be applied. */
function checkClockOffsets(opts: FailoverFederationOptions): void {
  const members = Array.from({ length: opts.members ?? 2 }, (_, i) => `member${String(i + 1)}`);
  for (const [member, offset] of Object.entries(opts.agentClockOffsets ?? {})) {
    if (!members.includes(member)) {
      throw new Error(`agentClockOffsets: no member named ${member} (members: ${members.join(', ')})`);
    }
    if (opts.karmadaAgents?.includes(member)) throw new Error(`${member}: ${NO_OFFSET_FOR_KARMADA_AGENT}`);
    parseClockOffset(offset);
  }
}

/** Namespaces, the agents' RBAC and admission policy, and the default ClusterTaintPolicy. */
async function prepareControlPlane(
  federation: LocalFederation,
  timing: FailoverTiming,
  karmadaAgents: readonly string[],
): Promise<void> {
  const cp = federation.controlPlane;
  const namespacesClient = new ResourceClient(cp.kubeConfig(), {
    group: '',
    version: 'v1',
    plural: 'namespaces',
    namespaced: false,
    kind: 'Namespace',
  });
  for (const name of [namespaces.system, namespaces.cluster]) {
    await namespacesClient.create({ metadata: { name } }).catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
  }
  await applyAgentAccess(
    cp,
    federation.members.map((m) => m.name),
    { karmadaAgents },
  );
  await applyDefaultTaintPolicy(federation.controlPlane, timing.taintHoldSeconds);
}

export interface StartedAgent {
  readonly process: ManagedProcess;
  /** Where its metrics and health endpoints listen. */
  readonly url: string;
  /** Whether it is Karmada's karmada-agent. */
  readonly karmadaAgent: boolean;
}

/** How a member agent is (re)started. */
export interface AgentStartOptions {
  /**
   * Its wall clock this far off the host's, as libfaketime's relative offsets are written: `-60s`
   * (a minute behind), `+10m` (ten minutes ahead), `+0s` (the host's clock). Timers and the
   * monotonic clock keep their real pace; only the time of day the agent reads, and so every
   * timestamp it writes (Lease renewals, condition transitions), is off. At most 1h behind (the
   * harness's certificates are valid from then). Not for karmada-agent.
   */
  readonly clockOffset?: string;
}

const NO_OFFSET_FOR_KARMADA_AGENT =
  "a clock offset needs the project's agent: karmada-agent is a Go program, which reads the clock without libc";

/** One member's agent: the project's, or Karmada's karmada-agent, with the harness's timings. */
export interface AgentProcessSpec {
  readonly member: LocalCluster;
  /** The agent's kubeconfig for the Karmada API server (its own identity, maybe via a proxy). */
  readonly karmadaKubeconfig: string;
  /** Its kubeconfig for the member (default the member's admin kubeconfig). */
  readonly memberKubeconfig?: string;
  /** Logs go to `<runDir>/logs`, the pid to the run's pid file. */
  readonly runDir: string;
  /** Run Karmada's karmada-agent instead of the project's (default false). */
  readonly karmadaAgent?: boolean;
  readonly extraFlags?: readonly string[];
  /** Its clock off the host's (see {@link AgentStartOptions.clockOffset}; default the host's). */
  readonly clockOffset?: string;
}

/**
 * A member's agent process, not started yet, and where its metrics and health answer: the
 * project's agent serves both on one port; karmada-agent needs two (the health port answers
 * /healthz and /readyz) and the member's endpoint for its Cluster.
 */
export async function agentProcess(spec: AgentProcessSpec): Promise<StartedAgent> {
  const port = await freePort();
  const { member } = spec;
  const own = spec.karmadaAgent !== true;
  if (!own && spec.clockOffset !== undefined)
    throw new Error(`${member.name}: ${NO_OFFSET_FOR_KARMADA_AGENT}`);
  const command = own ? process.execPath : (await karmadaBinaries()).binary('agent');
  const programArgs = own
    ? [AGENT_MAIN, 'run', `--metrics-bind-address=127.0.0.1:${port}`]
    : [`--metrics-bind-address=127.0.0.1:${await freePort()}`, `--cluster-api-endpoint=${member.server}`];
  const agent = new ManagedProcess({
    name: `agent-${member.name}`,
    command,
    args: [
      ...programArgs,
      `--health-probe-bind-address=127.0.0.1:${port}`,
      `--cluster-name=${member.name}`,
      `--karmada-kubeconfig=${spec.karmadaKubeconfig}`,
      `--kubeconfig=${spec.memberKubeconfig ?? member.kubeconfigPath}`,
      ...FAILOVER_AGENT_FLAGS,
      ...(spec.extraFlags ?? []),
    ],
    logDir: join(spec.runDir, 'logs'),
    pidFile: join(spec.runDir, PID_FILE),
    env: {
      KUBECONFIG: '',
      ...(spec.clockOffset === undefined ? {} : await clockOffsetEnvFor(spec.clockOffset)),
    },
  });
  return { process: agent, url: `http://127.0.0.1:${port}`, karmadaAgent: !own };
}

async function startAgents(
  parts: MemberStartParts,
  started: ManagedProcess[],
): Promise<Map<string, StartedAgent>> {
  const { federation, links } = parts;
  const upstream = new Set(parts.opts.karmadaAgents ?? []);
  const offsets = parts.opts.agentClockOffsets ?? {};
  const cp = federation.controlPlane;
  const agents = new Map<string, StartedAgent>();
  const push = new Set(parts.opts.pushMembers ?? []);
  for (const member of federation.members.filter((m) => !push.has(m.name))) {
    const agent = await agentProcess({
      member,
      karmadaKubeconfig: await links.route(
        LINK.agentToControlPlane(member.name),
        await agentKubeconfig(cp, member.name),
        cp.server,
      ),
      memberKubeconfig: await links.route(
        LINK.agentToMember(member.name),
        member.kubeconfigPath,
        member.server,
      ),
      runDir: federation.runDir,
      karmadaAgent: upstream.has(member.name),
      extraFlags: parts.opts.agentFlags ?? [],
      ...(offsets[member.name] === undefined ? {} : { clockOffset: offsets[member.name] }),
    });
    agents.set(member.name, agent);
    await agent.process.start();
    started.push(agent.process);
  }
  return agents;
}

/**
 * Joins a member in Push mode as an operator would (`controlplane join` or `karmadactl join`, a
 * process), with the member's admin kubeconfig routed over the control plane's link to it: the
 * Cluster's apiEndpoint is that link's proxy.
 */
async function joinPushMember(
  federation: LocalFederation,
  links: FederationLinks,
  member: LocalCluster,
  by: 'controlplane' | 'karmadactl',
): Promise<void> {
  const cp = federation.controlPlane;
  const memberKubeconfig = await links.route(
    LINK.controlPlaneToMember(member.name),
    member.kubeconfigPath,
    member.server,
  );
  const args = [
    'join',
    member.name,
    `--cluster-kubeconfig=${memberKubeconfig}`,
    `--kubeconfig=${cp.kubeconfigPath}`,
  ];
  const options = { env: { PATH: process.env.PATH ?? '' }, timeout: 120_000 };
  if (by === 'karmadactl') await execFileAsync((await karmadaBinaries()).karmadactl, args, options);
  else await execFileAsync(process.execPath, [CONTROLPLANE_MAIN, ...args], options);
}

async function startControlPlaneProcess(
  parts: {
    readonly federation: LocalFederation;
    readonly links: FederationLinks;
    readonly timing: FailoverTiming;
    readonly opts: FailoverFederationOptions;
  },
  started: ManagedProcess[],
): Promise<{ process: ManagedProcess; url: string }> {
  const { federation, timing, opts } = parts;
  const cp = federation.controlPlane;
  const kubeconfig = opts.controlPlaneAsDeployed === true ? await deployedIdentity(cp) : cp.kubeconfigPath;
  return runControlPlane({
    kubeconfig: await parts.links.route(LINK.controlPlane, kubeconfig, cp.server),
    runDir: federation.runDir,
    flags: [
      `--log-level=${opts.logLevel ?? 'info'}`,
      ...controlPlaneFlags(timing),
      ...FAILOVER_MEMBER_HOST_FLAGS,
      ...(opts.controlPlaneFlags ?? []),
    ],
    onStarted: (p) => started.push(p),
    ...(opts.controlPlaneEntry === undefined ? {} : { entry: opts.controlPlaneEntry }),
  });
}

export const CONTROL_PLANE_RBAC_FILE = join(REPO_ROOT, 'deploy', 'controlplane', 'rbac.yaml');
/** Who the control plane is when deployed (deploy/controlplane/rbac.yaml binds its ServiceAccount). */
export const CONTROL_PLANE_USER = 'system:serviceaccount:karmada-system:karmada-failover-cp';

/** Applies deploy/controlplane/rbac.yaml and returns a kubeconfig of the identity it binds, alone. */
async function deployedIdentity(cp: LocalCluster): Promise<string> {
  await execFileAsync(cp.kubectlPath, cp.kubectlArgs('apply', '-f', CONTROL_PLANE_RBAC_FILE));
  const path = await cp.userKubeconfig(CONTROL_PLANE_USER, [
    'system:serviceaccounts',
    'system:serviceaccounts:karmada-system',
  ]);
  // The API server authorizes from its own watch of RBAC objects: wait until it has the binding,
  // or the process's first requests are refused.
  const kc = loadKubeConfig({ path });
  await waitUntil(
    'deploy/controlplane/rbac.yaml in force',
    () => canI(kc, 'watch', { group: 'cluster.karmada.io', resource: 'clusters' }),
    {
      timeoutMs: 30_000,
      intervalMs: 100,
    },
  );
  return path;
}

/**
 * Runs the project's control-plane process against an API server (`<runDir>/logs/controlplane.log`)
 * and waits for its /readyz; `onStarted` gets the process as soon as it runs, so that a caller can
 * stop it even when readiness fails.
 */
export async function runControlPlane(spec: {
  readonly kubeconfig: string;
  readonly runDir: string;
  readonly flags: readonly string[];
  readonly onStarted?: (p: ManagedProcess) => void;
  /** The program run with CONTROLPLANE_NODE_FLAGS (default {@link CONTROLPLANE_MAIN}). */
  readonly entry?: string;
}): Promise<{ process: ManagedProcess; url: string }> {
  const port = await freePort();
  const controlPlane = new ManagedProcess({
    name: 'controlplane',
    command: process.execPath,
    args: [
      ...CONTROLPLANE_NODE_FLAGS,
      spec.entry ?? CONTROLPLANE_MAIN,
      'run',
      `--kubeconfig=${spec.kubeconfig}`,
      `--metrics-bind-address=127.0.0.1:${port}`,
      `--health-probe-bind-address=127.0.0.1:${port}`,
      ...spec.flags,
    ],
    logDir: join(spec.runDir, 'logs'),
    pidFile: join(spec.runDir, PID_FILE),
    env: { KUBECONFIG: '' },
  });
  await controlPlane.start();
  spec.onStarted?.(controlPlane);
  const url = `http://127.0.0.1:${port}`;
  await waitForControlPlaneReady(controlPlane, url);
  return { process: controlPlane, url };
}

async function waitForControlPlaneReady(controlPlane: ManagedProcess, url: string): Promise<void> {
  await controlPlane.waitReady(
    'control plane /readyz',
    async () =>
      (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined))
        ?.status === 200,
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

/**
 * Applies deploy/controlplane/cluster-taint-policy.yaml, with its hold time (its add-after-seconds annotation)
 * set to the given one: the shipped 15 s is sized for 10 s Lease renewals, the harness renews
 * every second.
 */
export async function applyDefaultTaintPolicy(cp: LocalCluster, holdSeconds: number): Promise<void> {
  await execFileAsync(cp.kubectlPath, cp.kubectlArgs('apply', '-f', DEFAULT_TAINT_POLICY_FILE));
  const policies = new ResourceClient<ClusterTaintPolicy>(cp.kubeConfig(), clusterTaintPolicyKind);
  await policies.mergePatch(DEFAULT_TAINT_POLICY_NAME, {
    metadata: { annotations: { [annotations.addAfterSeconds]: String(holdSeconds) } },
  });
}
