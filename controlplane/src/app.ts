/**
 * Wiring of the control plane: the Karmada kubeconfig, shared caches (run on every replica), the
 * controllers `--controllers` enables (run on the elected leader), the event recorder, metrics and
 * the /metrics, /healthz and /readyz servers.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import {
  clusterKind,
  clusterResourceBindingKind,
  multiClusterIngressKind,
  resourceBindingKind,
  workKind,
  workloadRebalancerKind,
  type Cluster,
  type ClusterResourceBinding,
  type MultiClusterIngress,
  type ResourceBinding,
  type Work,
  type WorkloadRebalancer,
} from '@kf/api';
import type { ResourceClient } from '@kf/kube';
import {
  EventRecorder,
  LEASE_RESOURCE,
  LeaderElector,
  createWatchCacheMetrics,
  kubeconfigEnvPaths,
  loadKubeConfigs,
  makeLeaderGauge,
  type Lease,
} from '@kf/kube';
import {
  ConfigError,
  Manager,
  controllerRunnable,
  heapCompactionMetrics,
  idleCompaction,
  createControllerMetrics,
  startEndpointServers,
  systemClock,
  whenAborted,
  type Clock,
  type ControllerSpec,
  type Logger,
} from '@kf/runtime';
import type { BindingStore } from './bindings.ts';
import { BUSY_QUEUED_KEYS, isControllerEnabled, type ControlPlaneConfig } from './cli.ts';
import { clusterHealthController } from './controllers/cluster-health/controller.ts';
import { MemberObservations } from './controllers/cluster-health/observations.ts';
import { clusterTaintsController } from './controllers/cluster-taints/controller.ts';
import { NAMESPACE_RESOURCE, clusterController, type Namespace } from './controllers/cluster/controller.ts';
import { FleetGuard } from './controllers/fleet-guard/guard.ts';
import { EvictionPacer } from './controllers/fleet-guard/pacer.ts';
import { gracefulEvictionController } from './controllers/graceful-eviction/controller.ts';
import { ingressTrafficController } from './controllers/ingress-traffic/controller.ts';
import { remedyController } from './controllers/remedy/controller.ts';
import { taintManagerController } from './controllers/taint-manager/controller.ts';
import { taintPolicyController } from './controllers/taint-policy/controller.ts';
import { workloadRebalancerController } from './controllers/workload-rebalancer/controller.ts';
import { failBackController } from './controllers/fail-back/controller.ts';
import { fenceReleaseController } from './controllers/fence-release/controller.ts';
import { EXTRA_CONTROLLER_SETS } from './extra-controllers.ts';
import { createControlPlaneMetrics, type ControlPlaneMetrics } from './metrics.ts';
import {
  SharedCaches,
  type ControllerSet,
  type ControllerSetParts,
  type ControlPlaneWiring,
} from './wiring.ts';
import { CONTROL_PLANE_TRANSPORT, controlPlaneClient } from './connections.ts';

export interface ControlPlaneDeps {
  readonly log: Logger;
  readonly registry: Registry;
  readonly clock?: Clock;
  readonly random?: () => number;
  /** An already loaded kubeconfig (tests); otherwise loaded from `--kubeconfig`. */
  readonly kubeConfig?: KubeConfig;
  /** Controller sets besides the built-in ones (default: those of extra-controllers.ts). */
  readonly extraControllers?: readonly ControllerSet[];
}

export interface ControlPlaneApp {
  /** Runs until `signal` aborts; resolves after a clean shutdown. */
  start(signal: AbortSignal): Promise<void>;
}

/** `source.component` of the Events the control plane writes. */
export const EVENT_COMPONENT = 'karmada-failover-controlplane';

export function createControlPlane(config: ControlPlaneConfig, deps: ControlPlaneDeps): ControlPlaneApp {
  return { start: (signal) => runControlPlane(config, deps, signal) };
}

/** A built-in controller: its `--controllers` name, and how to build it when enabled. */
interface BuiltIn {
  readonly name: string;
  /** False when upstream would not start it with this configuration (feature gates, switches). */
  readonly active: (config: ControlPlaneConfig) => boolean;
  readonly build: (w: ControlPlaneWiring, shared: Shared) => ControllerSpec;
}

/** State shared by several built-in controllers. */
interface Shared {
  readonly metrics: ControlPlaneMetrics;
  /** What this process has seen of each member, on its own clock: every liveness rule reads it. */
  readonly observations: MemberObservations;
  readonly bindings: () => BindingStore;
  readonly clusterClient: ResourceClient<Cluster>;
  /** One fleet guard: the taint manager's evictions and fail-backs are held back together. */
  readonly fleetGuard: () => FleetGuard;
}

