/**
 * Wiring of the member agent: clients for the control plane and the member, registration (every
 * replica), then a Manager running the caches (every replica) and, on the elected leader, the
 * cluster-status controller, the heartbeat, and the execution and work-status controllers (with
 * the resource interpreter of the control plane's ResourceInterpreterCustomizations).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import {
  agentElectionLeaseFor,
  clusterKind,
  executionNamespaceFor,
  resourceInterpreterCustomizationKind,
  workKind,
  type Cluster,
  type ResourceInterpreterCustomization,
  type Work,
} from '@kf/api';
import { createResourceInterpreter } from '@kf/interpreter';
import {
  LeaderElector,
  ResourceClient,
  EventRecorder,
  WatchCache,
  createWatchCacheMetrics,
  loadKubeConfigs,
  type NeededKubeConfig,
  type WatchCacheMetrics,
} from '@kf/kube';
import {
  InterpreterCustomizations,
  KeyTrigger,
  MemberFenceStore,
  NAMESPACE_RESOURCE,
  SECRET_RESOURCE,
  SelfFence,
  closeMemberConnection,
  credentialNames,
  ensureMemberCredentials,
  deleteFencedObject,
  executionController,
  memberRenewIntervalMs,
  memberStatusParts,
  memberWorkDeps,
  openMemberConnection,
  workStatusController,
  type FenceWiring,
  type MemberConnection,
  type MemberHostDeps,
  type Namespace,
  type Secret,
} from '@kf/member';
import {
  Manager,
  controllerRunnable,
  createControllerMetrics,
  makeGauge,
  startEndpointServers,
  systemClock,
  DEFAULT_METRIC_PREFIX,
  type Clock,
  type Logger,
  type Runnable,
} from '@kf/runtime';
import type { RunConfig } from './cli.ts';
import { karmadaKubeConfigNeeded, memberKubeconfigPath } from './kubeconfig-path.ts';
import { createAgentMetrics, type AgentMetrics } from './metrics.ts';
import { registerCluster } from './registration/register.ts';

export interface AgentDeps {
  readonly log: Logger;
  readonly registry: Registry;
  readonly clock?: Clock;
  readonly random?: () => number;
  /** Already loaded kubeconfigs (tests); otherwise they are loaded from the config's paths. */
  readonly karmadaKubeConfig?: KubeConfig;
  readonly memberKubeConfig?: KubeConfig;
}

export interface AgentApp {
  /** Registers, then runs until `signal` aborts; resolves after a clean shutdown. */
  start(signal: AbortSignal): Promise<void>;
}

/** The field manager of every member write: `kubectl get -o yaml --show-managed-fields` names it. */
export const FIELD_MANAGER = 'karmada-agent';

export function createAgent(config: RunConfig, deps: AgentDeps): AgentApp {
  return { start: (signal) => runAgent(config, deps, signal) };
}

/** Both kubeconfigs (those not given by tests); a ConfigError names every one that cannot be used. */
function kubeConfigsOf(config: RunConfig, deps: AgentDeps): { karmada: KubeConfig; member: KubeConfig } {
  const needed: Record<string, NeededKubeConfig> = {};
  if (deps.karmadaKubeConfig === undefined) {
    needed.karmada = karmadaKubeConfigNeeded(config.karmadaKubeconfig, config.karmadaContext);
  }
  if (deps.memberKubeConfig === undefined) {
    needed.member = { label: 'member', options: () => ({ path: memberKubeconfigPath(config.kubeconfig) }) };
  }
  const loaded = loadKubeConfigs(needed);
  const karmada = deps.karmadaKubeConfig ?? loaded.karmada;
  const member = deps.memberKubeConfig ?? loaded.member;
  if (karmada === undefined || member === undefined)
    throw new Error('a kubeconfig was neither given nor loaded');
  return { karmada, member };
}

function memberFlags(kc: KubeConfig): { insecure: boolean; proxyUrl: string } {
  const cluster = kc.getCurrentCluster();
  return { insecure: cluster?.skipTLSVerify === true, proxyUrl: cluster?.proxyUrl ?? '' };
}

function makeElector(config: RunConfig, kc: KubeConfig, ctx: Context): LeaderElector | undefined {
  if (!config.leaderElection.enabled) return undefined;
  return new LeaderElector({
    kubeConfig: kc,
    namespace: config.leaderElection.namespace,
    name: agentElectionLeaseFor(config.clusterName),
    leaseDurationMs: config.leaderElection.leaseDurationMs,
    renewDeadlineMs: config.leaderElection.renewDeadlineMs,
    retryPeriodMs: config.leaderElection.retryPeriodMs,
    log: ctx.log,
    clock: ctx.clock,
    random: ctx.random,
    gauge: makeGauge(ctx.registry, {
      name: `${DEFAULT_METRIC_PREFIX}leader_election_is_leader`,
      help: '1 while this replica leads, else 0.',
    }),
  });
}

