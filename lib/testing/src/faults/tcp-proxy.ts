/**
 * A loopback TCP proxy in front of one endpoint, to break the link between a process and the
 * server it talks to without touching either: `cut()` resets every connection and every new one
 * (a severed link, a crashed peer behind a load balancer), `blackhole()` swallows everything (a
 * partition: only timeouts reveal it), `delay(ms)` adds latency both ways (a congested or distant
 * link), `dropOpen()` silences the connections open now for good while new ones get through (a
 * server behind a virtual IP that vanished, a NAT or load-balancer entry lost), `restore()` forwards
 * normally again. Bytes pass through untouched, so TLS works end to
 * end: kube-apiserver certificates name 127.0.0.1, which the proxy's address is too.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** What the proxy does with traffic right now. */
export type ProxyMode = 'forward' | 'delay' | 'cut' | 'blackhole' | 'closed';

export interface TcpProxyOptions {
  /** The endpoint behind the proxy, as a URL (`https://127.0.0.1:6443`, `tcp://127.0.0.1:53`). */
  readonly target: string;
  /** Names the link in errors and listings (default: the target). */
  readonly name?: string;
}

type Direction = 'up' | 'down';

interface Queued {
  readonly dueAtMs: number;
  /** A chunk to write, or `end` for a half-close that must follow the chunks before it. */
  readonly chunk: Buffer | 'end';
}

/** One accepted client connection and, once connected, its upstream twin. */
interface Pair {
  readonly client: Socket;
  upstream: Socket | undefined;
  /** Bytes or a close were swallowed: the stream can never be made whole again. */
  lostData: boolean;
  /** Silenced for good by dropOpen(): nothing passes either way, and no close either. */
  dropped: boolean;
  readonly queues: Record<Direction, Queued[]>;
  readonly timers: Record<Direction, NodeJS.Timeout | undefined>;
}

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  if (url.protocol === 'https:') return 443;
  if (url.protocol === 'http:') return 80;
  throw new Error(`no port in ${url.href}`);
}

/** A loopback TCP proxy whose link can be cut, blackholed, delayed and restored. */
export class TcpProxy {
  readonly name: string;
  /** The endpoint behind the proxy. */
  readonly target: string;
  readonly #targetHost: string;
  readonly #targetPort: number;
  readonly #scheme: string;
  readonly #server: Server;
  readonly #pairs = new Set<Pair>();
  #port = 0;
  #mode: ProxyMode = 'forward';
  #delayMs = 0;
  #accepted = 0;

