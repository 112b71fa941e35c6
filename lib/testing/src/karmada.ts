/**
 * A real Karmada control plane on loopback, as a peer for interop tests: karmada-apiserver (a
 * kube-apiserver with Karmada's CRDs), karmada-aggregated-apiserver serving `cluster.karmada.io`
 * behind an APIService, karmada-webhook with Karmada's own admission configuration,
 * karmada-scheduler and karmada-controller-manager, all built from Karmada's Go module at the
 * pinned version (scripts/build-karmada.sh, scripts/fetch-karmada.sh).
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { scriptOutputFolder } from './binaries.ts';
import { LocalCluster } from './cluster.ts';
import { installCrds } from './crds.ts';
import { CONTROL_PLANE_NAME, PID_FILE } from './federation.ts';
import { freePort } from './ports.ts';
import { MEMBER_STATUS_FLAGS } from './member-host-timing.ts';
import { ManagedProcess, logTail } from './process.ts';
import { httpsStatus, waitUntil } from './readiness.ts';
import { newRunDir, removeRunDir } from './run-dir.ts';

const execFileAsync = promisify(execFile);

export const KARMADA_VERSION = 'v1.18.2';
const KARMADA_SYSTEM = 'karmada-system';
const AGGREGATED_SERVICE = 'karmada-aggregated-apiserver';
const CLUSTER_API = '/apis/cluster.karmada.io/v1alpha1';
const READY_TIMEOUT_MS = 120_000;
/** A controller-runtime component gets this long per start, and two starts. */
const START_ATTEMPT_TIMEOUT_MS = 60_000;
const START_ATTEMPTS = 2;

export type KarmadaComponent = 'aggregated-apiserver' | 'webhook' | 'scheduler' | 'controller-manager';

export interface KarmadaBinaries {
  readonly dir: string;
  readonly crdDir: string;
  /** Karmada's admission webhook configuration (its deploy artifact, URLs to be filled in). */
  readonly webhookConfiguration: string;
  binary(component: KarmadaComponent | 'agent'): string;
  /** Karmada's CLI (`karmadactl join` makes Push clusters as Karmada users do). */
  readonly karmadactl: string;
}

let located: Promise<KarmadaBinaries> | undefined;

/** Karmada's binaries, CRDs and webhook configuration, built or fetched on first use (cached by version). */
export function karmadaBinaries(): Promise<KarmadaBinaries> {
  located ??= (async () => {
    const dir = await scriptOutputFolder('build-karmada.sh');
    const crdDir = await scriptOutputFolder('fetch-karmada.sh');
    return {
      dir,
      crdDir,
      webhookConfiguration: join(crdDir, '..', 'deploy', 'webhook-configuration.yaml'),
      binary: (component) => join(dir, `karmada-${component}`),
      karmadactl: join(dir, 'karmadactl'),
    };
  })();
  return located;
}

/** Controller-manager timings: short, as the project's federation uses, unless a test says otherwise. */
export const KARMADA_TEST_CONTROLLER_FLAGS: readonly string[] = [
  '--cluster-monitor-period=1s',
  '--cluster-monitor-grace-period=5s',
  '--cluster-startup-grace-period=20s',
  '--feature-gates=Failover=true,GracefulEviction=true',
  '--enable-no-execute-taint-eviction=true',
  '--resource-eviction-rate=50',
  // Push clusters: the same periods as the project's federation gives its member hosts.
  ...MEMBER_STATUS_FLAGS,
];

export interface KarmadaOptions {
  /** Root folder (default: a fresh one under .run/, removed by destroy()). */
  readonly runDir?: string;
  /** Which of Karmada's controller processes to run (default all four). */
  readonly components?: readonly KarmadaComponent[];
  /** Extra controller-manager flags (after KARMADA_TEST_CONTROLLER_FLAGS, so they win). */
  readonly controllerManagerFlags?: readonly string[];
  /** Install Karmada's CRDs (default true); false leaves the API server with Clusters only. */
  readonly crds?: boolean;
}

interface Endpoint {
  readonly port: number;
  readonly health: number;
}

/** A running Karmada control plane. `cluster` is karmada-apiserver (admin kubeconfig and all). */
export class KarmadaControlPlane {
  readonly runDir: string;
  readonly cluster: LocalCluster;
  readonly #processes = new Map<KarmadaComponent, ManagedProcess>();
  readonly #ownsRunDir: boolean;

