import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitUntil } from './readiness.ts';

/** Every child still running, so that an exiting test process takes none of them along. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

export interface ProcessSpec {
  /** Short name used for the log file (<logDir>/<name>.log). */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly logDir: string;
  /** File where the pid is appended, so that a separate `down` command can find it. */
  readonly pidFile?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** The last lines of a log file, for error messages ('' when it cannot be read). */
export async function logTail(file: string, lines = 20): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').slice(-lines).join('\n');
}

/** A long-running server process owned by the harness. */
export class ManagedProcess {
  readonly spec: ProcessSpec;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(spec: ProcessSpec) {
    this.spec = spec;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  isRunning(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get logFile(): string {
    return join(this.spec.logDir, `${this.spec.name}.log`);
  }

  async start(): Promise<void> {
    if (this.isRunning()) return;
    installExitHook();
    const log = createWriteStream(this.logFile, { flags: 'a' });
    await new Promise<void>((resolve, reject) => {
      log.once('open', () => {
        resolve();
      });
      log.once('error', reject);
    });
    const child = spawn(this.spec.command, [...this.spec.args], {
      stdio: ['ignore', log, log],
      env: { ...process.env, ...this.spec.env },
    });
    this.child = child;
    live.add(child);
    this.exited = new Promise<void>((resolve) => {
      child.once('exit', () => {
        live.delete(child);
        log.end();
        resolve();
      });
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    if (this.spec.pidFile !== undefined && child.pid !== undefined) {
      await appendFile(this.spec.pidFile, `${child.pid} ${this.spec.name}\n`);
    }
  }

  /**
   * The same process with `env` over its environment (an undefined value removes a variable), to
   * be started instead of this one, which must not be running.
   */
  withEnv(env: NodeJS.ProcessEnv): ManagedProcess {
    if (this.isRunning())
      throw new Error(`${this.spec.name} is running: stop it before changing its environment`);
    return new ManagedProcess({ ...this.spec, env: { ...this.spec.env, ...env } });
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  async stop(graceMs = 5_000): Promise<void> {
    const child = this.child;
    if (child === undefined || !this.isRunning()) return this.exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Kills at once, as a crashed machine would. */
  async kill(): Promise<void> {
    if (!this.isRunning()) return this.exited;
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  /**
   * Waits until `ready` holds, failing at once if the process exits. One that never gets there is
   * stopped, not left running past its failed start (a test worker that ends without exiting
   * cleanly never runs the exit hook), and the error carries the last lines of its log: the run
   * folder holding the log may be gone by the time anyone reads it.
   */
  async waitReady(
    what: string,
    ready: () => Promise<boolean>,
    opts: { readonly timeoutMs: number; readonly intervalMs: number },
  ): Promise<void> {
    try {
      await waitUntil(what, ready, {
        ...opts,
        abortIf: () => (this.isRunning() ? undefined : `exited; see ${this.logFile}`),
      });
    } catch (err: unknown) {
      await this.stop();
      const tail = await logTail(this.logFile);
      throw new Error(`${err instanceof Error ? err.message : String(err)}; its log ends:\n${tail}`, {
        cause: err,
      });
    }
  }

  /** Resolves when the process exits by itself (or is stopped). */
  waitForExit(): Promise<void> {
    return this.exited;
  }
}