  private constructor(opts: TcpProxyOptions) {
    const url = new URL(opts.target);
    this.target = opts.target;
    this.name = opts.name ?? opts.target;
    this.#targetHost = url.hostname;
    this.#targetPort = portOf(url);
    this.#scheme = url.protocol;
    this.#server = createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
      this.#accept(socket);
    });
  }

  /** Listens on a free 127.0.0.1 port and forwards to `target`. */
  static async start(opts: TcpProxyOptions): Promise<TcpProxy> {
    const proxy = new TcpProxy(opts);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(0, '127.0.0.1', () => {
        proxy.#server.off('error', reject);
        resolve();
      });
    });
    const address = proxy.#server.address();
    proxy.#port = typeof address === 'object' && address !== null ? address.port : 0;
    return proxy;
  }

  get port(): number {
    return this.#port;
  }

  /** The target's URL with the proxy's address: what a client is given instead of the target. */
  get url(): string {
    return `${this.#scheme}//127.0.0.1:${this.#port}`;
  }

  get mode(): ProxyMode {
    return this.#mode;
  }

  /** Added latency per direction while in `delay` mode (0 otherwise). */
  get delayMs(): number {
    return this.#delayMs;
  }

  /** Client connections accepted since the start, whatever happened to them. */
  get accepted(): number {
    return this.#accepted;
  }

  /** Client connections open now. */
  get open(): number {
    return this.#pairs.size;
  }

  /**
   * Resets (RST) every open connection on both sides and every new one as soon as it is
   * accepted, until restore(): clients see ECONNRESET at once, as from a peer that went away.
   */
  cut(): void {
    this.#assertOpen();
    this.#mode = 'cut';
    this.#delayMs = 0;
    for (const pair of this.#pairs) this.#reset(pair);
  }

  /**
   * Stops forwarding: open connections stay up but whatever either side sends (data or close) is
   * swallowed, and new connections are accepted and never answered, so only a client's own
   * timeout reveals the fault. Connections that lost bytes are reset on restore(), since their
   * stream (a TLS session, say) cannot continue; the others carry on.
   */
  blackhole(): void {
    this.#assertOpen();
    this.#mode = 'blackhole';
    this.#delayMs = 0;
    for (const pair of this.#pairs) {
      if (pair.queues.up.length > 0 || pair.queues.down.length > 0) pair.lostData = true;
      this.#clearTimers(pair);
    }
  }

  /**
   * The connections open now go silent for good, each way, closes included, whatever the mode
   * later; new connections are forwarded as the mode says. Neither end learns of it but by its
   * own timeouts, as when the peer's host vanished or the flow's NAT or load-balancer entry was
   * lost while another path reaches the same server.
   */
  dropOpen(): void {
    this.#assertOpen();
    for (const pair of this.#pairs) {
      pair.dropped = true;
      this.#clearTimers(pair);
    }
  }

  /** Forwards with `ms` added to every chunk in each direction, keeping their order. */
  delay(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`delay must be a duration in ms, got ${ms}`);
    this.#assertOpen();
    this.#forward(ms);
  }

  /** Cuts or blackholes the link for `ms`, then restores it; resolves once restored. */
  async breakFor(mode: 'cut' | 'blackhole', ms: number): Promise<void> {
    if (mode === 'cut') this.cut();
    else this.blackhole();
    await sleep(ms);
    this.restore();
  }

  /** Forwards normally again: new connections reach the target, delayed chunks go out now. */
  restore(): void {
    this.#assertOpen();
    this.#forward(0);
  }

  /** Stops listening and resets every connection. */
  async close(): Promise<void> {
    if (this.#mode === 'closed') return;
    this.#mode = 'closed';
    const closed = new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
    for (const pair of this.#pairs) this.#reset(pair);
    await closed;
  }

  #assertOpen(): void {
    if (this.#mode === 'closed') throw new Error(`proxy ${this.name} is closed`);
  }

  #forward(delayMs: number): void {
    this.#mode = delayMs > 0 ? 'delay' : 'forward';
    this.#delayMs = delayMs;
    for (const pair of this.#pairs) {
      if (pair.dropped) continue;
      if (pair.lostData) {
        this.#reset(pair);
        continue;
      }
      if (pair.upstream === undefined) this.#connectUpstream(pair);
      for (const dir of ['up', 'down'] as const) this.#drain(pair, dir, delayMs === 0);
    }
  }

  #accept(client: Socket): void {
    this.#accepted++;
    client.on('error', () => {
      // A reset from the client; 'close' follows and tears the pair down.
    });
    if (this.#mode === 'cut' || this.#mode === 'closed') {
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = {
      client,
      upstream: undefined,
      lostData: false,
      dropped: false,
      queues: { up: [], down: [] },
      timers: { up: undefined, down: undefined },
    };
    this.#pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      this.#onChunk(pair, 'up', chunk);
    });
    client.on('end', () => {
      this.#onChunk(pair, 'up', 'end');
    });
    client.on('close', (hadError) => {
      this.#onClose(pair, 'client', hadError);
    });
    if (this.#mode !== 'blackhole') this.#connectUpstream(pair);
  }

  #connectUpstream(pair: Pair): void {
    const upstream = connect({
      host: this.#targetHost,
      port: this.#targetPort,
      allowHalfOpen: true,
      noDelay: true,
    });
    pair.upstream = upstream;
    upstream.on('error', () => {
      // Refused or reset by the target; 'close' follows and passes the reset on to the client.
    });
    upstream.on('data', (chunk: Buffer) => {
      this.#onChunk(pair, 'down', chunk);
    });
    upstream.on('end', () => {
      this.#onChunk(pair, 'down', 'end');
    });
    upstream.on('close', (hadError) => {
      this.#onClose(pair, 'upstream', hadError);
    });
  }

  #onChunk(pair: Pair, dir: Direction, chunk: Buffer | 'end'): void {
    if (pair.dropped) return;
    if (this.#mode === 'blackhole' || this.#mode === 'cut' || this.#mode === 'closed') {
      pair.lostData = true;
      return;
    }
    const queue = pair.queues[dir];
    const last = queue.at(-1)?.dueAtMs ?? 0;
    if (this.#delayMs === 0 && queue.length === 0) {
      this.#write(pair, dir, chunk);
      return;
    }
    // Never before a chunk queued earlier: a shorter delay set meanwhile must not reorder bytes.
    queue.push({ dueAtMs: Math.max(performance.now() + this.#delayMs, last), chunk });
    this.#drain(pair, dir, false);
  }

  /** Writes every queued chunk that is due (all of them when `now`), then waits for the next. */
  #drain(pair: Pair, dir: Direction, now: boolean): void {
    const queue = pair.queues[dir];
    clearTimeout(pair.timers[dir]);
    pair.timers[dir] = undefined;
    while (queue.length > 0) {
      const head = queue[0];
      if (head === undefined) break;
      const waitMs = head.dueAtMs - performance.now();
      if (!now && waitMs > 0) {
        pair.timers[dir] = setTimeout(() => {
          this.#drain(pair, dir, false);
        }, waitMs);
        return;
      }
      queue.shift();
      this.#write(pair, dir, head.chunk);
    }
  }

  #write(pair: Pair, dir: Direction, chunk: Buffer | 'end'): void {
    const [from, to] = dir === 'up' ? [pair.client, pair.upstream] : [pair.upstream, pair.client];
    if (to === undefined || to.destroyed) return;
    if (chunk === 'end') {
      to.end();
      return;
    }
    if (!to.write(chunk) && from !== undefined && !from.isPaused()) {
      // Backpressure: read no more from the sender until the receiver has taken what it has.
      from.pause();
      to.once('drain', () => from.resume());
    }
  }

  #onClose(pair: Pair, side: 'client' | 'upstream', hadError: boolean): void {
    if (side === 'client') {
      this.#pairs.delete(pair);
      this.#clearTimers(pair);
      if (hadError) pair.upstream?.resetAndDestroy();
      else pair.upstream?.destroy();
      return;
    }
    // In a blackhole, or on a dropped connection, the client never learns that the target went away.
    if (pair.dropped) return;
    if (this.#mode === 'blackhole') {
      pair.lostData = true;
      return;
    }
    if (pair.client.destroyed) return;
    if (hadError) {
      this.#pairs.delete(pair);
      this.#clearTimers(pair);
      pair.client.resetAndDestroy();
    } else if (pair.queues.down.length === 0) {
      pair.client.end();
    }
  }

  #reset(pair: Pair): void {
    this.#pairs.delete(pair);
    this.#clearTimers(pair);
    pair.client.resetAndDestroy();
    pair.upstream?.resetAndDestroy();
  }

  #clearTimers(pair: Pair): void {
    for (const dir of ['up', 'down'] as const) {
      clearTimeout(pair.timers[dir]);
      pair.timers[dir] = undefined;
      pair.queues[dir].length = 0;
    }
  }
}
