/**
 * Runs the agent as a real process for integration tests and the benchmark: `node agent/src/main.ts …`
 * by default, or another entry (the production bundle) with Node flags.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type ClusterHandle } from '@kf/testing';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.ts');

export interface AgentProcess {
  readonly pid: number;
  readonly metricsUrl: string;
  readonly logFile: string;
  /** Exit code once exited (undefined while running or when killed by a signal). */
  exitCode(): number | null | undefined;
  isRunning(): boolean;
  logs(): Promise<string>;
  /** SIGTERM, SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  /** Resolves with the exit code when the process exits on its own. */
  exited(): Promise<number | null>;
}

export interface AgentOptions {
  readonly cluster: string;
  readonly karmadaKubeconfig: string;
  readonly member: ClusterHandle;
  readonly runDir: string;
  /** Extra flags, overriding the short test defaults below. */
  readonly flags?: readonly string[];
  /** A name for the log file (default: the cluster). */
  readonly name?: string;
  /** The script to run (default: agent/src/main.ts). */
  readonly entry?: string;
  /** Options for node itself, before the script. */
  readonly nodeFlags?: readonly string[];
}

/** Short periods so that tests stay short; every one can be overridden through `flags`. */
export const TEST_FLAGS = [
  '--cluster-status-update-frequency=1s',
  '--cluster-success-threshold=3s',
  '--cluster-failure-threshold=3s',
  '--cluster-lease-duration=4s',
  '--cluster-lease-renew-interval-fraction=0.25',
  '--leader-elect-lease-duration=4s',
  '--leader-elect-renew-deadline=3s',
  '--leader-elect-retry-period=1s',
];

export async function startAgent(o: AgentOptions): Promise<AgentProcess> {
  const metricsPort = await freePort();
  const logFile = join(o.runDir, `agent-${o.name ?? o.cluster}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  await new Promise<void>((resolve) =>
    log.once('open', () => {
      resolve();
    }),
  );
  const args = [
    ...(o.nodeFlags ?? []),
    o.entry ?? MAIN,
    'run',
    `--cluster-name=${o.cluster}`,
    `--karmada-kubeconfig=${o.karmadaKubeconfig}`,
    `--kubeconfig=${o.member.kubeconfigPath}`,
    `--metrics-bind-address=127.0.0.1:${metricsPort}`,
    `--health-probe-bind-address=127.0.0.1:${metricsPort}`,
    ...TEST_FLAGS,
    ...(o.flags ?? []),
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    stdio: ['ignore', log, log],
    env: { ...process.env, KUBECONFIG: '' },
  });
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (c) => {
      code = c;
      log.end();
      resolve(c);
    });
  });
  const alive = () => code === undefined;
  return {
    pid: child.pid ?? 0,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    logFile,
    exitCode: () => code,
    isRunning: alive,
    logs: () => readFile(logFile, 'utf8'),
    exited: () => exited,
    async stop(graceMs = 15_000) {
      if (alive()) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}