/** What every part of the wiring shares. */
interface Context {
  readonly log: Logger;
  readonly clock: Clock;
  readonly random: () => number;
  readonly registry: Registry;
  /** Restart and backoff metrics of every watch cache, control plane and member side. */
  readonly watchMetrics: WatchCacheMetrics;
}

async function runAgent(config: RunConfig, deps: AgentDeps, signal: AbortSignal): Promise<void> {
  const ctx: Context = {
    log: deps.log.child({ cluster: config.clusterName }),
    clock: deps.clock ?? systemClock,
    random: deps.random ?? Math.random,
    registry: deps.registry,
    watchMetrics: createWatchCacheMetrics(deps.registry),
  };
  const kcs = kubeConfigsOf(config, deps);
  const elector = makeElector(config, kcs.karmada, ctx);
  const manager = new Manager({
    log: ctx.log,
    clock: ctx.clock,
    ...(elector === undefined ? {} : { leadership: elector }),
  });
  let registered = false;
  manager.addReadyzCheck('registered', () => {
    if (!registered) throw new Error('not registered yet');
  });
  const servers = await startEndpointServers({
    metricsAt: config.metricsBindAddress,
    healthAt: config.healthProbeBindAddress,
    registry: deps.registry,
    checks: manager,
    log: ctx.log,
  });
  const member = openMemberConnection(kcs.member, {
    log: ctx.log,
    monotonic: () => ctx.clock.monotonic(),
    watchMetrics: ctx.watchMetrics,
  });
  const metrics = createAgentMetrics(ctx.registry, config.clusterName);
  const fence = selfFence(config, { kcs, member, ctx, metrics });
  // From the start, before registration: a process started during a partition still fences.
  const stopFencing = new AbortController();
  const fencing = fence.fence.run(AbortSignal.any([signal, stopFencing.signal]));
  let interpreter: Interpreting | undefined;
  try {
    const clusterClient = new ResourceClient<Cluster>(kcs.karmada, clusterKind);
    await register(config, { kcs, clusterClient, ctx }, signal);
    registered = true;
    if (signal.aborted) return;
    // Only the controllers that judge or apply member objects run scripts.
    if (config.controllers.some((c) => c === 'execution' || c === 'workStatus'))
      interpreter = followCustomizations(kcs.karmada, ctx);
    addRunnables(manager, config, { kcs, clusterClient, member, ctx, metrics, fence, interpreter });
    await manager.start(signal);
  } finally {
    interpreter?.customizations.close();
    stopFencing.abort();
    await fencing.catch(() => undefined);
    await Promise.allSettled([closeMemberConnection(member), ...servers.map((s) => s.close())]);
  }
}

function selfFence(config: RunConfig, w: Pick<Wiring, 'kcs' | 'member' | 'ctx' | 'metrics'>): FenceWiring {
  const fenced = new KeyTrigger();
  const interval = memberRenewIntervalMs(config);
  const fence = new SelfFence({
    store: new MemberFenceStore(w.kcs.member, config.fenceRecordNamespace),
    deleteObject: (ref, work, s) => deleteFencedObject(w.member, { ref, work }, s),
    clock: w.ctx.clock,
    log: w.ctx.log,
    metrics: w.metrics,
    checkIntervalMs: interval,
    onFenced: (work) => {
      fenced.fire(work);
    },
  });
  return { fence, renewIntervalMs: interval, fenced };
}

async function register(
  config: RunConfig,
  w: Pick<Wiring, 'kcs' | 'clusterClient' | 'ctx'>,
  signal: AbortSignal,
): Promise<void> {
  const { kcs, clusterClient, ctx } = w;
  const flags = memberFlags(kcs.member);
  const names = credentialNames(config.clusterName, config.clusterNamespace);
  await registerCluster({
    clusters: clusterClient,
    karmadaNamespaces: new ResourceClient<Namespace>(kcs.karmada, NAMESPACE_RESOURCE),
    memberNamespaces: new ResourceClient<Namespace>(kcs.member, NAMESPACE_RESOURCE),
    input: {
      name: config.clusterName,
      apiEndpoint: config.clusterApiEndpoint,
      proxyURL: flags.proxyUrl === '' ? config.proxyServerAddress : flags.proxyUrl,
      insecureSkipTLSVerification: flags.insecure,
      provider: config.clusterProvider,
      region: config.clusterRegion,
      zones: config.clusterZones,
    },
    reported: config.reportSecrets,
    credentialNames: names,
    memberTokens: (s) =>
      ensureMemberCredentials({
        member: kcs.member,
        names,
        reported: config.reportSecrets,
        log: ctx.log,
        signal: s,
      }),
    secrets: new ResourceClient<Secret>(kcs.karmada, SECRET_RESOURCE),
    fieldManager: FIELD_MANAGER,
    log: ctx.log,
    signal,
    monotonic: () => ctx.clock.monotonic(),
  }).catch((err: unknown) => {
    if (signal.aborted) throw err;
    // What the agent was doing, for the one line its exit prints; the cause says why.
    throw new Error(`cannot register Cluster ${config.clusterName} in the Karmada control plane`, {
      cause: err,
    });
  });
}

