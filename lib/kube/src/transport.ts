import type { RequestOptions } from 'node:https';
import { HttpMethod, RequestContext, type Cluster, type KubeConfig } from '@kubernetes/client-node';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import { ConnectionWatch } from './connection-watch.ts';

/** What one request to the API server needs: where, through which connection pool, which headers. */
export interface Connection {
  /** Server URL without a trailing slash. */
  readonly baseUrl: string;
  readonly dispatcher: Dispatcher;
  /** Authorization (bearer token, basic) and impersonation headers, fresh for this request. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface TransportOptions {
  /** TCP + TLS handshake deadline (default 10 s). */
  readonly connectTimeoutMs?: number;
  /**
   * Offer HTTP/2 when connecting (default true, as undici does; the API server takes it). Over a
   * slow link one multiplexed connection beats a TCP and TLS handshake per new HTTP/1.1
   * connection. A process sending many requests at once to an API server close by may prefer
   * HTTP/1.1 only: under such load Node's HTTP/2 client was seen, rarely, looping in its send path
   * while its native buffers grew by gigabytes a second until the kernel killed the process.
   */
  readonly offerHttp2?: boolean;
  /**
   * How often an HTTP/2 connection is PINGed to tell a slow one from a dead one (default: the
   * process's, {@link setDefaultPingInterval}; 0 turns the check off). See connection-silence.ts.
   */
  readonly pingIntervalMs?: number;
}

/** Five seconds: a dead connection is given up some 15 s after it was last heard from. */
export const DEFAULT_PING_INTERVAL_MS = 5_000;

let processPingIntervalMs = DEFAULT_PING_INTERVAL_MS;

/**
 * The PING interval of every transport made from now on that names none: a process whose
 * heartbeat runs on shorter periods than the defaults (tests, tight Lease timings) shortens it,
 * so that a dead connection is given up well within a Lease.
 */
export function setDefaultPingInterval(ms: number): void {
  if (!Number.isFinite(ms) || ms < 0)
    throw new RangeError(`a PING interval must be a duration in ms, got ${ms}`);
  processPingIntervalMs = ms;
}

/**
 * Plain undici access to one cluster, with the credentials of its KubeConfig. `connect()`
 * re-applies the KubeConfig each time (tokens from files or exec plugins rotate) and keeps one
 * Agent for as long as the TLS material (CA, client certificate, key, verification) is unchanged.
 * A cluster with a `proxy-url` is reached through it (HTTP CONNECT or SOCKS, see
 * `proxyDispatcher`). {@link makeApiClient} hands the same pool to client-node's generated
 * clients.
 *
 * When HTTP/2 is offered, the connections are PINGed and given up once asked something and silent
 * for too long (see connection-silence.ts): requests on them fail at once and the next request
 * connects afresh. Over HTTP/1.1 each request has a connection of its own, which undici closes
 * when the request is cut short.
 */
export class KubeTransport {
  private readonly kc: KubeConfig;
  private readonly connectTimeoutMs: number;
  private readonly offerHttp2: boolean;
  private readonly pingIntervalMs: number;
  private agent: Dispatcher | undefined;
  private watch: ConnectionWatch | undefined;
  private tlsFingerprint = '';
  private closed = false;
  private retiredPools = 0;

  constructor(kc: KubeConfig, opts: TransportOptions = {}) {
    this.kc = kc;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
    this.offerHttp2 = opts.offerHttp2 ?? true;
    this.pingIntervalMs = opts.pingIntervalMs ?? processPingIntervalMs;
  }

  async connect(): Promise<Connection> {
    if (this.closed) throw new Error('transport closed');
    const o: RequestOptions = {};
    await this.kc.applyToHTTPSOptions(o);
    const cluster = this.kc.getCurrentCluster();
    if (cluster === null) throw new Error('the current context names no cluster');
    const dispatcher = await this.pool(cluster, o);
    return { baseUrl: cluster.server.replace(/\/+$/, ''), dispatcher, headers: headersOf(o) };
  }

  /** Pools given up because their connection fell silent. */
  get retired(): number {
    return this.retiredPools;
  }

  /** The pool for this TLS material: the current one, or a new one replacing it. */
  private async pool(cluster: Cluster, https: RequestOptions): Promise<Dispatcher> {
    const fingerprint = fingerprintOf(tlsOf(https));
    if (this.agent !== undefined && fingerprint === this.tlsFingerprint) return this.agent;
    const { pool: next, watch } = await this.build(cluster, https);
    // Building a proxy dispatcher awaits: a concurrent connect() or close() may have come first.
    if (this.closed || (this.agent !== undefined && fingerprint === this.tlsFingerprint)) {
      watch?.stop();
      void next.close().catch(() => undefined);
      if (this.closed || this.agent === undefined) throw new Error('transport closed');
      return this.agent;
    }
    const old = this.agent;
    this.watch?.stop();
    this.agent = next;
    this.watch = watch;
    this.tlsFingerprint = fingerprint;
    if (old !== undefined) void old.close().catch(() => undefined);
    return next;
  }

