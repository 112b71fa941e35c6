/**
 * A real Karmada control plane (kube-apiserver + etcd with the CRDs) and the control-plane app
 * running in this process with the least privileges of deploy/controlplane/rbac.yaml. Member
 * agents are played by the test: it registers Clusters, posts their Ready condition and renews
 * their heartbeat Leases.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import {
  annotations,
  clusterKind,
  namespaces,
  resourceBindingKind,
  setCondition,
  taintEffects,
  type Cluster,
  type ConditionStatus,
  type ResourceBinding,
  type Toleration,
} from '@kf/api';
import {
  CORE_EVENT_RESOURCE,
  LEASE_RESOURCE,
  ResourceClient,
  formatMicroTime,
  isNotFound,
  loadKubeConfig,
  updateWithRetry,
  type CoreEvent,
  type Lease,
} from '@kf/kube';
import { createLogger, createRegistry } from '@kf/runtime';
import { applyDefaultTaintPolicy, freePort, startControlPlane, type LocalCluster } from '@kf/testing';
import { createControlPlane } from '../src/app.ts';
import { buildControlPlaneCommand, type ControlPlaneConfig } from '../src/cli.ts';

const execFileAsync = promisify(execFile);
export const DEPLOY_CONTROLPLANE = join(import.meta.dirname, '..', '..', 'deploy', 'controlplane');
const SERVICE_ACCOUNT_USER = 'system:serviceaccount:karmada-system:karmada-failover-cp';

/** Short periods so that tests stay short; each can be overridden. */
export const TEST_FLAGS = [
  '--failover',
  '--leader-elect=false',
  '--metrics-bind-address=0',
  '--health-probe-bind-address=0',
  '--log-level=silent',
  '--cluster-monitor-period=1s',
  '--cluster-monitor-grace-period=4s',
  '--cluster-startup-grace-period=6s',
];

/** Leader election on, with periods short enough for a restarted process to take over quickly. */
export const LEADER_ELECTION_FLAGS = [
  '--leader-elect=true',
  '--leader-elect-lease-duration=4s',
  '--leader-elect-renew-deadline=3s',
  '--leader-elect-retry-period=1s',
];

export interface Plane {
  readonly cluster: LocalCluster;
  /** Admin clients. */
  readonly clusters: ResourceClient<Cluster>;
  readonly leases: ResourceClient<Lease>;
  readonly events: ResourceClient<CoreEvent>;
  /** The control plane's own (service account) kubeconfig. */
  readonly controlPlaneKubeconfig: string;
}

export async function startPlane(): Promise<Plane> {
  const cluster = await startControlPlane();
  try {
    return await preparePlane(cluster);
  } catch (err) {
    await cluster.destroy(); // nobody else holds it yet
    throw err;
  }
}

async function preparePlane(cluster: LocalCluster): Promise<Plane> {
  const kc = cluster.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  for (const name of [namespaces.system, namespaces.cluster]) {
    await core.createNamespace({ body: { metadata: { name } } });
  }
  const apply = async (file: string): Promise<void> => {
    await execFileAsync(
      cluster.kubectlPath,
      cluster.kubectlArgs('apply', '-f', join(DEPLOY_CONTROLPLANE, file)),
    );
  };
  await apply('rbac.yaml');
  return {
    cluster,
    clusters: new ResourceClient<Cluster>(kc, clusterKind),
    leases: new ResourceClient<Lease>(kc, LEASE_RESOURCE),
    events: new ResourceClient<CoreEvent>(kc, CORE_EVENT_RESOURCE),
    controlPlaneKubeconfig: await cluster.userKubeconfig(SERVICE_ACCOUNT_USER, [
      'system:serviceaccounts',
      'system:serviceaccounts:karmada-system',
    ]),
  };
}

export interface RunningControlPlane {
  readonly registry: Registry;
  stop(): Promise<void>;
}

/** Parses `flags` like the binary does and runs the app until stop(). */
export async function runControlPlane(plane: Plane, flags: readonly string[]): Promise<RunningControlPlane> {
  let config: ControlPlaneConfig | undefined;
  await buildControlPlaneCommand(async (c) => {
    config = c;
    return Promise.resolve();
  }).parseAsync(['run', ...TEST_FLAGS, ...flags], { from: 'user' });
  if (config === undefined) throw new Error('flags did not produce a configuration');
  const registry = createRegistry({ component: 'controlplane', version: 'test' });
  const stop = new AbortController();
  const done = createControlPlane(config, {
    log: createLogger({ component: 'controlplane', level: 'silent' }),
    registry,
    kubeConfig: loadKubeConfig({ path: plane.controlPlaneKubeconfig }),
    extraControllers: [], // these tests are about the cluster-facing controllers alone
  }).start(stop.signal);
  done.catch(() => undefined); // surfaced by stop()
  return {
    registry,
    stop: async () => {
      stop.abort();
      await done;
    },
  };
}

