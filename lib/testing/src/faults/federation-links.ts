/**
 * The network links of a failover federation, each through its own TcpProxy: every process that
 * talks to an API server is handed a kubeconfig naming its link's proxy instead of the server, so
 * that one link can be cut, blackholed or delayed while the processes and the servers keep
 * running. The harness's own admin clients (what tests observe with) go straight to the servers.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { copyKubeconfigWithServer } from '../kubeconfig-file.ts';
import { TcpProxy } from './tcp-proxy.ts';

/** Link names: what `fed.links.get()` and the CLI's `--link` take. */
export const LINK = {
  /** The control-plane process → the control plane's API server. */
  controlPlane: 'controlplane',
  /** A member's agent → the control plane's API server (Lease, Cluster status, Works). */
  agentToControlPlane: (member: string): string => `agent:${member}`,
  /** A member's agent → its member's API server (applying Works, collecting status). */
  agentToMember: (member: string): string => `agent-member:${member}`,
  /** The control-plane process → a Push member's API server (status, Lease, Works: it hosts them). */
  controlPlaneToMember: (member: string): string => `controlplane-member:${member}`,
  /** A member's DNS probes → the control plane's API server (their Cluster condition). */
  probesToControlPlane: (member: string): string => `probe:${member}`,
} as const;

/** What a link is doing now, for listings. */
export interface LinkState {
  readonly name: string;
  /** The API server behind the link. */
  readonly target: string;
  /** The proxy's URL (what the process's kubeconfig names). */
  readonly url: string;
  readonly mode: TcpProxy['mode'];
  readonly delayMs: number;
  readonly open: number;
  readonly accepted: number;
}

/** Every proxied link of one federation; empty when the federation was started without proxies. */
export class FederationLinks {
  /** False when links go straight to the servers (`proxies: false`): there is nothing to break. */
  readonly enabled: boolean;
  readonly #dir: string;
  readonly #proxies = new Map<string, TcpProxy>();
  readonly #starting = new Map<string, Promise<TcpProxy>>();

  /** `dir` receives the kubeconfigs that name the proxies. */
  constructor(dir: string, enabled: boolean) {
    this.#dir = dir;
    this.enabled = enabled;
  }

  /**
   * The kubeconfig a process should use to reach `server` over link `name`: a copy of
   * `kubeconfigPath` naming the link's proxy (started on first use, shared after), or
   * `kubeconfigPath` itself when links are not proxied.
   */
  async route(name: string, kubeconfigPath: string, server: string): Promise<string> {
    if (!this.enabled) return kubeconfigPath;
    const proxy = await this.#proxyFor(name, server);
    await mkdir(this.#dir, { recursive: true });
    const routed = join(this.#dir, `${name.replace(/[^a-zA-Z0-9_.-]/g, '-')}.kubeconfig`);
    await copyKubeconfigWithServer(kubeconfigPath, routed, proxy.url);
    return routed;
  }

  /** The control-plane process's link to the control plane's API server. */
  get controlPlane(): TcpProxy {
    return this.get(LINK.controlPlane);
  }

  agentToControlPlane(member: string): TcpProxy {
    return this.get(LINK.agentToControlPlane(member));
  }

  agentToMember(member: string): TcpProxy {
    return this.get(LINK.agentToMember(member));
  }

  controlPlaneToMember(member: string): TcpProxy {
    return this.get(LINK.controlPlaneToMember(member));
  }

  /** Shared by every DNS probe of the member (started by MemberDns). */
  probesToControlPlane(member: string): TcpProxy {
    return this.get(LINK.probesToControlPlane(member));
  }

  get(name: string): TcpProxy {
    const proxy = this.#proxies.get(name);
    if (proxy !== undefined) return proxy;
    if (!this.enabled) throw new Error(`link ${name}: this federation was started without proxies`);
    throw new Error(`no link named ${name} (links: ${this.names().join(', ')})`);
  }

  names(): string[] {
    return [...this.#proxies.keys()].sort();
  }

  states(): LinkState[] {
    return this.names().map((name) => {
      const p = this.get(name);
      return {
        name,
        target: p.target,
        url: p.url,
        mode: p.mode,
        delayMs: p.delayMs,
        open: p.open,
        accepted: p.accepted,
      };
    });
  }

  /** Every link forwards normally again (closed ones stay closed). */
  restoreAll(): void {
    for (const p of this.#proxies.values()) if (p.mode !== 'closed') p.restore();
  }

  /** Closes every proxy (their connections are reset). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#starting.values()]);
    await Promise.all([...this.#proxies.values()].map((p) => p.close()));
  }

  #proxyFor(name: string, server: string): Promise<TcpProxy> {
    const known = this.#starting.get(name);
    if (known !== undefined) {
      return known.then((p) => {
        if (p.target !== server) throw new Error(`link ${name} already leads to ${p.target}, not ${server}`);
        return p;
      });
    }
    const starting = TcpProxy.start({ target: server, name }).then((p) => {
      this.#proxies.set(name, p);
      return p;
    });
    this.#starting.set(name, starting);
    return starting;
  }
}
