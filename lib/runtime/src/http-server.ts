import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { HealthChecks, type CheckResult } from './health.ts';
import type { Logger } from './logger.ts';

export interface HttpServerOptions {
  /** Address to bind; default all interfaces (Node's default). */
  readonly host?: string;
  /** TCP port; 0 picks a free one (tests). */
  readonly port: number;
  /** Served at `/metrics`; without it `/metrics` is 404. */
  readonly registry?: Registry;
  /** Served at `/healthz`; default none (always ok). */
  readonly healthz?: HealthChecks;
  /** Served at `/readyz`; default none (always ok). */
  readonly readyz?: HealthChecks;
  readonly log: Logger;
  /** Closes the server when it aborts. */
  readonly signal?: AbortSignal;
}

/** A listening server; {@link close} stops it. */
export interface HttpServer {
  /** The bound port (useful with port 0). */
  readonly port: number;
  /** `http://host:port` for the bound address. */
  readonly url: string;
  /** Stops listening and closes every connection; resolves once closed. Idempotent. */
  close(): Promise<void>;
}

const TEXT = 'text/plain; charset=utf-8';

/**
 * Starts the one HTTP server of a process: `/metrics` (Prometheus text format), `/healthz` and
 * `/readyz` (200 `ok`, or 503 listing the failing checks as `[-]name failed`; `?verbose` lists
 * every check), 404 for anything else, 405 for methods other than GET and HEAD. Failure
 * reasons are logged at debug, never sent: probes are unauthenticated.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const log = options.log.child({ server: 'http' });
  const endpoints: Record<string, Endpoint | undefined> = {
    '/metrics': options.registry === undefined ? undefined : metricsEndpoint(options.registry),
    '/healthz': checksEndpoint('healthz', options.healthz ?? new HealthChecks(), log),
    '/readyz': checksEndpoint('readyz', options.readyz ?? new HealthChecks(), log),
  };
  const server = createServer((req, res) => {
    handle(endpoints, req, res).catch((err: unknown) => {
      log.error({ err, path: req.url }, 'request failed');
      if (!res.headersSent) reply(res, 500, 'internal error\n');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections(); // keep-alive scrapers would otherwise hold shutdown open
    });
    return closed;
  };
  options.signal?.addEventListener('abort', () => void close(), { once: true });
  if (options.signal?.aborted === true) await close();
  log.info({ port: address.port, host: address.address }, 'http server listening');
  return { port: address.port, url: `http://${host}:${address.port}`, close };
}

type Endpoint = (url: URL) => Promise<{ status: number; body: string; contentType: string }>;

async function handle(
  endpoints: Record<string, Endpoint | undefined>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const endpoint = Object.hasOwn(endpoints, url.pathname) ? endpoints[url.pathname] : undefined;
  if (endpoint === undefined) {
    reply(res, 404, 'not found\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    reply(res, 405, 'method not allowed\n');
    return;
  }
  const { status, body, contentType } = await endpoint(url);
  reply(res, status, req.method === 'HEAD' ? '' : body, contentType);
}

function reply(res: ServerResponse, status: number, body: string, contentType = TEXT): void {
  res.writeHead(status, {
    'Content-Type': contentType,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(body);
}

function metricsEndpoint(registry: Registry): Endpoint {
  return async () => ({ status: 200, body: await registry.metrics(), contentType: registry.contentType });
}

function checksEndpoint(what: string, checks: HealthChecks, log: Logger): Endpoint {
  return async (url) => {
    const results = await checks.run();
    const failed = results.filter((r) => !r.ok);
    for (const r of failed) log.debug({ check: r.name, endpoint: what, err: r.error }, 'check failed');
    const verbose = url.searchParams.has('verbose');
    if (failed.length === 0 && !verbose) return { status: 200, body: 'ok', contentType: TEXT };
    const lines = (verbose ? results : failed).map(describe);
    lines.push(failed.length === 0 ? `${what} check passed` : `${what} check failed`);
    return { status: failed.length === 0 ? 200 : 503, body: `${lines.join('\n')}\n`, contentType: TEXT };
  };
}

function describe(r: CheckResult): string {
  return r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed`;
}
