/**
 * The registry of what runs for each Push cluster: per cluster, one connection to its API server
 * and the parts `--controllers` enables on it (`cluster-status`, `execution`, `work-status`).
 *
 * Each part is started and stopped on its own, by the supervisor of its name; the connection
 * lives while any part of its cluster runs on it. New credentials or a new endpoint (another
 * fingerprint) stop the parts on the old connection and start them on a new one. Calls for one
 * cluster are serialised, so two supervisors never build two connections for it. What a
 * connection is and what a part runs is the factory's (member-parts.ts); this is only the book-keeping.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@kf/runtime';

export const PUSH_PARTS = ['cluster-status', 'execution', 'work-status'] as const;
export type PushPart = (typeof PUSH_PARTS)[number];

/** How to reach one member: a KubeConfig, and what identifies it (endpoint, TLS, proxy, Secret version). */
export interface PushAccessKey {
  readonly fingerprint: string;
  readonly kubeConfig: KubeConfig;
}

/** Makes connections and runs parts on them. */
export interface PushHostFactory<C> {
  open(cluster: string, access: PushAccessKey): C;
  /** Runs `part` until `signal` aborts. */
  run(cluster: string, connection: C, part: PushPart, signal: AbortSignal): Promise<void>;
  close(cluster: string, connection: C): Promise<void>;
}

interface Connection<C> {
  readonly fingerprint: string;
  readonly value: C;
}

interface RunningPart {
  readonly fingerprint: string;
  readonly stop: AbortController;
  readonly done: Promise<void>;
}

interface ClusterHost<C> {
  connection: Connection<C> | undefined;
  readonly parts: Map<PushPart, RunningPart>;
  /** The tail of the calls for this cluster: each waits for the one before. */
  queue: Promise<void>;
}

export class PushHosts<C> {
  readonly #factory: PushHostFactory<C>;
  readonly #log: Logger;
  readonly #hosts = new Map<string, ClusterHost<C>>();

  constructor(factory: PushHostFactory<C>, log: Logger) {
    this.#factory = factory;
    this.#log = log;
  }

  /** Runs `part` for `cluster` over `access`; nothing happens when it already runs over the same. */
  ensure(cluster: string, part: PushPart, access: PushAccessKey): Promise<void> {
    return this.#serial(cluster, async (host) => {
      const running = host.parts.get(part);
      if (running?.fingerprint === access.fingerprint) return;
      if (host.connection !== undefined && host.connection.fingerprint !== access.fingerprint) {
        // New credentials or endpoint: every part moves to a new connection.
        const moving = [...host.parts.keys()].filter((p) => p !== part);
        await this.#stopAll(cluster, host);
        for (const p of moving) this.#start(cluster, host, p, access);
      } else if (running !== undefined) {
        await this.#stopPart(cluster, host, part);
      }
      this.#start(cluster, host, part, access);
    });
  }

  /** Stops `part` for `cluster`; the connection goes with the last part. */
  release(cluster: string, part: PushPart): Promise<void> {
    return this.#serial(cluster, async (host) => {
      if (!host.parts.has(part)) return;
      await this.#stopPart(cluster, host, part);
      if (host.parts.size === 0) await this.#close(cluster, host);
    });
  }

  /** The parts running for `cluster`, sorted. */
  running(cluster: string): PushPart[] {
    return [...(this.#hosts.get(cluster)?.parts.keys() ?? [])].sort();
  }

  /** Clusters with any part running, sorted. */
  clusters(): string[] {
    return [...this.#hosts.entries()]
      .filter(([, h]) => h.parts.size > 0)
      .map(([c]) => c)
      .sort();
  }

  /** Whether `cluster` has a connection open. */
  connected(cluster: string): boolean {
    return this.#hosts.get(cluster)?.connection !== undefined;
  }

  #serial(cluster: string, fn: (host: ClusterHost<C>) => Promise<void>): Promise<void> {
    let host = this.#hosts.get(cluster);
    if (host === undefined) {
      host = { connection: undefined, parts: new Map(), queue: Promise.resolve() };
      this.#hosts.set(cluster, host);
    }
    const h = host;
    const next = h.queue.then(() => fn(h));
    h.queue = next.catch(() => undefined);
    return next;
  }

  #start(cluster: string, host: ClusterHost<C>, part: PushPart, access: PushAccessKey): void {
    const connection = (host.connection ??= {
      fingerprint: access.fingerprint,
      value: this.#factory.open(cluster, access),
    });
    const stop = new AbortController();
    const log = this.#log.child({ cluster, part });
    const done = this.#factory.run(cluster, connection.value, part, stop.signal).catch((err: unknown) => {
      log.error({ err }, 'a Push cluster controller ended with an error');
    });
    host.parts.set(part, { fingerprint: access.fingerprint, stop, done });
    log.info('Push cluster controller started');
  }

  async #stopPart(cluster: string, host: ClusterHost<C>, part: PushPart): Promise<void> {
    const running = host.parts.get(part);
    if (running === undefined) return;
    running.stop.abort();
    await running.done;
    host.parts.delete(part);
    this.#log.info({ cluster, part }, 'Push cluster controller stopped');
  }

  async #stopAll(cluster: string, host: ClusterHost<C>): Promise<void> {
    for (const part of [...host.parts.keys()]) await this.#stopPart(cluster, host, part);
    await this.#close(cluster, host);
  }

  async #close(cluster: string, host: ClusterHost<C>): Promise<void> {
    const c = host.connection;
    if (c === undefined) return;
    host.connection = undefined;
    await this.#factory.close(cluster, c.value);
  }
}
