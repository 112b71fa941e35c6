/**
 * A real DNS server for tests: dnsmasq on 127.0.0.1 at a free high port, serving
 * `kubernetes.default.svc.cluster.local` (and whatever else a test adds) authoritatively for
 * `cluster.local`, NXDOMAIN for the rest of that zone, REFUSED outside it. `stop()` and `start()`
 * simulate an outage with the same port and data.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedProcess, freePort, waitUntil } from '@kf/testing';
import { exchange } from '../src/dns/transport.ts';

export const DNSMASQ = '/usr/sbin/dnsmasq';
export const KUBERNETES_FQDN = 'kubernetes.default.svc.cluster.local';
export const KUBERNETES_IP = '10.96.0.1';

export interface DnsmasqOptions {
  /** Extra A records: name → addresses (many addresses make a reply too big for UDP). */
  readonly hosts?: Readonly<Record<string, readonly string[]>>;
}

export class Dnsmasq {
  readonly port: number;
  readonly dir: string;
  private readonly process: ManagedProcess;

  private constructor(port: number, dir: string, process: ManagedProcess) {
    this.port = port;
    this.dir = dir;
    this.process = process;
  }

  /** Starts dnsmasq on a free port and waits until it answers. */
  static async start(opts: DnsmasqOptions = {}): Promise<Dnsmasq> {
    const dir = await mkdtemp(join(tmpdir(), 'kf-dnsmasq-'));
    const hostsFile = join(dir, 'hosts');
    const lines = Object.entries(opts.hosts ?? {}).flatMap(([name, ips]) => ips.map((ip) => `${ip} ${name}`));
    await writeFile(hostsFile, `${lines.join('\n')}\n`);
    // The port is free for TCP when picked; UDP may still be taken: try a few.
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      const proc = new ManagedProcess({
        name: `dnsmasq-${port}`,
        command: DNSMASQ,
        args: args(port, hostsFile),
        logDir: dir,
      });
      const server = new Dnsmasq(port, dir, proc);
      try {
        await server.start();
        return server;
      } catch (err) {
        await proc.stop();
        if (attempt >= 4) {
          await rm(dir, { recursive: true, force: true });
          throw err;
        }
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

  /** Stops it and removes its folder. */
  async destroy(): Promise<void> {
    await this.stop();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async answers(): Promise<boolean> {
    const x = await exchange({
      server: '127.0.0.1',
      port: this.port,
      question: { name: KUBERNETES_FQDN, type: 'A' },
      timeoutMs: 200,
      edns0: false,
      tcpOnly: false,
    });
    return x.outcome.kind === 'reply' && x.outcome.addresses.includes(KUBERNETES_IP);
  }
}

function args(port: number, hostsFile: string): string[] {
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