const BUILT_IN: readonly BuiltIn[] = [
  {
    name: 'cluster',
    active: () => true,
    build: (w, s) =>
      clusterController({
        clusters: w.caches.clusters(),
        bindings: s.bindings(),
        namespaces: w.caches.cache<Namespace>(NAMESPACE_RESOURCE),
        clusterClient: s.clusterClient,
        namespaceClient: controlPlaneClient<Namespace>(w.kubeConfig, NAMESPACE_RESOURCE),
        workClient: controlPlaneClient<Work>(w.kubeConfig, workKind),
        events: w.events,
      }),
  },
  {
    name: 'cluster-health',
    active: () => true,
    build: (w, s) =>
      clusterHealthController({
        clusters: w.caches.clusters(),
        leases: w.caches.clusterLeases(),
        clusterClient: s.clusterClient,
        leaseClient: controlPlaneClient<Lease>(w.kubeConfig, LEASE_RESOURCE),
        events: w.events,
        grace: {
          monitorGracePeriodMs: w.config.clusterMonitorGracePeriodMs,
          startupGracePeriodMs: w.config.clusterStartupGracePeriodMs,
        },
        monitorPeriodMs: w.config.clusterMonitorPeriodMs,
        observations: s.observations,
      }),
  },
  {
    name: 'cluster-taints',
    active: () => true,
    build: (w, s) =>
      clusterTaintsController({
        clusters: w.caches.clusters(),
        clusterClient: s.clusterClient,
        events: w.events,
        metrics: s.metrics,
        observations: s.observations,
      }),
  },
  {
    name: 'taint-policy',
    // Upstream starts the ClusterTaintPolicy controller only with gate Failover.
    active: (c) => c.featureGates.Failover,
    build: (w, s) =>
      taintPolicyController({
        clusters: w.caches.clusters(),
        policies: w.caches.clusterTaintPolicies(),
        leases: w.caches.clusterLeases(),
        monitorGracePeriodMs: w.config.clusterMonitorGracePeriodMs,
        monitorPeriodMs: w.config.clusterMonitorPeriodMs,
        observations: s.observations,
        clusterClient: s.clusterClient,
        events: w.events,
        metrics: s.metrics,
      }),
  },
  {
    name: 'taint-manager',
    // Upstream: gate Failover and --enable-taint-manager start it; it evicts only with
    // --enable-no-execute-taint-eviction, so without that it is not started at all here.
    active: (c) => c.featureGates.Failover && c.enableTaintManager && c.enableNoExecuteTaintEviction,
    build: (w, s) => taintManager(w, s),
  },
  {
    // Not upstream's. It only acts on what the taint manager records, so it runs with it.
    name: 'fail-back',
    active: (c) => c.featureGates.Failover && c.enableTaintManager && c.enableNoExecuteTaintEviction,
    build: (w, s) =>
      failBackController({
        clusters: w.caches.clusters(),
        leases: w.caches.clusterLeases(),
        observations: s.observations,
        bindings: s.bindings(),
        guard: s.fleetGuard(),
        events: w.events,
        metrics: s.metrics,
        monitorGracePeriodMs: w.config.clusterMonitorGracePeriodMs,
        maxInFlight: w.config.failBackMaxInFlight,
        now: () => w.clock.now(),
      }),
  },
  {
    // Not upstream's: releases the Works of a Directly purge that carry a fence timeout once the
    // cluster's Lease has been silent long enough (the agent has fenced the copies itself).
    name: 'fence-release',
    active: () => true,
    build: (w, s) =>
      fenceReleaseController({
        works: w.caches.cache<Work>(workKind),
        workClient: controlPlaneClient<Work>(w.kubeConfig, workKind),
        leases: w.caches.clusterLeases(),
        leaseClient: controlPlaneClient<Lease>(w.kubeConfig, LEASE_RESOURCE),
        events: w.events,
        metrics: s.metrics,
        marginMs: w.config.fenceReleaseMarginMs,
        monotonic: () => w.clock.monotonic(),
      }),
  },
  {
    name: 'graceful-eviction',
    active: () => true,
    build: (w, s) =>
      gracefulEvictionController({
        bindings: s.bindings(),
        events: w.events,
        timeoutMs: w.config.gracefulEvictionTimeoutMs,
      }),
  },
  {
    name: 'remedy',
    active: () => true,
    build: (w, s) =>
      remedyController({
        clusters: w.caches.clusters(),
        remedies: w.caches.remedies(),
        clusterClient: s.clusterClient,
        events: w.events,
      }),
  },
  {
    name: 'ingress-traffic',
    active: () => true,
    build: (w) =>
      ingressTrafficController({
        ingresses: w.caches.multiClusterIngresses(),
        clusters: w.caches.clusters(),
        resourceBindings: w.caches.resourceBindings(),
        ingressClient: controlPlaneClient<MultiClusterIngress>(w.kubeConfig, multiClusterIngressKind),
        events: w.events,
      }),
  },
  {
    // Upstream's `workloadRebalancer`, started with no gate.
    name: 'workload-rebalancer',
    active: () => true,
    build: (w, s) =>
      workloadRebalancerController({
        rebalancers: w.caches.workloadRebalancers(),
        rebalancerClient: controlPlaneClient<WorkloadRebalancer>(w.kubeConfig, workloadRebalancerKind),
        bindings: s.bindings(),
        events: w.events,
        metrics: s.metrics,
      }),
  },
];

