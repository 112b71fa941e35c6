import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  formatBindAddress,
  listenProblem,
  startEndpointServers,
  type EndpointServersOptions,
} from './endpoint-servers.ts';
import { ConfigError } from './errors.ts';
import { exitCodeFor } from './cli.ts';
import { HealthChecks } from './health.ts';
import { startHttpServer, type HttpServer } from './http-server.ts';
import { createLogger } from './logger.ts';

const log = createLogger({ component: 'test', level: 'silent' });
const started: HttpServer[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

/** A registry with one known sample, and checks whose /healthz fails so that it is recognisable. */
function endpoints(): Pick<EndpointServersOptions, 'registry' | 'checks'> {
  const registry = new Registry();
  new Counter({ name: 'test_events_total', help: 'h', registers: [registry] }).inc(2);
  const healthz = new HealthChecks();
  healthz.add('leader', () => {
    throw new Error('lost');
  });
  const readyz = new HealthChecks();
  readyz.add('caches', () => undefined);
  return { registry, checks: { healthz, readyz } };
}

async function start(
  options: Omit<EndpointServersOptions, 'log' | 'registry' | 'checks'>,
): Promise<HttpServer[]> {
  const servers = await startEndpointServers({ ...endpoints(), log, ...options });
  started.push(...servers);
  return servers;
}

/** The status of `path` on `server`; a 200 from /metrics must carry the registry's sample. */
async function status(server: HttpServer, path: string): Promise<number> {
  const res = await fetch(`${server.url}${path}`);
  const body = await res.text();
  if (path === '/metrics' && res.status === 200) expect(body).toContain('test_events_total 2');
  return res.status;
}

/** A port that was free a moment ago: listen on 0, note the port, close. */
async function freePort(): Promise<number> {
  const s = await startHttpServer({ host: '127.0.0.1', port: 0, log });
  await s.close();
  return s.port;
}

describe('startEndpointServers', () => {
  it('serves /metrics, /healthz and /readyz from one server when both addresses are the same', async () => {
    const at = { host: '127.0.0.1', port: await freePort() };
    const servers = await start({ metricsAt: at, healthAt: { ...at } });
    expect(servers).toHaveLength(1);
    const [one] = servers as [HttpServer];
    expect(one.port).toBe(at.port);
    expect(await status(one, '/metrics')).toBe(200);
    expect(await status(one, '/healthz')).toBe(503);
    expect(await status(one, '/readyz')).toBe(200);
  });

  it('serves /metrics and the checks from one server each when the addresses differ', async () => {
    // Two requests for port 0 are two sockets, never one.
    const servers = await start({
      metricsAt: { host: '127.0.0.1', port: 0 },
      healthAt: { host: '127.0.0.1', port: 0 },
    });
    expect(servers).toHaveLength(2);
    const [metrics, health] = servers as [HttpServer, HttpServer];
    expect(metrics.port).not.toBe(health.port);
    expect(await status(metrics, '/metrics')).toBe(200);
    expect(await status(metrics, '/healthz')).toBe(200); // the process's checks are not there
    expect(await status(health, '/metrics')).toBe(404);
    expect(await status(health, '/healthz')).toBe(503);
    expect(await status(health, '/readyz')).toBe(200);
  });

  it('starts no server for an address that is off', async () => {
    expect(await start({})).toEqual([]);
    const onlyHealth = await start({ metricsAt: undefined, healthAt: { host: '127.0.0.1', port: 0 } });
    expect(onlyHealth).toHaveLength(1);
    expect(await status(onlyHealth[0] as HttpServer, '/metrics')).toBe(404);
    expect(await status(onlyHealth[0] as HttpServer, '/healthz')).toBe(503);
    const onlyMetrics = await start({ metricsAt: { host: '127.0.0.1', port: 0 } });
    expect(onlyMetrics).toHaveLength(1);
    expect(await status(onlyMetrics[0] as HttpServer, '/metrics')).toBe(200);
  });

  it('closes the metrics server again when the health server cannot listen', async () => {
    const taken = await startHttpServer({ host: '127.0.0.1', port: 0, log });
    started.push(taken);
    const metricsPort = await freePort();
    await expect(
      start({
        metricsAt: { host: '127.0.0.1', port: metricsPort },
        healthAt: { host: '127.0.0.1', port: taken.port },
      }),
    ).rejects.toThrow(/EADDRINUSE/);
    // The port is free again: nothing of the failed start holds it.
    const again = await startHttpServer({ host: '127.0.0.1', port: metricsPort, log });
    started.push(again);
    expect(again.port).toBe(metricsPort);
  });

  it.each([
    ['the metrics address', 'metricsAt', '--metrics-bind-address'],
    ['the health address', 'healthAt', '--health-probe-bind-address'],
  ] as const)(
    'reports %s in use as a configuration problem naming the flag (exit 2)',
    async (_n, key, flag) => {
      const taken = await startHttpServer({ host: '127.0.0.1', port: 0, log });
      started.push(taken);
      const err: unknown = await start({ [key]: { host: '127.0.0.1', port: taken.port } }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toEqual([
        `${flag} 127.0.0.1:${taken.port}: the address is already in use (EADDRINUSE)`,
      ]);
      expect(exitCodeFor(err)).toBe(2);
    },
  );

  it.each([
    [
      { code: 'EADDRINUSE' },
      { port: 8080 },
      '--metrics-bind-address :8080: the address is already in use (EADDRINUSE)',
    ],
    [
      { code: 'EADDRNOTAVAIL' },
      { host: '10.9.9.9', port: 1 },
      '--metrics-bind-address 10.9.9.9:1: no interface of this host has that address (EADDRNOTAVAIL)',
    ],
    [
      { code: 'EACCES' },
      { host: '::1', port: 80 },
      '--metrics-bind-address [::1]:80: not allowed to listen there (a port below 1024 needs privileges) (EACCES)',
    ],
    [{ code: 'EMFILE' }, { port: 8080 }, undefined],
    [new Error('boom'), { port: 8080 }, undefined],
  ])('listenProblem(%j, %j)', (err, at, expected) => {
    expect(listenProblem(err, at, '--metrics-bind-address')).toBe(expected);
  });

  it('formats addresses in the flag syntax', () => {
    expect(formatBindAddress({ port: 1 })).toBe(':1');
    expect(formatBindAddress({ host: '0.0.0.0', port: 2 })).toBe('0.0.0.0:2');
    expect(formatBindAddress({ host: '::', port: 3 })).toBe('[::]:3');
  });

  it('closes its servers when the signal aborts', async () => {
    const stop = new AbortController();
    const servers = await start({
      metricsAt: { host: '127.0.0.1', port: 0 },
      healthAt: { host: '127.0.0.1', port: 0 },
      signal: stop.signal,
    });
    expect(servers).toHaveLength(2);
    stop.abort();
    for (const s of servers) {
      await expect
        .poll(() =>
          fetch(`${s.url}/readyz`).then(
            () => 'listening',
            () => 'closed',
          ),
        )
        .toBe('closed');
    }
  });
});
