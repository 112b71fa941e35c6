import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import { Dispatcher, errors } from 'undici';

/** The TLS material of connections to one API server. */
export interface DispatcherTls {
  readonly ca?: tls.SecureContextOptions['ca'];
  readonly cert?: tls.SecureContextOptions['cert'];
  readonly key?: tls.SecureContextOptions['key'];
  readonly rejectUnauthorized?: boolean | undefined;
  readonly servername?: string | undefined;
}

export interface NodeHttpDispatcherOptions {
  readonly tls: DispatcherTls;
  /** TCP + TLS handshake deadline. */
  readonly connectTimeoutMs: number;
  /** TCP keep-alive probes after this much silence. */
  readonly keepAliveInitialDelayMs: number;
}

/** undici's defaults for the wait for response headers and between body chunks. */
const DEFAULT_HEADERS_TIMEOUT_MS = 300_000;
const DEFAULT_BODY_TIMEOUT_MS = 300_000;
/** Idle kept-alive connections are closed after this long, as undici's pools do. */
const IDLE_SOCKET_TIMEOUT_MS = 4_000;

type Handler = Dispatcher.DispatchHandler;
type DispatchOptions = Dispatcher.DispatchOptions;

/**
 * An undici Dispatcher that sends requests with Node's own HTTP/1.1 client (`node:https`), so
 * that undici's `request()`, its response bodies and its error codes work unchanged while none
 * of undici's connection code runs: no WebAssembly HTTP parser, no HTTP/2 session. Node's
 * parser is native and its `http` module is loaded anyway by the processes' servers. Every
 * connection shares one TLS context (CA, client certificate) built once. Honours the request
 * options the `@kf/kube` clients use: method, path, headers, a string or byte body,
 * `headersTimeout` and `bodyTimeout` (with undici's error types), abort and back-pressure.
 */
export class NodeHttpDispatcher extends Dispatcher {
  private readonly httpsAgent: https.Agent;
  private readonly httpAgent: http.Agent;
  private readonly connectTimeoutMs: number;
  private readonly running = new Set<http.ClientRequest>();
  private closed = false;

  constructor(opts: NodeHttpDispatcherOptions) {
    super();
    const { rejectUnauthorized, servername, ...material } = opts.tls;
    const keepAlive = { keepAlive: true, keepAliveMsecs: opts.keepAliveInitialDelayMs };
    this.httpsAgent = new https.Agent({
      ...keepAlive,
      timeout: IDLE_SOCKET_TIMEOUT_MS,
      // One context for every connection instead of one parsed per handshake.
      secureContext: tls.createSecureContext(material),
      ...(rejectUnauthorized === undefined ? {} : { rejectUnauthorized }),
      ...(servername === undefined ? {} : { servername }),
    });
    this.httpAgent = new http.Agent({ ...keepAlive, timeout: IDLE_SOCKET_TIMEOUT_MS });
    this.connectTimeoutMs = opts.connectTimeoutMs;
  }

  override dispatch(opts: DispatchOptions, handler: Handler): boolean {
    const exchange = new Exchange(handler);
    if (this.closed) {
      exchange.fail(new errors.ClientDestroyedError());
      return false;
    }
    handler.onRequestStart?.(exchange, {});
    if (exchange.aborted) return true;
    const url = new URL(opts.path, opts.origin);
    const secure = url.protocol === 'https:';
    const req = (secure ? https : http).request(url, {
      method: opts.method,
      headers: headersOf(opts.headers),
      agent: secure ? this.httpsAgent : this.httpAgent,
    });
    this.running.add(req);
    req.once('close', () => this.running.delete(req));
    exchange.start(req, {
      connectTimeoutMs: this.connectTimeoutMs,
      headersTimeoutMs: opts.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: opts.bodyTimeout ?? DEFAULT_BODY_TIMEOUT_MS,
    });
    sendBody(req, opts.body);
    return true;
  }