/** Names `--controllers` accepts for the built-in controllers. */
export const BUILT_IN_CONTROLLERS: readonly string[] = BUILT_IN.map((b) => b.name);

function taintManager(w: ControlPlaneWiring, s: Shared): ControllerSpec {
  const clusters = w.caches.clusters();
  return taintManagerController({
    clusters,
    bindings: s.bindings(),
    guard: s.fleetGuard(),
    pacer: new EvictionPacer(w.config.evictionPacing, w.clock.now(), (depth) => {
      s.metrics.setEvictionQueueDepth(depth);
    }),
    events: w.events,
    metrics: s.metrics,
    purgeMode: w.config.noExecuteTaintEvictionPurgeMode,
  });
}

/** The enabled controllers; throws ConfigError for `--controllers` names nothing has. */
export function buildControllers(
  w: ControlPlaneWiring,
  extra: readonly ControllerSetParts[],
  observations: MemberObservations = new MemberObservations(w.clock),
): readonly ControllerSpec[] {
  let store: BindingStore | undefined;
  let guard: FleetGuard | undefined;
  const clusters = w.caches.clusters(); // always watched: `clusters{state}` reads it
  const shared: Shared = {
    observations,
    metrics: createControlPlaneMetrics(
      w.registry,
      () => clusters.list(),
      () => w.events.waiting,
      () => observations.clockOffsets(),
    ),
    clusterClient: controlPlaneClient<Cluster>(w.kubeConfig, clusterKind),
    fleetGuard: () =>
      (guard ??= new FleetGuard({
        clusters: () => clusters.list(),
        config: w.config.fleetGuard,
        log: w.log.child({ component: 'fleet-guard' }),
        onPausedChange: (paused) => {
          shared.metrics.setFleetGuardPaused(paused);
        },
      })),
    bindings: () =>
      (store ??= {
        resourceBindings: w.caches.resourceBindings(),
        clusterResourceBindings: w.caches.clusterResourceBindings(),
        resourceBindingClient: controlPlaneClient<ResourceBinding>(w.kubeConfig, resourceBindingKind),
        clusterResourceBindingClient: controlPlaneClient<ClusterResourceBinding>(
          w.kubeConfig,
          clusterResourceBindingKind,
        ),
      }),
  };
  const entries = w.config.controllers;
  const extraSpecs = extra.flatMap((set) => set.controllers);
  const known = new Set([...BUILT_IN_CONTROLLERS, ...extraSpecs.map((s) => s.name)]);
  const unknown = entries.filter((e) => e !== '*' && !known.has(e.replace(/^-/, '')));
  if (unknown.length > 0) {
    throw new ConfigError([
      `--controllers: unknown controller(s) ${unknown.join(', ')} (known: ${[...known].join(', ')})`,
    ]);
  }
  const enabled = (name: string): boolean => isControllerEnabled(entries, name);
  return [
    ...BUILT_IN.filter((b) => enabled(b.name) && b.active(w.config)).map((b) => b.build(w, shared)),
    ...extraSpecs.filter((s) => enabled(s.name)),
  ];
}

