import type { Registry } from 'prom-client';
import { ConfigError } from './errors.ts';
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
 * are closed before the error is thrown, so that nothing is left holding a port. An address that
 * cannot be listened on (in use, not this host's, a privileged port) is a configuration problem:
 * it is thrown as a {@link ConfigError} naming the flag, so that the process exits 2 with one line.
 */
export async function startEndpointServers(options: EndpointServersOptions): Promise<HttpServer[]> {
  const { metricsAt, healthAt, registry, checks, log, signal } = options;
  const serve = async (at: BindAddress, endpoints: Served, flagName: string): Promise<HttpServer> => {
    try {
      return await startHttpServer({
        ...(at.host === undefined ? {} : { host: at.host }),
        port: at.port,
        log,
        ...(signal === undefined ? {} : { signal }),
        ...endpoints,
      });
    } catch (err: unknown) {
      const problem = listenProblem(err, at, flagName);
      throw problem === undefined ? err : new ConfigError([problem], { cause: err });
    }
  };
  const health = { healthz: checks.healthz, readyz: checks.readyz };
  if (metricsAt !== undefined && healthAt !== undefined && isSameBindAddress(metricsAt, healthAt)) {
    return [await serve(metricsAt, { registry, ...health }, METRICS_FLAG)];
  }
  const servers: HttpServer[] = [];
  try {
    if (metricsAt !== undefined) servers.push(await serve(metricsAt, { registry }, METRICS_FLAG));
    if (healthAt !== undefined) servers.push(await serve(healthAt, health, HEALTH_FLAG));
  } catch (err: unknown) {
    await Promise.all(servers.map((s) => s.close()));
    throw err;
  }
  return servers;
}

const METRICS_FLAG = '--metrics-bind-address';
const HEALTH_FLAG = '--health-probe-bind-address';

/** Why listening failed, when the address given is what is wrong; undefined for other failures. */
export function listenProblem(err: unknown, at: BindAddress, flagName: string): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const why = code === undefined ? undefined : LISTEN_PROBLEMS[code];
  return why === undefined ? undefined : `${flagName} ${formatBindAddress(at)}: ${why} (${code ?? ''})`;
}

const LISTEN_PROBLEMS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the address is already in use',
  EADDRNOTAVAIL: 'no interface of this host has that address',
  EACCES: 'not allowed to listen there (a port below 1024 needs privileges)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
};

/** `:8080`, `127.0.0.1:8080`, `[::1]:8080`: the flag's own syntax. */
export function formatBindAddress(at: BindAddress): string {
  const host = at.host ?? '';
  return `${host.includes(':') ? `[${host}]` : host}:${at.port}`;
}
