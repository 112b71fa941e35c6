import type { Registry } from 'prom-client';
import { isSameBindAddress, type BindAddress } from './bind-address.ts';
import type { HealthChecks } from './health.ts';
import { startHttpServer, type HttpServer, type HttpServerOptions } from './http-server.ts';
import type { Logger } from './logger.ts';

export interface EndpointServersOptions {
  /** Where `/metrics` is served (`--metrics-bind-address`); undefined: nowhere. */
  readonly metricsAt?: BindAddress | undefined;
  /** Where `/healthz` and `/readyz` are served (`--health-probe-bind-address`); undefined: nowhere. */
  readonly healthAt?: BindAddress | undefined;
  readonly registry: Registry;
  /** The process's checks, e.g. its Manager's. */
  readonly checks: { readonly healthz: HealthChecks; readonly readyz: HealthChecks };
  readonly log: Logger;
  /** Closes the servers when it aborts. */
  readonly signal?: AbortSignal;
}

/** What one server serves besides the address. */
type Served = Pick<HttpServerOptions, 'registry' | 'healthz' | 'readyz'>;

/**
 * Starts a process's `/metrics`, `/healthz` and `/readyz` servers the way controller-runtime lays
 * them out: one server serving all three when both addresses are the same, else one per address,
 * none for an address that is off. When a later server cannot listen, the ones already started
 * are closed before the error is thrown, so that nothing is left holding a port.
 */
export async function startEndpointServers(options: EndpointServersOptions): Promise<HttpServer[]> {
  const { metricsAt, healthAt, registry, checks, log, signal } = options;
  const serve = (at: BindAddress, endpoints: Served): Promise<HttpServer> =>
    startHttpServer({
      ...(at.host === undefined ? {} : { host: at.host }),
      port: at.port,
      log,
      ...(signal === undefined ? {} : { signal }),
      ...endpoints,
    });
  const health = { healthz: checks.healthz, readyz: checks.readyz };
  if (metricsAt !== undefined && healthAt !== undefined && isSameBindAddress(metricsAt, healthAt)) {
    return [await serve(metricsAt, { registry, ...health })];
  }
  const servers: HttpServer[] = [];
  try {
    if (metricsAt !== undefined) servers.push(await serve(metricsAt, { registry }));
    if (healthAt !== undefined) servers.push(await serve(healthAt, health));
  } catch (err: unknown) {
    await Promise.all(servers.map((s) => s.close()));
    throw err;
  }
  return servers;
}