async function runControlPlane(
  config: ControlPlaneConfig,
  deps: ControlPlaneDeps,
  signal: AbortSignal,
): Promise<void> {
  const clock = deps.clock ?? systemClock;
  const random = deps.random ?? Math.random;
  const log = deps.log;
  const kubeConfig = deps.kubeConfig ?? loadControlPlaneKubeConfig(config.kubeconfig);
  const controllerMetrics = createControllerMetrics(deps.registry);
  // Paced Events wait in the queue during a mass failover: room for five per binding of a
  // thousand-binding cluster, beyond which they are dropped (as client-go's recorder drops them).
  // While the controllers hold a backlog, Events slow further: the moves go first.
  const events = new EventRecorder({
    kubeConfig,
    transport: CONTROL_PLANE_TRANSPORT,
    component: EVENT_COMPONENT,
    log,
    clock,
    pace: config.eventPace,
    busy: () => controllerMetrics.queuedKeys() >= BUSY_QUEUED_KEYS,
    maxPending: 10_000,
  });
  const caches = new SharedCaches(kubeConfig, log, {
    clock,
    random,
    metrics: createWatchCacheMetrics(deps.registry),
  });
  // The process is warm once every cache it runs has ended its first list: the shared ones, and
  // those of the sets that run (added below, once known). Read when a controller starts.
  const firstLists: (() => Promise<void>)[] = [() => caches.firstListsEnded()];
  const warm = async (): Promise<void> => {
    await Promise.all(firstLists.map((ended) => ended()));
  };
  const wiring: ControlPlaneWiring = {
    runner: { log, clock, random, metrics: controllerMetrics, warm },
    config,
    kubeConfig,
    log,
    clock,
    random,
    registry: deps.registry,
    events,
    caches,
  };
  const extra = (deps.extraControllers ?? EXTRA_CONTROLLER_SETS).map((set) => set(wiring));
  const observations = new MemberObservations(clock);
  const controllers = buildControllers(wiring, extra, observations);
  const manager = new Manager({ log, clock, ...leadership(config, kubeConfig, wiring) });
  // Each term of leadership judges silence only from its own start (see observations.ts).
  manager.add({
    name: 'health-first-sight',
    needLeaderElection: true,
    start: async (s) => {
      observations.forgetAll();
      await whenAborted(s);
    },
  });
  // A set's caches run only when at least one of its controllers does.
  const used = extra.filter((set) =>
    set.controllers.some((c) => isControllerEnabled(config.controllers, c.name)),
  );
  for (const runnable of used.flatMap((set) => set.runnables ?? [])) manager.add(runnable);
  for (const set of used) if (set.firstListsEnded !== undefined) firstLists.push(set.firstListsEnded);
  const created = caches.created();
  for (const { name, cache } of created) {
    manager.add({ name, needLeaderElection: false, start: (s) => cache.run(s) });
  }
  manager.addReadyzCheck('caches-synced', () => {
    const waiting = [
      ...created.filter((c) => !c.cache.isSynced()).map((c) => c.name),
      ...used.flatMap((set) => set.unsynced?.() ?? []),
    ];
    if (waiting.length > 0) throw new Error(`caches not synced: ${waiting.join(', ')}`);
  });
  if (config.idleHeapCompaction) {
    manager.add(idleCompaction({ log, clock, onCompacted: heapCompactionMetrics(deps.registry) }));
  }
  const runnerDeps = wiring.runner;
  for (const spec of controllers) manager.add(controllerRunnable(spec, runnerDeps));
  log.info({ controllers: controllers.map((c) => c.name) }, 'controllers enabled');
  const servers = await startEndpointServers({
    metricsAt: config.metricsBindAddress,
    healthAt: config.healthProbeBindAddress,
    registry: deps.registry,
    checks: manager,
    log,
  });
  try {
    await manager.start(signal);
  } finally {
    await events.flush();
    await Promise.allSettled(servers.map((s) => s.close()));
  }
}

/**
 * `--kubeconfig`, else every file of `$KUBECONFIG` (merged when loaded, as client-go merges them),
 * else `~/.kube/config` when it exists; undefined means in-cluster (the pod's service account).
 */
export function kubeconfigPath(
  flagValue: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  home = homedir(),
): string | readonly string[] | undefined {
  if (flagValue !== '') return flagValue;
  const fromEnv = kubeconfigEnvPaths(env['KUBECONFIG']);
  if (fromEnv.length > 0) return fromEnv;
  const inHome = join(home, '.kube', 'config');
  return existsSync(inHome) ? inHome : undefined;
}

/** The control plane's kubeconfig; a ConfigError says what is wrong with it. */
export function loadControlPlaneKubeConfig(flagValue: string): KubeConfig {
  return loadKubeConfigs({
    karmada: { label: 'control plane', options: () => ({ path: kubeconfigPath(flagValue) }) },
  }).karmada;
}

function leadership(
  config: ControlPlaneConfig,
  kubeConfig: KubeConfig,
  w: ControlPlaneWiring,
): { leadership?: LeaderElector } {
  const le = config.leaderElection;
  if (!le.enabled) return {};
  return {
    leadership: new LeaderElector({
      kubeConfig,
      transport: CONTROL_PLANE_TRANSPORT,
      namespace: le.namespace,
      name: le.name,
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      log: w.log,
      clock: w.clock,
      random: w.random,
      gauge: makeLeaderGauge(w.registry),
    }),
  };
}