/**
 * What the in-process tests start from: a plane with the default ClusterTaintPolicy, Pull clusters
 * kept alive by {@link FakeAgents}, and the control plane app running with `flags`.
 */
export interface Scenario {
  readonly plane: Plane;
  readonly agents: FakeAgents;
  readonly app: RunningControlPlane;
  /** Admin client of ResourceBindings. */
  readonly bindings: ResourceClient<ResourceBinding>;
  stop(): Promise<void>;
}

export async function startScenario(
  clusters: readonly string[],
  flags: readonly string[] = [],
): Promise<Scenario> {
  const plane = await startPlane();
  let agents: FakeAgents | undefined;
  try {
    // No hold time: these scenarios time the NoExecute taint from the moment Ready changes.
    await applyDefaultTaintPolicy(plane.cluster, 0);
    const bindings = new ResourceClient<ResourceBinding>(plane.cluster.kubeConfig(), resourceBindingKind);
    agents = new FakeAgents(plane);
    for (const name of clusters) await agents.register(name);
    const app = await runControlPlane(plane, flags);
    const running = agents;
    return {
      plane,
      agents,
      app,
      bindings,
      stop: async () => {
        running.stop();
        await app.stop();
        await plane.cluster.destroy();
      },
    };
  } catch (err) {
    agents?.stop();
    await plane.cluster.destroy();
    throw err;
  }
}

/**
 * Plays the agents of Pull clusters: registers them and renews the heartbeat Lease of every
 * cluster marked alive, every 500 ms (well inside the 4s test grace period).
 */
export class FakeAgents {
  readonly #plane: Plane;
  readonly #alive = new Set<string>();
  readonly #timer: NodeJS.Timeout;
  readonly lastRenewAtMs = new Map<string, number>();

  constructor(plane: Plane) {
    this.#plane = plane;
    this.#timer = setInterval(() => {
      void this.#renewAll();
    }, 500);
  }

  /** Registers a Pull cluster with Ready=True and a fresh Lease, and keeps it alive. */
  async register(name: string): Promise<void> {
    await this.#plane.clusters.create({ metadata: { name }, spec: { syncMode: 'Pull' } });
    await this.setCondition(name, 'Ready', 'True', 'ClusterReady');
    await this.#renew(name);
    this.#alive.add(name);
  }

  /**
   * Stops renewing the cluster's Lease (the agent died). Resolves with the time of the last
   * renewal, once a renewal that was in flight has surely landed.
   */
  async silence(name: string): Promise<number> {
    this.#alive.delete(name);
    await new Promise((resolve) => setTimeout(resolve, 700));
    return this.lastRenewAtMs.get(name) ?? 0;
  }

  revive(name: string): void {
    this.#alive.add(name);
  }

  async setCondition(name: string, type: string, status: ConditionStatus, reason: string): Promise<void> {
    const clusters = this.#plane.clusters;
    await updateWithRetry({
      read: () => clusters.get(name),
      mutate: (c) => ({
        ...c,
        status: {
          ...c.status,
          conditions: setCondition(c.status?.conditions, { type, status, reason, message: '' }, Date.now()),
        },
      }),
      write: (c) => clusters.replaceStatus(c),
    });
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #renewAll(): Promise<void> {
    await Promise.allSettled([...this.#alive].map((n) => this.#renew(n)));
  }

  async #renew(name: string): Promise<void> {
    const nowMs = Date.now();
    const spec = { holderIdentity: name, leaseDurationSeconds: 40, renewTime: formatMicroTime(nowMs) };
    const leases = this.#plane.leases;
    const key = `${namespaces.cluster}/${name}`;
    try {
      const lease = await leases.get(key);
      await leases.replace({ ...lease, spec: { ...lease.spec, ...spec } });
    } catch (err: unknown) {
      if (!isNotFound(err)) throw err;
      await leases.create({ metadata: { name, namespace: namespaces.cluster }, spec });
    }
    this.lastRenewAtMs.set(name, nowMs);
  }
}