  /** Stops taking requests; resolves once the running ones ended, then closes the connections. */
  override async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.running].map((r) => new Promise((resolve) => r.once('close', resolve))));
    this.httpsAgent.destroy();
    this.httpAgent.destroy();
  }

  /** Stops taking requests and destroys the running ones and every connection. */
  override async destroy(): Promise<void> {
    this.closed = true;
    for (const req of this.running) req.destroy(new errors.ClientDestroyedError());
    this.httpsAgent.destroy();
    this.httpAgent.destroy();
    return Promise.resolve();
  }
}

interface Deadlines {
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
}

/** One request and its response, as undici's handler controller. */
class Exchange {
  private readonly handler: Handler;
  private req: http.ClientRequest | undefined;
  private res: http.IncomingMessage | undefined;
  private timer: NodeJS.Timeout | undefined;
  private done = false;
  aborted = false;
  paused = false;
  reason: Error | null = null;
  rawHeaders: Buffer[] = [];

  constructor(handler: Handler) {
    this.handler = handler;
  }

  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.req?.destroy(reason);
    this.fail(reason);
  }

  pause(): void {
    this.paused = true;
    this.res?.pause();
  }

  resume(): void {
    this.paused = false;
    this.res?.resume();
  }

  start(req: http.ClientRequest, d: Deadlines): void {
    this.req = req;
    req.once('socket', (socket: Socket) => {
      if (!socket.connecting) return;
      this.arm(d.connectTimeoutMs, () => new errors.ConnectTimeoutError());
      socket.once(socket instanceof tls.TLSSocket ? 'secureConnect' : 'connect', () => {
        this.arm(d.headersTimeoutMs, () => new errors.HeadersTimeoutError());
      });
    });
    this.arm(d.headersTimeoutMs, () => new errors.HeadersTimeoutError());
    // 'on', not 'once': a second error event without a listener would end the process.
    req.on('error', (err) => {
      this.fail(err);
    });
    req.once('response', (res) => {
      this.res = res;
      this.rawHeaders = res.rawHeaders.map((h) => Buffer.from(h));
      this.arm(d.bodyTimeoutMs, () => new errors.BodyTimeoutError());
      this.handler.onResponseStart?.(this, res.statusCode ?? 0, res.headers, res.statusMessage ?? '');
      if (this.aborted) return;
      if (this.paused) res.pause();
      res.on('data', (chunk: Buffer) => {
        this.arm(d.bodyTimeoutMs, () => new errors.BodyTimeoutError());
        this.handler.onResponseData?.(this, chunk);
      });
      res.once('end', () => {
        this.disarm();
        if (this.done) return;
        this.done = true;
        this.handler.onResponseEnd?.(this, res.trailers);
      });
      res.on('error', (err) => {
        this.fail(err);
      });
      res.once('aborted', () => {
        this.fail(new errors.SocketError('other side closed'));
      });
    });
  }

  fail(err: Error): void {
    this.disarm();
    if (this.done) return;
    this.done = true;
    this.handler.onResponseError?.(this, err);
  }

  /** (Re)starts the one deadline that applies now; 0 means none. */
  private arm(ms: number, error: () => Error): void {
    this.disarm();
    if (ms <= 0) return;
    this.timer = setTimeout(() => {
      this.abort(error());
    }, ms);
    this.timer.unref();
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function headersOf(h: DispatchOptions['headers']): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  if (h === undefined || h === null) return out;
  if (Array.isArray(h)) {
    for (let i = 0; i + 1 < h.length; i += 2) out[String(h[i])] = String(h[i + 1]);
    return out;
  }
  const entries =
    Symbol.iterator in h ? [...(h as Iterable<[string, string | string[] | undefined]>)] : Object.entries(h);
  for (const [k, v] of entries) if (v !== undefined) out[k] = v;
  return out;
}

function sendBody(req: http.ClientRequest, body: DispatchOptions['body']): void {
  if (body === undefined || body === null) {
    req.end();
  } else if (typeof body === 'string' || body instanceof Uint8Array) {
    req.setHeader('content-length', Buffer.byteLength(body));
    req.end(body);
  } else if (typeof (body as NodeJS.ReadableStream).pipe === 'function') {
    (body as NodeJS.ReadableStream).pipe(req);
  } else {
    req.destroy(new errors.InvalidArgumentError('unsupported request body'));
  }
}
