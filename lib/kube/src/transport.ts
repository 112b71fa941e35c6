import type { RequestOptions } from 'node:https';
import { HttpMethod, RequestContext, type Cluster, type KubeConfig } from '@kubernetes/client-node';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';

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
}

/**
 * Plain undici access to one cluster, with the credentials of its KubeConfig. `connect()`
 * re-applies the KubeConfig each time (tokens from files or exec plugins rotate) and keeps one
 * Agent for as long as the TLS material (CA, client certificate, key, verification) is unchanged.
 * A cluster with a `proxy-url` is reached through it (HTTP CONNECT or SOCKS, see
 * `proxyDispatcher`). {@link makeApiClient} hands the same pool to client-node's generated
 * clients.
 */
export class KubeTransport {
  private readonly kc: KubeConfig;
  private readonly connectTimeoutMs: number;
  private readonly offerHttp2: boolean;
  private agent: Dispatcher | undefined;
  private tlsFingerprint = '';
  private closed = false;

  constructor(kc: KubeConfig, opts: TransportOptions = {}) {
    this.kc = kc;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
    this.offerHttp2 = opts.offerHttp2 ?? true;
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

  /** The pool for this TLS material: the current one, or a new one replacing it. */
  private async pool(cluster: Cluster, https: RequestOptions): Promise<Dispatcher> {
    const fingerprint = fingerprintOf(tlsOf(https));
    if (this.agent !== undefined && fingerprint === this.tlsFingerprint) return this.agent;
    const next =
      cluster.proxyUrl === undefined || cluster.proxyUrl === ''
        ? new Agent({
            allowH2: this.offerHttp2,
            // TCP keep-alive after 30 s of silence, as client-go and client-node do.
            connect: {
              ...tlsOf(https),
              timeout: this.connectTimeoutMs,
              keepAlive: true,
              keepAliveInitialDelay: 30_000,
            },
          })
        : await this.proxyDispatcher(cluster, https);
    // Building a proxy dispatcher awaits: a concurrent connect() or close() may have come first.
    if (this.closed || (this.agent !== undefined && fingerprint === this.tlsFingerprint)) {
      void next.close().catch(() => undefined);
      if (this.closed || this.agent === undefined) throw new Error('transport closed');
      return this.agent;
    }
    const old = this.agent;
    this.agent = next;
    this.tlsFingerprint = fingerprint;
    if (old !== undefined) void old.close().catch(() => undefined);
    return next;
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