/** Events about one object (any namespace the recorder used). */
export async function eventsAbout(plane: Plane, name: string, reason: string): Promise<CoreEvent[]> {
  const { items } = await plane.events.list();
  return items.filter((e) => e.involvedObject.name === name && e.reason === reason);
}

/** The value of a gauge or counter sample in the registry (undefined when absent). */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return undefined;
  const { values } = await metric.get();
  const sample = values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x));
  return sample?.value;
}

/** Checks `condition` every 200 ms for `ms` and fails the first time it does not hold. */
export async function holdsFor(ms: number, what: string, condition: () => Promise<boolean>): Promise<void> {
  const endAtMs = Date.now() + ms;
  while (Date.now() < endAtMs) {
    if (!(await condition())) throw new Error(`${what} stopped holding`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A ResourceBinding placed on `clusters` (2 replicas each) with an applied placement tolerating `tolerations`. */
export function placedBinding(
  name: string,
  clusters: readonly string[],
  tolerations: readonly Toleration[] = [],
  namespace = 'default',
): ResourceBinding {
  return {
    metadata: {
      name,
      namespace,
      annotations: { [annotations.appliedPlacement]: JSON.stringify({ clusterTolerations: tolerations }) },
    },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name },
      replicas: 2 * clusters.length,
      clusters: clusters.map((c) => ({ name: c, replicas: 2 })),
    },
  };
}

/** Runs `task` over `items` with at most `concurrency` at a time. */
export async function forEachLimited<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** Adds a NoExecute taint nothing tolerates to a cluster (the API server stamps `timeAdded`). */
export async function taintNoExecute(plane: Plane, cluster: string, key: string): Promise<void> {
  const clusters = plane.clusters;
  await updateWithRetry({
    read: () => clusters.get(cluster),
    mutate: (c) => ({
      ...c,
      spec: { ...c.spec, taints: [...(c.spec.taints ?? []), { key, effect: taintEffects.noExecute }] },
    }),
    write: (c) => clusters.replace(c),
  });
}

const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');

/**
 * The control plane binary (`node controlplane/src/main.ts …`) as a child process of the test, its
 * stdout (JSON log lines) and stderr kept for checks.
 */
export class ControlPlaneProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** Resolves with the exit code (null when ended by a signal) and the signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #stdout = '';
  #stderr = '';

  private constructor(child: ChildProcess, port: number) {
    this.child = child;
    this.port = port;
    child.stdout?.on('data', (chunk: Buffer) => {
      this.#stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        resolve({ code, signal });
      });
    });
  }

  /** `node controlplane/src/main.ts <args>`, exactly these arguments. */
  static spawn(args: readonly string[]): ControlPlaneProcess {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    return new ControlPlaneProcess(child, 0);
  }

  /** `run` with the test flags, info logs, and /metrics and /readyz on one free loopback port. */
  static async start(kubeconfig: string, flags: readonly string[]): Promise<ControlPlaneProcess> {
    const port = await freePort();
    const args = [
      'run',
      `--kubeconfig=${kubeconfig}`,
      ...TEST_FLAGS.filter((f) => !/^--(log-level|metrics-bind-address|health-probe-bind-address)=/.test(f)),
      '--log-level=info',
      `--metrics-bind-address=127.0.0.1:${port}`,
      `--health-probe-bind-address=127.0.0.1:${port}`,
      ...flags,
    ];
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    return new ControlPlaneProcess(child, port);
  }

  /** Log lines (parsed JSON) written so far. */
  logs(): Record<string, unknown>[] {
    return this.#stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  stderr(): string {
    return this.#stderr;
  }

  /** Resolves once /readyz answers 200 (caches synced). */
  async ready(timeoutMs = 60_000): Promise<void> {
    const endAtMs = Date.now() + timeoutMs;
    while (Date.now() < endAtMs) {
      if (this.child.exitCode !== null) throw new Error(`control plane exited: ${this.#stderr}`);
      const res = await fetch(`http://127.0.0.1:${this.port}/readyz`).catch(() => undefined);
      if (res?.status === 200) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error('control plane not ready in time');
  }

  /** The value of one sample of /metrics (undefined when absent). */
  async metric(name: string, labels: Readonly<Record<string, string>> = {}): Promise<number | undefined> {
    const text = await (await fetch(`http://127.0.0.1:${this.port}/metrics`)).text();
    for (const line of text.split('\n')) {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (m?.[1] !== name) continue;
      const found = Object.fromEntries(
        [...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1] ?? '', x[2] ?? '']),
      );
      if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(m[3]);
    }
    return undefined;
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
