import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { clusterKind, type Cluster } from '@kf/api';
import {
  LeaderElector,
  ResourceClient,
  WatchCache,
  createWatchCacheMetrics,
  loadKubeConfigs,
  serverOf,
  type WatchCacheMetrics,
} from '@kf/kube';
import {
  ConfigError,
  Manager,
  createControllerMetrics,
  runController,
  startEndpointServers,
  systemClock,
  type Clock,
  type ControllerMetrics,
  type Logger,
  type Runnable,
} from '@kf/runtime';
import type { Registry } from 'prom-client';
import type { ProbeConfig } from './cli.ts';
import { clusterConditionController } from './controllers/cluster-condition/controller.ts';
import { resolvConfFileProblem } from './dns/resolv-conf-file.ts';
import { exchange, type Exchanger } from './dns/transport.ts';
import { createProbeMetrics, type ProbeMetrics } from './metrics.ts';
import { NODE_RESOURCE, projectNode, type NodeObject } from './node/node-object.ts';
import { memberNodeStore, type NodeConditionStore } from './node/node-status.ts';
import { NodeProber } from './node/prober.ts';

export interface ProbeDeps {
  readonly log: Logger;
  readonly registry: Registry;
  readonly clock?: Clock;
  /** DNS transport (default: UDP/TCP sockets). */
  readonly exchanger?: Exchanger;
  /** This node's condition store (default: the member's Node status). */
  readonly nodeStore?: NodeConditionStore;
}