  private constructor(runDir: string, cluster: LocalCluster, ownsRunDir: boolean) {
    this.runDir = runDir;
    this.cluster = cluster;
    this.#ownsRunDir = ownsRunDir;
  }

  static async start(opts: KarmadaOptions = {}): Promise<KarmadaControlPlane> {
    const runDir = opts.runDir ?? (await newRunDir('karmada'));
    await mkdir(join(runDir, 'logs'), { recursive: true });
    const [bins, cluster] = await Promise.all([
      karmadaBinaries(),
      LocalCluster.create({
        name: CONTROL_PLANE_NAME,
        role: 'control-plane',
        dir: join(runDir, CONTROL_PLANE_NAME),
        pidFile: join(runDir, PID_FILE),
        aggregation: true,
      }),
    ]);
    const karmada = new KarmadaControlPlane(runDir, cluster, opts.runDir === undefined);
    try {
      if (opts.crds !== false) await installCrds(cluster, bins.crdDir);
      await karmada.#kubectlApply('namespaces', [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: KARMADA_SYSTEM } },
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'karmada-cluster' } },
      ]);
      const wanted = new Set(
        opts.components ?? ['aggregated-apiserver', 'webhook', 'scheduler', 'controller-manager'],
      );
      if (wanted.has('aggregated-apiserver')) await karmada.#startAggregatedApiServer(bins);
      if (wanted.has('webhook')) await karmada.#startWebhook(bins);
      if (wanted.has('scheduler')) await karmada.#startComponent(bins, 'scheduler', []);
      if (wanted.has('controller-manager')) {
        await karmada.#startComponent(bins, 'controller-manager', [
          ...KARMADA_TEST_CONTROLLER_FLAGS,
          ...(opts.controllerManagerFlags ?? []),
        ]);
      }
      return karmada;
    } catch (err) {
      await karmada.destroy();
      throw err;
    }
  }

  /** The process id of a running component (benchmarks read its CPU and memory from /proc). */
  pidOf(component: KarmadaComponent): number | undefined {
    return this.#processes.get(component)?.pid;
  }

  async stop(): Promise<void> {
    for (const p of [...this.#processes.values()].reverse()) await p.stop();
    await this.cluster.stop();
  }

  async destroy(): Promise<void> {
    await this.stop();
    await removeRunDir(this.#ownsRunDir ? this.runDir : this.cluster.dir);
  }

  async #kubectlApply(name: string, objects: readonly object[]): Promise<void> {
    const file = join(this.runDir, `${name}.json`);
    await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
    await execFileAsync(this.cluster.kubectlPath, this.cluster.kubectlArgs('apply', '-f', file));
  }

  #process(bins: KarmadaBinaries, component: KarmadaComponent, args: readonly string[]): ManagedProcess {
    const p = new ManagedProcess({
      name: `karmada-${component}`,
      command: bins.binary(component),
      args: [`--kubeconfig=${this.cluster.kubeconfigPath}`, ...args],
      logDir: join(this.runDir, 'logs'),
      pidFile: join(this.runDir, PID_FILE),
    });
    this.#processes.set(component, p);
    return p;
  }

  async #endpoint(): Promise<Endpoint> {
    return { port: await freePort(), health: await freePort() };
  }

  /**
   * Starts a controller-runtime component and waits for its /healthz. A component that is running
   * but not healthy in time is started once more on new ports (its log says why, and the error
   * quotes it): under a full suite's load a start has been seen to hang before its server came up.
   */
  async #startComponent(
    bins: KarmadaBinaries,
    component: KarmadaComponent,
    extra: readonly string[],
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const ep = await this.#endpoint();
      const p = this.#process(bins, component, [
        '--leader-elect=false',
        `--metrics-bind-address=127.0.0.1:${ep.port}`,
        `--health-probe-bind-address=127.0.0.1:${ep.health}`,
        '--v=2',
        ...extra,
      ]);
      await p.start();
      const healthz = `http://127.0.0.1:${ep.health}/healthz`;
      try {
        await this.#waitFor(
          p,
          `karmada-${component} /healthz`,
          async () =>
            (await fetch(healthz, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined))?.status ===
            200,
          START_ATTEMPT_TIMEOUT_MS,
        );
        return;
      } catch (err: unknown) {
        const running = p.isRunning();
        await p.stop();
        const tail = await logTail(p.logFile, 15);
        if (attempt >= START_ATTEMPTS || !running) {
          throw new Error(`${err instanceof Error ? err.message : String(err)}; its log ends:\n${tail}`, {
            cause: err,
          });
        }
        process.stderr.write(
          `karmada-${component} not healthy, starting it again; its log ended:\n${tail}\n`,
        );
      }
    }
  }

  /** Waits until `probe` holds, failing at once (with its log) if the component's process exits. */
  async #waitFor(
    p: ManagedProcess,
    what: string,
    probe: () => Promise<boolean>,
    timeoutMs = READY_TIMEOUT_MS,
  ): Promise<void> {
    await waitUntil(what, probe, {
      timeoutMs,
      intervalMs: 250,
      abortIf: () => (p.isRunning() ? undefined : `exited; see ${p.logFile}`),
    });
  }

  /**
   * karmada-aggregated-apiserver on the control plane's etcd, reached through an APIService whose
   * Service is an ExternalName for localhost: the API server dials the name itself, so no kube-proxy
   * or Endpoints (which refuse loopback addresses) are needed.
   */
  async #startAggregatedApiServer(bins: KarmadaBinaries): Promise<void> {
    const port = await freePort();
    const serviceDns = `${AGGREGATED_SERVICE}.${KARMADA_SYSTEM}.svc`;
    const tls = await this.cluster.servingCert(AGGREGATED_SERVICE, ['localhost', serviceDns]);
    const kubeconfig = this.cluster.kubeconfigPath;
    const p = this.#process(bins, 'aggregated-apiserver', [
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      `--etcd-servers=${this.cluster.etcdUrl}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--tls-cert-file=${tls.cert}`,
      `--tls-private-key-file=${tls.key}`,
      '--v=1',
    ]);
    await p.start();
    const caBundle = Buffer.from(await this.cluster.caPem()).toString('base64');
    await this.#kubectlApply('aggregated-apiserver', [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: AGGREGATED_SERVICE, namespace: KARMADA_SYSTEM },
        spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ port, protocol: 'TCP' }] },
      },
      {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: 'v1alpha1.cluster.karmada.io' },
        spec: {
          group: 'cluster.karmada.io',
          version: 'v1alpha1',
          groupPriorityMinimum: 2000,
          versionPriority: 10,
          caBundle,
          service: { name: AGGREGATED_SERVICE, namespace: KARMADA_SYSTEM, port },
        },
      },
    ]);
    const admin = this.cluster.adminTls;
    await this.#waitFor(
      p,
      `${CLUSTER_API} served through the APIService`,
      async () => (await httpsStatus(`${this.cluster.server}${CLUSTER_API}`, admin)) === 200,
    );
  }

  /** karmada-webhook, and Karmada's own webhook configuration pointed at it. */
  async #startWebhook(bins: KarmadaBinaries): Promise<void> {
    const ep = await this.#endpoint();
    const port = await freePort();
    const tls = await this.cluster.servingCert('karmada-webhook', ['localhost']);
    const p = this.#process(bins, 'webhook', [
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${dirname(tls.cert)}`,
      `--tls-cert-file-name=${basename(tls.cert)}`,
      `--tls-private-key-file-name=${basename(tls.key)}`,
      `--metrics-bind-address=127.0.0.1:${ep.port}`,
      `--health-probe-bind-address=127.0.0.1:${ep.health}`,
      '--allow-no-execute-taint-policy=true',
      '--v=2',
    ]);
    await p.start();
    // karmada-webhook registers no health checks: it is up once its TLS port answers (with the CA
    // the configuration below gives the API server, so the certificate is checked too).
    await this.#waitFor(
      p,
      'karmada-webhook serving TLS',
      async () => (await httpsStatus(`https://localhost:${port}/`, this.cluster.adminTls)) > 0,
    );
    const caBundle = Buffer.from(await this.cluster.caPem()).toString('base64');
    const config = (await readFile(bins.webhookConfiguration, 'utf8'))
      .replaceAll('https://karmada-webhook.karmada-system.svc:443', `https://localhost:${port}`)
      .replaceAll('{{caBundle}}', caBundle);
    const file = join(this.runDir, 'webhook-configuration.yaml');
    await writeFile(file, config);
    await execFileAsync(this.cluster.kubectlPath, this.cluster.kubectlArgs('apply', '-f', file));
  }
}
