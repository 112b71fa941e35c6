import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { HealthChecks } from './health.ts';
import { startHttpServer, type HttpServer } from './http-server.ts';
import { createLogger } from './logger.ts';

const log = createLogger({ component: 'test', level: 'silent' });
const servers: HttpServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(opts: Partial<Parameters<typeof startHttpServer>[0]> = {}): Promise<HttpServer> {
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, log, ...opts });
  servers.push(server);
  return server;
}

async function get(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; type: string | null; body: string }> {
  const res = await fetch(url, init);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

describe('startHttpServer', () => {
  it('serves the registry at /metrics with its content type', async () => {
    const registry = new Registry();
    new Counter({ name: 'test_events_total', help: 'h', registers: [registry] }).inc(3);
    const s = await serve({ registry });
    const res = await get(`${s.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.type).toBe(registry.contentType);
    expect(res.body).toContain('test_events_total 3');
  });

  it('answers ok on /healthz and /readyz when every check passes', async () => {
    const readyz = new HealthChecks();
    readyz.add('informers', () => undefined);
    const s = await serve({ readyz });
    expect(await get(`${s.url}/healthz`)).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(`${s.url}/readyz`)).toMatchObject({ status: 200, body: 'ok' });
    expect((await get(`${s.url}/readyz?verbose`)).body).toBe('[+]informers ok\nreadyz check passed\n');
  });

  it('answers 503 on /readyz naming the failing checks but not their reasons', async () => {
    const readyz = new HealthChecks();
    readyz.add('informers', () => undefined);
    readyz.add('leader', () => {
      throw new Error('secret detail');
    });
    readyz.add('cache', () => Promise.reject(new Error('not synced')));
    const s = await serve({ readyz });
    const res = await get(`${s.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.body).toBe('[-]leader failed\n[-]cache failed\nreadyz check failed\n');
    expect((await get(`${s.url}/readyz?verbose`)).body).toContain('[+]informers ok');
  });

  it('answers 404 for unknown paths and /metrics without a registry, 405 for other methods', async () => {
    const s = await serve();
    expect((await get(`${s.url}/`)).status).toBe(404);
    expect((await get(`${s.url}/metrics`)).status).toBe(404);
    expect((await get(`${s.url}/constructor`)).status).toBe(404);
    const post = await fetch(`${s.url}/healthz`, { method: 'POST' });
    await post.body?.cancel();
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await get(`${s.url}/healthz`, { method: 'HEAD' })).toMatchObject({ status: 200, body: '' });
  });

  it('answers 500 when a handler fails', async () => {
    const registry = new Registry();
    new Counter({
      name: 'broken_total',
      help: 'h',
      registers: [registry],
      collect() {
        throw new Error('collect failed');
      },
    });
    const s = await serve({ registry });
    expect((await get(`${s.url}/metrics`)).status).toBe(500);
  });

  it('stops listening on close, including kept-alive connections, and when its signal aborts', async () => {
    const s = await serve();
    await get(`${s.url}/healthz`);
    await s.close();
    await s.close();
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();

    const stop = new AbortController();
    const t = await serve({ signal: stop.signal });
    stop.abort();
    await t.close();
    await expect(fetch(`${t.url}/healthz`)).rejects.toThrow();
  });

  it('rejects when the port is taken', async () => {
    const s = await serve();
    await expect(startHttpServer({ host: '127.0.0.1', port: s.port, log })).rejects.toThrow(/EADDRINUSE/);
  });
});
