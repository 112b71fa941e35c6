import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeBinaries, type KubeBinaries } from './binaries.ts';
import { writeKubeconfig } from './kubeconfig-file.ts';
import { removeRunDir } from './run-dir.ts';
import { ensureClusterPki, issueClientCert, issueServingCert, type ClusterPki } from './pki.ts';
import { freePort } from './ports.ts';
import { ManagedProcess, logTail } from './process.ts';
import { httpsStatus, waitUntil } from './readiness.ts';
import type { ClusterHandle } from './types.ts';

export type ClusterRole = 'control-plane' | 'member';

export interface LocalClusterOptions {
  readonly name: string;
  readonly role: ClusterRole;
  /** Folder for this cluster's PKI, etcd data, logs and kubeconfigs. */
  readonly dir: string;
  /** File collecting the pids of every process started (for an out-of-process tear-down). */
  readonly pidFile?: string;
  /** Folder that destroy() deletes (default: `dir`). */
  readonly ownedDir?: string;
  /**
   * Whether the API server proxies to aggregated API servers (an APIService backed by a server of
   * the test's own, as Karmada serves Clusters): it gets a front-proxy client certificate and the
   * request-header settings such servers trust. Default false.
   */
  readonly aggregation?: boolean;
}

interface Ports {
  readonly api: number;
  readonly etcdClient: number;
  readonly etcdPeer: number;
  readonly controllerManager: number;
  readonly scheduler: number;
  readonly kwok: number;
}

const ADMIN_USER = 'kf-admin';
/** The name the API server presents to aggregated API servers (they trust only this one). */
const FRONT_PROXY_USER = 'front-proxy-client';
/** Outside kube-apiserver's `/registry` prefix, so that writing it is no event on any resource. */
const COMPACTION_MARKER_KEY = '/karmada-failover-testing/compaction-marker';
const READY_TIMEOUT_MS = 180_000;

/**
 * The control plane runs only the controllers the product relies on from Kubernetes itself:
 * namespace deletion and garbage collection. Members run the full set so that Deployments roll out.
 */
const CONTROL_PLANE_CONTROLLERS = 'namespace-controller,garbage-collector-controller';

async function allocatePorts(): Promise<Ports> {
  const taken = new Set<number>();
  const next = async (): Promise<number> => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  return {
    api: await next(),
    etcdClient: await next(),
    etcdPeer: await next(),
    controllerManager: await next(),
    scheduler: await next(),
    kwok: await next(),
  };
}