/** A wired probe: `start` runs it until `stop` (resolves on a clean stop, rejects on failure). */
export interface ProbeApp {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Deadline of every API call but watches: short, since a hung call delays a verdict. */
const API_TIMEOUT_MS = 10_000;

/**
 * Wires the probe: the per-node DNS loop (every pod), the cluster aggregation (the elected pod,
 * or every pod with leader election off), leader election on a Lease in the member cluster and
 * the `/metrics`, `/healthz`, `/readyz` servers. Throws ConfigError for unusable kubeconfigs or
 * resolv.conf.
 */
export function createProbeApp(cfg: Readonly<ProbeConfig>, deps: ProbeDeps): ProbeApp {
  const log = deps.log;
  const clock = deps.clock ?? systemClock;
  const { memberKc, karmadaKc } = checkedInputs(cfg);
  warnUnlessIp(log, 'member', memberKc);
  warnUnlessIp(log, 'control plane', karmadaKc);
  const metrics = createProbeMetrics(deps.registry);
  const controllerMetrics = createControllerMetrics(deps.registry);
  const watchMetrics = createWatchCacheMetrics(deps.registry);
  const identity = `${cfg.nodeName}_${randomUUID().slice(0, 8)}`;
  const le = cfg.leaderElection;
  const manager = new Manager({
    log,
    clock,
    ...(le.enabled
      ? {
          leadership: new LeaderElector({
            kubeConfig: memberKc,
            namespace: le.namespace,
            name: le.leaseName,
            identity,
            leaseDurationMs: le.leaseDurationMs,
            renewDeadlineMs: le.renewDeadlineMs,
            retryPeriodMs: le.retryPeriodMs,
            log: log.child({ component: 'leader-election' }),
            clock,
          }),
        }
      : {}),
  });
  const prober = new NodeProber({
    config: {
      names: cfg.names,
      recordType: cfg.recordType,
      resolvConfPath: cfg.resolvConf,
      nameserverPort: cfg.nameserverPort,
      ...(cfg.dnsTimeoutMs === undefined ? {} : { dnsTimeoutMs: cfg.dnsTimeoutMs }),
      ...(cfg.dnsAttempts === undefined ? {} : { dnsAttempts: cfg.dnsAttempts }),
      periodMs: cfg.periodMs,
      hold: { toFalseMs: cfg.failAfterMs, toTrueMs: cfg.recoverAfterMs },
      staleThresholdMs: cfg.staleThresholdMs,
      // Four heartbeats per stale threshold: one lost write never makes the node Unknown, and
      // far fewer Node writes than one per period (every Node watcher in the cluster sees them).
      heartbeatIntervalMs: Math.max(cfg.periodMs, cfg.staleThresholdMs / 4),
    },
    store: deps.nodeStore ?? memberNodeStore(memberKc, cfg.nodeName, API_TIMEOUT_MS),
    exchanger: deps.exchanger ?? exchange,
    clock,
    log,
    metrics,
  });
  manager.add(prober);
  manager.add(
    aggregationRunnable(cfg, { memberKc, karmadaKc, metrics, controllerMetrics, watchMetrics, log, clock }),
  );
  // A wedged loop is restarted; by the time this fires the leader counts the node Unknown anyway.
  manager.addHealthzCheck('dns-probe', prober.liveness(Math.max(3 * cfg.periodMs, 2 * cfg.staleThresholdMs)));
  manager.addReadyzCheck('node-condition', prober.readiness());

  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  return {
    start() {
      running ??= (async () => {
        const servers = await startEndpointServers({
          metricsAt: cfg.metricsBindAddress,
          healthAt: cfg.healthProbeBindAddress,
          registry: deps.registry,
          checks: manager,
          log,
          signal: stopping.signal,
        });
        log.info(
          { node: cfg.nodeName, cluster: cfg.clusterName, identity, leaderElection: le.enabled },
          'probe started',
        );
        try {
          await manager.start(stopping.signal);
        } finally {
          await Promise.all(servers.map((s) => s.close()));
        }
      })();
      return running;
    },
    async stop() {
      stopping.abort(new Error('stopping'));
      await running?.catch(() => undefined);
    },
  };
}

interface AggregationDeps {
  readonly memberKc: KubeConfig;
  readonly karmadaKc: KubeConfig;
  readonly metrics: ProbeMetrics;
  readonly controllerMetrics: ControllerMetrics;
  /** Shared by the caches of every term, so that restarts keep counting across terms. */
  readonly watchMetrics: WatchCacheMetrics;
  readonly log: Logger;
  readonly clock: Clock;
}

/**
 * The leader's work, built fresh for each term: a watch of the member's Nodes, a watch of the
 * one Cluster in the control plane, and the cluster-condition controller over them.
 */
function aggregationRunnable(cfg: Readonly<ProbeConfig>, d: AggregationDeps): Runnable {
  return {
    name: 'cluster-condition',
    needLeaderElection: true,
    async start(signal) {
      const log = d.log.child({ component: 'cluster-condition' });
      const nodes = new WatchCache<NodeObject>({
        kubeConfig: d.memberKc,
        resource: NODE_RESOURCE,
        transform: projectNode,
        log,
        clock: d.clock,
        metrics: d.watchMetrics,
      });
      const clusters = new WatchCache<Cluster>({
        kubeConfig: d.karmadaKc,
        resource: clusterKind,
        fieldSelector: `metadata.name=${cfg.clusterName}`,
        log,
        clock: d.clock,
        metrics: d.watchMetrics,
      });
      const client = new ResourceClient<Cluster>(d.karmadaKc, clusterKind, { timeoutMs: API_TIMEOUT_MS });
      const spec = clusterConditionController({
        clusterName: cfg.clusterName,
        nodes,
        clusters,
        patchStatus: (name, patch, s) => client.patchStatus(name, patch, { signal: s }),
        mode: cfg.aggregation,
        staleThresholdMs: cfg.staleThresholdMs,
        metrics: d.metrics,
      });
      d.metrics.isLeader.set(1);
      nodes.start(signal);
      clusters.start(signal);
      try {
        await runController(spec, { log, metrics: d.controllerMetrics, clock: d.clock }, signal);
      } finally {
        d.metrics.isLeader.set(0);
        await Promise.all([nodes.stop(), clusters.stop()]);
      }
    },
  };
}

/**
 * What the probe checks before it does anything: both kubeconfigs and resolv.conf. A ConfigError
 * names every problem, so that the process exits 2 before its first lookup or write.
 */
function checkedInputs(cfg: Readonly<ProbeConfig>): { memberKc: KubeConfig; karmadaKc: KubeConfig } {
  const problems: string[] = [];
  let loaded: { member: KubeConfig; karmada: KubeConfig } | undefined;
  try {
    loaded = loadKubeConfigs({
      member: { label: 'member', options: { path: cfg.kubeconfig } },
      karmada: {
        label: 'control plane',
        options: { path: cfg.karmadaKubeconfig, context: cfg.karmadaContext },
      },
    });
  } catch (err: unknown) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  const resolvConf = resolvConfFileProblem(cfg.resolvConf);
  if (resolvConf !== undefined) problems.push(resolvConf);
  if (loaded === undefined || problems.length > 0) throw new ConfigError(problems);
  return { memberKc: loaded.member, karmadaKc: loaded.karmada };
}

/**
 * Reaching an API server by name needs DNS, which may be what is broken: Karmada's detector
 * refuses member kubeconfigs with host names; this probe warns instead.
 */
function warnUnlessIp(log: Logger, which: string, kc: KubeConfig): void {
  const host = new URL(serverOf(kc)).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0) {
    log.warn(
      { apiServer: which, host },
      'API server is addressed by name: when DNS fails the probe may not reach it',
    );
  }
}