interface Wiring {
  readonly kcs: { karmada: KubeConfig; member: KubeConfig };
  readonly clusterClient: ResourceClient<Cluster>;
  readonly member: MemberConnection;
  readonly ctx: Context;
  readonly metrics: AgentMetrics;
  readonly fence: FenceWiring;
  /** Followed when the execution or work-status controller runs. */
  readonly interpreter: Interpreting | undefined;
}

interface Interpreting {
  readonly cache: WatchCache<ResourceInterpreterCustomization>;
  readonly customizations: InterpreterCustomizations;
}

/** The cache of ResourceInterpreterCustomizations, feeding the interpreter on every change. */
function followCustomizations(karmada: KubeConfig, ctx: Context): Interpreting {
  const cache = new WatchCache<ResourceInterpreterCustomization>({
    kubeConfig: karmada,
    resource: resourceInterpreterCustomizationKind,
    log: ctx.log,
    metrics: ctx.watchMetrics,
  });
  const customizations = new InterpreterCustomizations(
    cache,
    () => createResourceInterpreter(),
    ctx.log.child({ component: 'resource-interpreter' }),
  );
  return { cache, customizations };
}

interface NamedCache {
  readonly name: string;
  readonly cache: { run(signal: AbortSignal): Promise<void>; isSynced(): boolean };
}

/** Ready once every cache this replica runs holds its first list (followers too: a fast takeover). */
function addCachesSynced(manager: Manager, caches: readonly NamedCache[]): void {
  manager.addReadyzCheck('caches-synced', () => {
    const waiting = caches.filter((c) => !c.cache.isSynced()).map((c) => c.name);
    if (waiting.length > 0) throw new Error(`caches not synced: ${waiting.join(', ')}`);
  });
}

/** Caches on every replica; controllers and the heartbeat on the leader, as `--controllers` says. */
function addRunnables(manager: Manager, config: RunConfig, w: Wiring): void {
  const { kcs, ctx, member, metrics } = w;
  const clusters = new WatchCache<Cluster>({
    kubeConfig: kcs.karmada,
    resource: clusterKind,
    fieldSelector: `metadata.name=${config.clusterName}`,
    log: ctx.log,
    metrics: ctx.watchMetrics,
  });
  const works = new WatchCache<Work>({
    kubeConfig: kcs.karmada,
    resource: workKind,
    namespace: executionNamespaceFor(config.clusterName),
    log: ctx.log,
    metrics: ctx.watchMetrics,
  });
  const runnerDeps = {
    log: ctx.log,
    clock: ctx.clock,
    random: ctx.random,
    metrics: createControllerMetrics(ctx.registry),
  };
  const enabled = new Set(config.controllers);
  const interpreting = w.interpreter;
  const caches: NamedCache[] = [
    { name: 'cluster-cache', cache: clusters },
    ...(enabled.has('execution') || enabled.has('workStatus') ? [{ name: 'work-cache', cache: works }] : []),
    ...(interpreting === undefined
      ? []
      : [{ name: 'interpreter-customization-cache', cache: interpreting.cache }]),
  ];
  for (const { name, cache } of caches) manager.add(cacheRunnable(name, cache));
  addCachesSynced(manager, caches);
  const host: MemberHostDeps = {
    clusterName: config.clusterName,
    config,
    karmada: kcs.karmada,
    clusters,
    member,
    metrics,
    log: ctx.log,
    clock: ctx.clock,
    random: ctx.random,
  };
  if (enabled.has('clusterStatus')) {
    const status = memberStatusParts(host, (tickStartMono) => {
      w.fence.fence.renewed(tickStartMono);
    });
    manager.add(controllerRunnable(status.controller, runnerDeps));
    manager.add(status.heartbeat);
  }
  const workDeps = memberWorkDeps(host, {
    works,
    fieldManager: FIELD_MANAGER,
    events: new EventRecorder({ kubeConfig: kcs.karmada, component: FIELD_MANAGER, log: ctx.log }),
    // The fence counts from the heartbeat's renewals: without the heartbeat, fenced Works are refused.
    ...(enabled.has('clusterStatus') ? { fence: w.fence } : {}),
    ...(interpreting === undefined ? {} : { customizations: interpreting.customizations }),
  });
  w.fence.fence.knowWorks((work, uid) =>
    works.isSynced() ? works.get(work)?.metadata.uid === uid : undefined,
  );
  if (enabled.has('execution')) manager.add(controllerRunnable(executionController(workDeps), runnerDeps));
  if (enabled.has('workStatus')) manager.add(controllerRunnable(workStatusController(workDeps), runnerDeps));
  manager.add(member.objects.runnable());
}

/** A watch cache as a runnable of every replica (followers keep warm caches for a fast takeover). */
function cacheRunnable(name: string, cache: { run(signal: AbortSignal): Promise<void> }): Runnable {
  return { name, needLeaderElection: false, start: (signal) => cache.run(signal) };
}