  /**
   * `pool`'s connection fell silent: unless it was already replaced, the next connect() builds a
   * new pool, and the requests still on the old one fail now rather than at their deadlines.
   */
  private retire(pool: Dispatcher, why: string): void {
    if (this.agent !== pool) return;
    this.forgetPool();
    this.retiredPools++;
    void pool.destroy(new Error(`connection to the API server given up: ${why}`)).catch(() => undefined);
  }

  /**
   * The next connect() builds a new pool, whatever the PINGs say so far; requests already on the
   * current one run to their end or their deadlines, then it closes. For a caller that knows more
   * than the PINGs do: a probe got no answer at all by its deadline, and the next one must not ride
   * the same connection into the same silence.
   */
  reconnect(): void {
    const old = this.agent;
    if (old === undefined) return;
    this.watch?.stop();
    this.forgetPool();
    void old.close().catch(() => undefined);
  }

  /** The next connect() builds a new pool; the caller ends the old one. */
  private forgetPool(): void {
    this.agent = undefined;
    this.watch = undefined;
    this.tlsFingerprint = '';
  }

  /** A new dispatcher for the cluster: direct (watched over HTTP/2), or through its proxy. */
  private async build(
    cluster: Cluster,
    https: RequestOptions,
  ): Promise<{ readonly pool: Dispatcher; readonly watch?: ConnectionWatch }> {
    if (cluster.proxyUrl !== undefined && cluster.proxyUrl !== '') {
      return { pool: await this.proxyDispatcher(cluster, https) };
    }
    const connect = {
      ...tlsOf(https),
      timeout: this.connectTimeoutMs,
      // TCP keep-alive after 30 s of silence, as client-go and client-node do.
      keepAlive: true,
      keepAliveInitialDelay: 30_000,
    };
    if (!this.offerHttp2 || this.pingIntervalMs <= 0) {
      return { pool: new Agent({ allowH2: this.offerHttp2, connect }) };
    }
    const rule = { pingIntervalMs: this.pingIntervalMs, connectTimeoutMs: this.connectTimeoutMs };
    const watch = new ConnectionWatch(rule, (why) => {
      this.retire(pool, why);
    });
    const agent = new Agent({ allowH2: true, connect, ...watch.agentOptions() });
    const pool = agent.compose(watch.interceptor());
    watch.start(agent);
    return { pool, watch };
  }

  /**
   * The dispatcher for a cluster behind a `proxy-url`: an HTTP proxy through undici's ProxyAgent
   * built here (so that it offers HTTP/2 only when this transport does), SOCKS through the
   * connector client-node builds (its TLS offers no protocol: HTTP/1.1).
   */
  private async proxyDispatcher(cluster: Cluster, https: RequestOptions): Promise<Dispatcher> {
    const proxyUrl = cluster.proxyUrl ?? '';
    if (!proxyUrl.startsWith('socks')) {
      return new ProxyAgent({
        uri: proxyUrl,
        allowH2: this.offerHttp2,
        requestTls: tlsOf(https),
        connect: { keepAlive: true, keepAliveInitialDelay: 30_000 },
      });
    }
    const ctx = new RequestContext(cluster.server, HttpMethod.GET);
    await this.kc.applySecurityAuthentication(ctx);
    const dispatcher = ctx.getDispatcher();
    if (dispatcher === undefined) throw new Error(`no dispatcher for the proxy of ${cluster.server}`);
    return dispatcher;
  }

  /** Closes the pool; requests still running are destroyed. */
  async close(): Promise<void> {
    this.closed = true;
    const agent = this.agent;
    this.agent = undefined;
    this.watch?.stop();
    this.watch = undefined;
    if (agent !== undefined) await agent.destroy();
  }
}

/** The TLS material of a connection to the API server. */
interface Tls {
  readonly ca?: RequestOptions['ca'];
  readonly cert?: RequestOptions['cert'];
  readonly key?: RequestOptions['key'];
  readonly rejectUnauthorized?: boolean;
  readonly servername?: string;
}

function tlsOf(o: RequestOptions): Tls {
  return {
    ...(o.ca === undefined ? {} : { ca: o.ca }),
    ...(o.cert === undefined ? {} : { cert: o.cert }),
    ...(o.key === undefined ? {} : { key: o.key }),
    ...(o.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: o.rejectUnauthorized }),
    ...(o.servername === undefined ? {} : { servername: o.servername }),
  };
}

function fingerprintOf(tls: Tls): string {
  return JSON.stringify([
    bufferText(tls.ca),
    bufferText(tls.cert),
    bufferText(tls.key),
    tls.rejectUnauthorized,
    tls.servername,
  ]);
}

function bufferText(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (Buffer.isBuffer(v)) return v.toString('base64');
  if (Array.isArray(v)) return v.map((x) => bufferText(x) ?? '').join(',');
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function headersOf(o: RequestOptions): Record<string, string> {
  const out: Record<string, string> = {};
  const given = o.headers ?? {};
  if (!Array.isArray(given)) {
    for (const [k, v] of Object.entries(given)) {
      if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
    }
  }
  if (typeof o.auth === 'string' && o.auth !== '') {
    out.Authorization = `Basic ${Buffer.from(o.auth).toString('base64')}`;
  }
  return out;
}
