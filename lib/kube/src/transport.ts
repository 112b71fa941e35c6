import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { Agent, type Dispatcher } from 'undici';

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
}

/**
 * Plain undici access to one cluster, with the credentials of its KubeConfig. `connect()`
 * re-applies the KubeConfig each time (tokens from files or exec plugins rotate) and keeps one
 * Agent for as long as the TLS material (CA, client certificate, key, verification) is unchanged.
 * {@link makeApiClient} hands the same pool to client-node's generated clients.
 */
export class KubeTransport {
  private readonly kc: KubeConfig;
  private readonly connectTimeoutMs: number;
  private agent: Agent | undefined;
  private tlsFingerprint = '';
  private closed = false;

  constructor(kc: KubeConfig, opts: TransportOptions = {}) {
    this.kc = kc;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  }

  async connect(): Promise<Connection> {
    if (this.closed) throw new Error('transport closed');
    const o: RequestOptions = {};
    await this.kc.applyToHTTPSOptions(o);
    const tls = {
      ...(o.ca === undefined ? {} : { ca: o.ca }),
      ...(o.cert === undefined ? {} : { cert: o.cert }),
      ...(o.key === undefined ? {} : { key: o.key }),
      ...(o.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: o.rejectUnauthorized }),
      ...(o.servername === undefined ? {} : { servername: o.servername }),
    };
    const fingerprint = JSON.stringify([
      bufferText(tls.ca),
      bufferText(tls.cert),
      bufferText(tls.key),
      tls.rejectUnauthorized,
      tls.servername,
    ]);
    if (this.agent === undefined || fingerprint !== this.tlsFingerprint) {
      const old = this.agent;
      this.agent = new Agent({
        // TCP keep-alive after 30 s of silence, as client-go and client-node do.
        connect: { ...tls, timeout: this.connectTimeoutMs, keepAlive: true, keepAliveInitialDelay: 30_000 },
      });
      this.tlsFingerprint = fingerprint;
      if (old !== undefined) void old.close().catch(() => undefined);
    }
    const server = this.kc.getCurrentCluster()?.server;
    if (server === undefined) throw new Error('the current context names no cluster');
    return { baseUrl: server.replace(/\/+$/, ''), dispatcher: this.agent, headers: headersOf(o) };
  }

  /** Closes the pool; requests still running are destroyed. */
  async close(): Promise<void> {
    this.closed = true;
    const agent = this.agent;
    this.agent = undefined;
    if (agent !== undefined) await agent.destroy();
  }
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
