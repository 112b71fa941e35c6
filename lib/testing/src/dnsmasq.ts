/**
 * A real DNS server on loopback: dnsmasq at a free high port of 127.0.0.1, answering
 * `kubernetes.default.svc.cluster.local` (and whatever else is added) authoritatively for
 * `cluster.local`, NXDOMAIN for the rest of that zone, REFUSED outside it. It plays a member
 * cluster's DNS for the probe; `stop()` and `start()` make an outage with the same port and data.
 */
import { Resolver } from 'node:dns/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { ManagedProcess } from './process.ts';
import { waitUntil } from './readiness.ts';

export const DNSMASQ = '/usr/sbin/dnsmasq';
export const KUBERNETES_FQDN = 'kubernetes.default.svc.cluster.local';
export const KUBERNETES_IP = '10.96.0.1';

export interface DnsmasqOptions {
  /** Extra A records: name → addresses (many addresses make a reply too big for UDP). */
  readonly hosts?: Readonly<Record<string, readonly string[]>>;
  /** Folder for its hosts file and log (default: a new temporary folder, removed by destroy()). */
  readonly dir?: string;
  /** Log file name prefix (default `dnsmasq`). */
  readonly name?: string;
  /** File the pid is appended to, so that `federation down` can find the process. */
  readonly pidFile?: string;
}

export class Dnsmasq {
  readonly port: number;
  readonly dir: string;
  private readonly process: ManagedProcess;
  private readonly ownsDir: boolean;

  private constructor(port: number, dir: string, process: ManagedProcess, ownsDir: boolean) {
    this.port = port;
    this.dir = dir;
    this.process = process;
    this.ownsDir = ownsDir;
  }

  /** Starts dnsmasq on a free port and waits until it answers. */
  static async start(opts: DnsmasqOptions = {}): Promise<Dnsmasq> {
    const ownsDir = opts.dir === undefined;
    const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'kf-dnsmasq-')));
    const prefix = opts.name ?? 'dnsmasq';
    const hostsFile = join(dir, `${prefix}.hosts`);
    const lines = Object.entries(opts.hosts ?? {}).flatMap(([name, ips]) => ips.map((ip) => `${ip} ${name}`));
    await writeFile(hostsFile, `${lines.join('\n')}\n`);
    // The port is free for TCP when picked; UDP may still be taken: try a few.
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      const proc = new ManagedProcess({
        name: `${prefix}-${port}`,
        command: DNSMASQ,
        args: dnsmasqArgs(port, hostsFile),
        logDir: dir,
        ...(opts.pidFile !== undefined ? { pidFile: opts.pidFile } : {}),
      });
      const server = new Dnsmasq(port, dir, proc, ownsDir);
      try {
        await server.start();
        return server;
      } catch (err) {
        await proc.stop();
        if (attempt < 4) continue;
        if (ownsDir) await rm(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }

  isRunning(): boolean {
    return this.process.isRunning();
  }

  /** Starts it (again) and waits until it answers over UDP. */
  async start(): Promise<void> {
    await this.process.start();
    await waitUntil(`dnsmasq answering on ${this.port}`, () => this.answers(), {
      timeoutMs: 10_000,
      intervalMs: 50,
      abortIf: () => (this.process.isRunning() ? undefined : 'dnsmasq exited'),
    });
  }

  /** Stops it (SIGTERM) and waits until the process is gone. */
  async stop(): Promise<void> {
    await this.process.stop();
  }

  /** Stops it and removes its folder when it made one. */
  async destroy(): Promise<void> {
    await this.stop();
    if (this.ownsDir) await rm(this.dir, { recursive: true, force: true });
  }

  /** Whether it resolves the API server's service name (Node's resolver, pointed at this port). */
  private async answers(): Promise<boolean> {
    const resolver = new Resolver({ timeout: 200, tries: 1 });
    resolver.setServers([`127.0.0.1:${this.port}`]);
    try {
      return (await resolver.resolve4(KUBERNETES_FQDN)).includes(KUBERNETES_IP);
    } catch {
      return false;
    }
  }
}

function dnsmasqArgs(port: number, hostsFile: string): string[] {
  return [
    '--keep-in-foreground',
    '--log-facility=-',
    '--no-resolv',
    '--no-hosts',
    '--conf-file=/dev/null',
    '--pid-file=',
    `--port=${port}`,
    '--listen-address=127.0.0.1',
    '--bind-interfaces',
    `--address=/${KUBERNETES_FQDN}/${KUBERNETES_IP}`,
    '--local=/cluster.local/',
    `--addn-hosts=${hostsFile}`,
    ...(process.getuid?.() === 0 ? ['--user=root'] : []),
  ];
}