/** One call to etcd's JSON gateway (gRPC over HTTP/1.1), which needs no client binary. */
async function etcdPost<T>(url: string, body: object): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`etcd ${new URL(url).pathname}: HTTP ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** etcd + kube-apiserver (+ controller-manager, and for members scheduler and KWOK) on loopback. */
export class LocalCluster implements ClusterHandle {
  readonly name: string;
  readonly role: ClusterRole;
  readonly dir: string;
  readonly kubeconfigPath: string;
  private readonly pidFile: string | undefined;
  private readonly ownedDir: string;
  private readonly aggregation: boolean;
  private frontProxy: { cert: string; key: string } | undefined;
  private ports!: Ports;
  private pki!: ClusterPki;
  private bins!: KubeBinaries;
  private etcd!: ManagedProcess;
  private apiserver!: ManagedProcess;
  private controllers: ManagedProcess[] = [];

  private constructor(opts: LocalClusterOptions) {
    this.name = opts.name;
    this.role = opts.role;
    this.dir = opts.dir;
    this.pidFile = opts.pidFile;
    this.ownedDir = opts.ownedDir ?? opts.dir;
    this.aggregation = opts.aggregation === true;
    this.kubeconfigPath = join(opts.dir, 'kubeconfig');
  }

  /** Prepares PKI, ports and kubeconfig, then starts every process and waits for /readyz. */
  static async create(opts: LocalClusterOptions): Promise<LocalCluster> {
    const cluster = new LocalCluster(opts);
    await cluster.prepare();
    await cluster.start();
    return cluster;
  }

  get server(): string {
    return `https://127.0.0.1:${this.ports.api}`;
  }

  /** The admin client certificate files (for tools that want them directly). */
  get adminTls(): { caFile: string; certFile: string; keyFile: string } {
    return {
      caFile: this.pki.caCert,
      certFile: join(this.pki.dir, `client-${ADMIN_USER}.crt`),
      keyFile: join(this.pki.dir, `client-${ADMIN_USER}.key`),
    };
  }

  get kubectlPath(): string {
    return this.bins.kubectl;
  }

  /** The cluster's CA certificate, PEM (for a caBundle of an APIService or webhook it calls). */
  async caPem(): Promise<string> {
    return readFile(this.pki.caCert, 'utf8');
  }

  /** A serving certificate from this cluster's CA for a server its API server calls. */
  servingCert(name: string, dnsNames: readonly string[]): Promise<{ cert: string; key: string }> {
    return issueServingCert(this.pki, name, dnsNames);
  }

  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromFile(this.kubeconfigPath);
    return kc;
  }

  async userKubeconfig(user: string, groups: readonly string[] = []): Promise<string> {
    const { cert, key } = await issueClientCert(this.pki, user, groups);
    const path = join(this.dir, `kubeconfig-${user.replace(/[^a-zA-Z0-9_.-]/g, '_')}`);
    await writeKubeconfig(path, {
      clusterName: this.name,
      server: this.server,
      caFile: this.pki.caCert,
      certFile: cert,
      keyFile: key,
      user,
    });
    return path;
  }

  isRunning(): boolean {
    return this.apiserver.isRunning();
  }

  /** Which of this cluster's processes has exited on its own, with where its log is; else undefined. */
  exitedProcess(): string | undefined {
    const dead = [this.etcd, this.apiserver, ...this.controllers].find((p) => !p.isRunning());
    return dead === undefined ? undefined : `${dead.spec.name} exited; see ${dead.logFile}`;
  }

  async start(): Promise<void> {
    await this.etcd.start();
    await this.startApiServer();
    for (const p of this.controllers) await p.start();
  }

  async stop(): Promise<void> {
    for (const p of [...this.controllers].reverse()) await p.stop();
    await this.apiserver.stop();
    await this.etcd.stop();
  }

  async destroy(): Promise<void> {
    await this.stop();
    await removeRunDir(this.ownedDir);
  }

  async restartApiServer(): Promise<void> {
    await this.apiserver.stop();
    await this.startApiServer();
  }

  /** Kills only the API server process (SIGKILL, as a crash would); etcd and the rest keep running. */
  async killApiServer(): Promise<void> {
    await this.apiserver.kill();
  }

  /** Starts the API server again after killApiServer() and waits for /readyz. */
  async resumeApiServer(): Promise<void> {
    await this.startApiServer();
  }

  /** `http://127.0.0.1:<port>` of etcd's client endpoint (plain HTTP: loopback only). */
  get etcdUrl(): string {
    return `http://127.0.0.1:${this.ports.etcdClient}`;
  }

  /**
   * Compacts etcd's history so that no resourceVersion handed out so far can be read or watched
   * from etcd again (`410 Gone`, reason `Expired`): what kube-apiserver's own compaction does every
   * 5 minutes, at once and up to now. A write to a key outside kube-apiserver's `/registry` first
   * moves the revision past every resourceVersion that clients have seen, without an event on any
   * resource. Returns the compacted revision.
   *
   * Through kube-apiserver this shows only once its watch cache starts again: the cache keeps
   * serving open watches and recent lists whatever etcd keeps, and etcd cancels only watchers that
   * lag behind. expireWatches() does both.
   */
  async compactEtcd(): Promise<number> {
    const put = await etcdPost<{ header?: { revision?: string } }>(`${this.etcdUrl}/v3/kv/put`, {
      key: Buffer.from(COMPACTION_MARKER_KEY).toString('base64'),
      value: Buffer.from(new Date().toISOString()).toString('base64'),
    });
    const revision = Number(put.header?.revision);
    if (!Number.isInteger(revision)) throw new Error(`${this.name}: etcd put answered no revision`);
    await etcdPost(`${this.etcdUrl}/v3/kv/compaction`, { revision: String(revision), physical: true });
    return revision;
  }

  /**
   * Every open watch on this cluster breaks and cannot be resumed: etcd is compacted (see
   * compactEtcd) and the API server killed and started again, so its watch cache starts at the
   * current revision. A client resuming a watch from the resourceVersion it had gets an `ERROR`
   * event with `410 Expired` ("too old resource version") and must list again, as after a long
   * partition. Returns the compacted revision.
   */
  async expireWatches(): Promise<number> {
    const revision = await this.compactEtcd();
    await this.killApiServer();
    await this.resumeApiServer();
    return revision;
  }

  /** The kubectl binary run against this cluster as admin. */
  kubectlArgs(...args: string[]): string[] {
    return ['--kubeconfig', this.kubeconfigPath, ...args];
  }

  private async startApiServer(): Promise<void> {
    await this.apiserver.start();
    const tls = this.adminTls;
    await waitUntil(
      `${this.name} kube-apiserver /readyz`,
      async () => (await httpsStatus(`${this.server}/readyz`, tls)) === 200,
      {
        timeoutMs: READY_TIMEOUT_MS,
        abortIf: () => (this.apiserver.isRunning() ? undefined : `exited; see ${this.apiserver.logFile}`),
      },
    );
  }

  private async prepare(): Promise<void> {
    const logDir = join(this.dir, 'logs');
    await mkdir(logDir, { recursive: true });
    this.bins = await kubeBinaries();
    this.pki = await ensureClusterPki(join(this.dir, 'pki'));
    this.ports = await allocatePorts();
    const admin = await issueClientCert(this.pki, ADMIN_USER, ['system:masters']);
    if (this.aggregation) this.frontProxy = await issueClientCert(this.pki, FRONT_PROXY_USER, []);
    await writeKubeconfig(this.kubeconfigPath, {
      clusterName: this.name,
      server: this.server,
      caFile: this.pki.caCert,
      certFile: admin.cert,
      keyFile: admin.key,
      user: ADMIN_USER,
    });
    const proc = (name: string, command: string, args: string[]): ManagedProcess =>
      new ManagedProcess({ name, command, args, logDir, ...(this.pidFile ? { pidFile: this.pidFile } : {}) });
    this.etcd = proc('etcd', this.bins.etcd, this.etcdArgs());
    this.apiserver = proc('kube-apiserver', this.bins.kubeApiserver, this.apiserverArgs());
    this.controllers = [proc('kube-controller-manager', this.bins.kubeControllerManager, this.kcmArgs())];
    if (this.role === 'member') {
      this.controllers.push(proc('kube-scheduler', this.bins.kubeScheduler, this.schedulerArgs()));
      this.controllers.push(proc('kwok', this.bins.kwok, this.kwokArgs()));
    }
  }

  private etcdArgs(): string[] {
    const client = `http://127.0.0.1:${this.ports.etcdClient}`;
    const peer = `http://127.0.0.1:${this.ports.etcdPeer}`;
    return [
      `--name=${this.name}`,
      `--data-dir=${join(this.dir, 'etcd')}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=${this.name}=${peer}`,
      // Test data is disposable: skip fsync so that a 2-core machine keeps up.
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ];
  }

  private apiserverArgs(): string[] {
    return [
      `--etcd-servers=http://127.0.0.1:${this.ports.etcdClient}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${this.ports.api}`,
      `--tls-cert-file=${this.pki.servingCert}`,
      `--tls-private-key-file=${this.pki.servingKey}`,
      `--client-ca-file=${this.pki.caCert}`,
      '--service-cluster-ip-range=10.96.0.0/16',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${this.pki.serviceAccountPub}`,
      `--service-account-signing-key-file=${this.pki.serviceAccountKey}`,
      '--authorization-mode=RBAC',
      // No token controller on purpose: pods need no ServiceAccount to run on KWOK nodes.
      '--disable-admission-plugins=ServiceAccount',
      '--allow-privileged=true',
      '--profiling=false',
      '--v=1',
      ...this.aggregationArgs(),
    ];
  }

  /** What an aggregated API server needs of the API server in front of it. */
  private aggregationArgs(): string[] {
    if (this.frontProxy === undefined) return [];
    return [
      `--proxy-client-cert-file=${this.frontProxy.cert}`,
      `--proxy-client-key-file=${this.frontProxy.key}`,
      `--requestheader-client-ca-file=${this.pki.caCert}`,
      `--requestheader-allowed-names=${FRONT_PROXY_USER}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    ];
  }

  /** Flags shared by kube-controller-manager and kube-scheduler: admin credentials, no election. */
  private componentArgs(port: number): string[] {
    return [
      `--kubeconfig=${this.kubeconfigPath}`,
      `--authentication-kubeconfig=${this.kubeconfigPath}`,
      `--authorization-kubeconfig=${this.kubeconfigPath}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      '--profiling=false',
      '--v=1',
    ];
  }

  private kcmArgs(): string[] {
    return [
      ...this.componentArgs(this.ports.controllerManager),
      `--service-account-private-key-file=${this.pki.serviceAccountKey}`,
      `--root-ca-file=${this.pki.caCert}`,
      '--use-service-account-credentials=false',
      `--controllers=${this.role === 'member' ? '*' : CONTROL_PLANE_CONTROLLERS}`,
    ];
  }

  private schedulerArgs(): string[] {
    return this.componentArgs(this.ports.scheduler);
  }

  private kwokArgs(): string[] {
    return [
      `--kubeconfig=${this.kubeconfigPath}`,
      '--manage-all-nodes=true',
      `--server-address=127.0.0.1:${this.ports.kwok}`,
      '--cidr=10.244.0.0/16',
      '--node-ip=10.0.0.1',
      '--node-lease-duration-seconds=40',
    ];
  }

  /** Last lines of a process log, for error messages. */
  async logTail(process: 'etcd' | 'kube-apiserver', lines = 20): Promise<string> {
    return logTail(join(this.dir, 'logs', `${process}.log`), lines);
  }
}
