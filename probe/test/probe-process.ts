/** One probe process (one "pod" on one node) started by a test, with its metrics at hand. */
import { fileURLToPath } from 'node:url';
import { ManagedProcess, freePort, waitUntil } from '@kf/testing';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

export interface ProbeProcessOptions {
  readonly node: string;
  readonly clusterName: string;
  readonly memberKubeconfig: string;
  readonly karmadaKubeconfig: string;
  readonly resolvConf: string;
  readonly nameserverPort: number;
  readonly logDir: string;
  /** Flags added to (or overriding) the common ones. */
  readonly args?: readonly string[];
}

export class ProbeProcess {
  readonly node: string;
  readonly port: number;
  private readonly proc: ManagedProcess;

  private constructor(node: string, port: number, proc: ManagedProcess) {
    this.node = node;
    this.port = port;
    this.proc = proc;
  }

  /** Starts the probe and waits until it serves /healthz. */
  static async start(o: ProbeProcessOptions): Promise<ProbeProcess> {
    const port = await freePort();
    const proc = new ManagedProcess({
      name: `probe-${o.node}-${port}`,
      command: process.execPath,
      args: [
        MAIN,
        `--node-name=${o.node}`,
        `--cluster-name=${o.clusterName}`,
        `--kubeconfig=${o.memberKubeconfig}`,
        `--karmada-kubeconfig=${o.karmadaKubeconfig}`,
        `--resolv-conf=${o.resolvConf}`,
        `--nameserver-port=${o.nameserverPort}`,
        `--metrics-bind-address=127.0.0.1:${port}`,
        `--health-probe-bind-address=127.0.0.1:${port}`,
        '--log-level=debug',
        ...(o.args ?? []),
      ],
      logDir: o.logDir,
    });
    const probe = new ProbeProcess(o.node, port, proc);
    await proc.start();
    await waitUntil(
      `probe on ${o.node} serving /healthz`,
      async () => (await probe.status('/healthz')) === 200,
      {
        timeoutMs: 30_000,
        intervalMs: 100,
        abortIf: () => (proc.isRunning() ? undefined : `exited; see ${proc.logFile}`),
      },
    );
    return probe;
  }

  get logFile(): string {
    return this.proc.logFile;
  }

  isRunning(): boolean {
    return this.proc.isRunning();
  }

  /** SIGTERM (graceful: releases the Lease). */
  stop(): Promise<void> {
    return this.proc.stop();
  }

  /** SIGKILL, as a node crash or an OOM kill would. */
  kill(): Promise<void> {
    return this.proc.kill();
  }

  /** HTTP status of a GET (0 when nothing answers). */
  async status(path: string): Promise<number> {
    try {
      const r = await fetch(`http://127.0.0.1:${this.port}${path}`, { signal: AbortSignal.timeout(2_000) });
      await r.body?.cancel();
      return r.status;
    } catch {
      return 0;
    }
  }

  /** Sum of the samples of one metric whose labels include `labels` (`result="success"`). */
  async metric(name: string, labels = ''): Promise<number> {
    const r = await fetch(`http://127.0.0.1:${this.port}/metrics`, { signal: AbortSignal.timeout(2_000) });
    const text = await r.text();
    let sum = 0;
    for (const line of text.split('\n')) {
      const m = /^([a-z_:]+)(\{[^}]*\})? (\S+)$/.exec(line);
      if (m?.[1] === name && (m[2] ?? '').includes(labels)) sum += Number(m[3]);
    }
    return sum;
  }
}
