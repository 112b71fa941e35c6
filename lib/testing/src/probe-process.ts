/** One DNS probe process (the pod on one node of a member) started by a test or the demo, with its metrics at hand. */
import { join } from 'node:path';
import { REPO_ROOT } from './binaries.ts';
import { freePort } from './ports.ts';
import { ManagedProcess } from './process.ts';

export const PROBE_MAIN = join(REPO_ROOT, 'probe', 'src', 'main.ts');

export interface ProbeProcessOptions {
  readonly node: string;
  readonly clusterName: string;
  readonly memberKubeconfig: string;
  readonly karmadaKubeconfig: string;
  readonly resolvConf: string;
  readonly nameserverPort: number;
  readonly logDir: string;
  /** File the pid is appended to, so that `federation down` can find the process. */
  readonly pidFile?: string;
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
        PROBE_MAIN,
        `--host-name=${o.node}`,
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
      ...(o.pidFile !== undefined ? { pidFile: o.pidFile } : {}),
    });
    const probe = new ProbeProcess(o.node, port, proc);
    await proc.start();
    // As long as the harness waits for the other processes it starts: a probe started beside a
    // whole suite's API servers on two cores has been seen not to serve within 30 s.
    await proc.waitReady(
      `probe on ${o.node} serving /healthz`,
      async () => (await probe.status('/healthz')) === 200,
      { timeoutMs: 60_000, intervalMs: 100 },
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
