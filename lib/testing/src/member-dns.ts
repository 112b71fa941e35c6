/**
 * In-cluster DNS for each member of a failover federation, and the DNS probe DaemonSet watching
 * it: one dnsmasq per member plays the member's cluster DNS, and one probe process per KWOK node
 * plays the probe's pod on that node, reporting `ServiceDomainNameResolutionReady` on the
 * member's Cluster. `outage(member)` stops that member's DNS server; `restore(member)` brings it
 * back on the same port. A member's probes reach the control plane over one proxied link of the
 * federation (`fed.links.probesToControlPlane(member)`).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { Dnsmasq } from './dnsmasq.ts';
import type { FailoverFederation } from './failover-federation.ts';
import { LINK } from './faults/federation-links.ts';
import { PID_FILE } from './federation.ts';
import { ProbeProcess } from './probe-process.ts';

/** A pod's resolv.conf in namespace default; the name server's port is passed to the probe. */
const POD_RESOLV_CONF =
  'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 127.0.0.1\noptions ndots:5\n';

export interface ProbeTiming {
  /** `--coredns-detect-period` (default 1s). */
  readonly period: string;
  /** `--coredns-failure-threshold` (default 3s). */
  readonly failAfter: string;
  /** `--coredns-success-threshold` (default 3s). */
  readonly recoverAfter: string;
}

export const DEFAULT_PROBE_TIMING: ProbeTiming = { period: '1s', failAfter: '3s', recoverAfter: '3s' };

export interface MemberDnsOptions {
  readonly timing?: Partial<ProbeTiming>;
  /** The probes' `--log-level` (default info). */
  readonly logLevel?: string;
}

export class MemberDns {
  readonly timing: ProbeTiming;
  readonly #servers: ReadonlyMap<string, Dnsmasq>;
  readonly #probes: ReadonlyMap<string, readonly ProbeProcess[]>;

  private constructor(
    timing: ProbeTiming,
    servers: ReadonlyMap<string, Dnsmasq>,
    probes: ReadonlyMap<string, readonly ProbeProcess[]>,
  ) {
    this.timing = timing;
    this.#servers = servers;
    this.#probes = probes;
  }

  /** Starts a DNS server per member, then a probe per node of each member. */
  static async start(fed: FailoverFederation, opts: MemberDnsOptions = {}): Promise<MemberDns> {
    const timing: ProbeTiming = { ...DEFAULT_PROBE_TIMING, ...opts.timing };
    const logDir = join(fed.runDir, 'logs');
    const resolvConf = join(fed.runDir, 'pod-resolv.conf');
    await writeFile(resolvConf, POD_RESOLV_CONF);
    const servers = new Map<string, Dnsmasq>();
    const probes = new Map<string, ProbeProcess[]>();
    const dns = new MemberDns(timing, servers, probes);
    try {
      for (const name of fed.memberNames) {
        const server = await Dnsmasq.start({
          dir: logDir,
          name: `dnsmasq-${name}`,
          pidFile: join(fed.runDir, PID_FILE),
        });
        servers.set(name, server);
        const member = fed.member(name);
        const cp = fed.federation.controlPlane;
        const karmadaKubeconfig = await fed.links.route(
          LINK.probesToControlPlane(name),
          cp.kubeconfigPath,
          cp.server,
        );
        const nodes = await member.kubeConfig().makeApiClient(CoreV1Api).listNode();
        const started: ProbeProcess[] = [];
        probes.set(name, started);
        for (const node of nodes.items) {
          started.push(
            await ProbeProcess.start({
              node: node.metadata?.name ?? '',
              clusterName: name,
              memberKubeconfig: member.kubeconfigPath,
              karmadaKubeconfig,
              resolvConf,
              nameserverPort: server.port,
              logDir,
              pidFile: join(fed.runDir, PID_FILE),
              args: [
                `--coredns-detect-period=${timing.period}`,
                `--coredns-failure-threshold=${timing.failAfter}`,
                `--coredns-success-threshold=${timing.recoverAfter}`,
                '--dns-timeout=300ms',
                '--dns-attempts=1',
                '--leader-elect-lease-duration=4s',
                '--leader-elect-renew-deadline=3s',
                '--leader-elect-retry-period=1s',
                `--log-level=${opts.logLevel ?? 'info'}`,
              ],
            }),
          );
        }
      }
    } catch (err) {
      await dns.destroy();
      throw err;
    }
    return dns;
  }

  /** Every probe, with the member it runs in. */
  probes(): { member: string; probe: ProbeProcess }[] {
    return [...this.#probes].flatMap(([member, ps]) => ps.map((probe) => ({ member, probe })));
  }

  server(member: string): Dnsmasq {
    const server = this.#servers.get(member);
    if (server === undefined) throw new Error(`no DNS server for ${member}`);
    return server;
  }

  /** The member's DNS server stops answering (the process is gone; the port stays reserved for it). */
  outage(member: string): Promise<void> {
    return this.server(member).stop();
  }

  /** The member's DNS server runs again on the same port. */
  restore(member: string): Promise<void> {
    return this.server(member).start();
  }

  /** Stops every probe and DNS server. */
  async destroy(): Promise<void> {
    await Promise.allSettled(this.probes().map(({ probe }) => probe.stop()));
    await Promise.allSettled([...this.#servers.values()].map((s) => s.destroy()));
  }
}
