import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toKubeError } from './errors.ts';
import { NodeHttpDispatcher } from './node-dispatcher.ts';

/** undici's request() on Node's HTTPS client, against a local HTTPS server with its own CA. */
describe('NodeHttpDispatcher', () => {
  let dir: string;
  let ca: Buffer;
  let server: Server;
  let origin: string;
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kf-node-dispatcher-'));
    await promisify(execFile)('openssl', [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'],
      ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1'],
      ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    ]);
    ca = await readFile(join(dir, 'cert.pem'));
    server = createServer({ key: await readFile(join(dir, 'key.pem')), cert: ca }, (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        const route = routes.get(new URL(req.url ?? '/', 'https://x').pathname);
        if (route === undefined) {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"kind":"Status","code":404}');
        } else {
          route(req, res);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    routes.set('/json', (_req, res) => res.writeHead(200, { 'x-a': '1' }).end('{"ok":true}'));
    routes.set('/stream', (_req, res) => {
      res.writeHead(200);
      res.write('one\n');
      setTimeout(() => res.end('two\n'), 50);
    });
    routes.set('/silent', () => undefined);
    routes.set('/stall', (_req, res) => {
      res.writeHead(200);
      res.write('first\n');
    });
  }, 30_000);

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const dispatcher = (timeouts: { connectTimeoutMs?: number } = {}): NodeHttpDispatcher =>
    new NodeHttpDispatcher({
      tls: { ca },
      connectTimeoutMs: timeouts.connectTimeoutMs ?? 5_000,
      keepAliveInitialDelayMs: 30_000,
    });

  it('sends method, path, query, headers and body; returns status, headers and body', async () => {
    const d = dispatcher();
    try {
      const res = await request(`${origin}/json?watch=true`, {
        dispatcher: d,
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json', authorization: 'Bearer t' },
        body: '{"a":"é"}',
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-a']).toBe('1');
      expect(await res.body.json()).toEqual({ ok: true });
      const last = seen.at(-1);
      expect(last).toMatchObject({ method: 'PATCH', url: '/json?watch=true', body: '{"a":"é"}' });
      expect(last?.headers).toMatchObject({
        authorization: 'Bearer t',
        'content-type': 'application/merge-patch+json',
        'content-length': String(Buffer.byteLength('{"a":"é"}')),
      });
    } finally {
      await d.close();
    }
  });

  it('reuses one connection for sequential requests', async () => {
    const d = dispatcher();
    const ports = new Set<number>();
    const onConnection = (s: { remotePort?: number }): void => void ports.add(s.remotePort ?? 0);
    server.on('connection', onConnection);
    try {
      for (let i = 0; i < 3; i++) await (await request(`${origin}/json`, { dispatcher: d })).body.text();
      expect(ports.size).toBe(1);
    } finally {
      server.off('connection', onConnection);
      await d.close();
    }
  });

  it('streams a body chunk by chunk and reports non-2xx responses as they are', async () => {
    const d = dispatcher();
    try {
      const res = await request(`${origin}/stream`, { dispatcher: d });
      const chunks: string[] = [];
      for await (const c of res.body) chunks.push(String(c));
      expect(chunks).toEqual(['one\n', 'two\n']);
      const missing = await request(`${origin}/nothing`, { dispatcher: d });
      expect(missing.statusCode).toBe(404);
      expect(await missing.body.json()).toMatchObject({ code: 404 });
    } finally {
      await d.close();
    }
  });

  it("fails with undici's timeout errors when headers or body chunks do not come", async () => {
    const d = dispatcher();
    try {
      const headers = request(`${origin}/silent`, { dispatcher: d, headersTimeout: 200 });
      await expect(headers).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
      expect(toKubeError(await headers.catch((e: unknown) => e)).code).toBe('Timeout');
      const res = await request(`${origin}/stall`, { dispatcher: d, bodyTimeout: 200 });
      await expect(res.body.text()).rejects.toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT' });
    } finally {
      await d.destroy();
    }
  });

  it('aborts with the signal, before or during the response', async () => {
    const d = dispatcher();
    try {
      const early = request(`${origin}/json`, { dispatcher: d, signal: AbortSignal.abort() });
      await expect(early).rejects.toMatchObject({ name: 'AbortError' });
      const controller = new AbortController();
      const res = await request(`${origin}/stall`, { dispatcher: d, signal: controller.signal });
      const body = res.body.text();
      controller.abort(new Error('stop'));
      await expect(body).rejects.toThrow('stop');
    } finally {
      await d.destroy();
    }
  });

  it('verifies the server against the given CA only', async () => {
    const d = new NodeHttpDispatcher({ tls: {}, connectTimeoutMs: 5_000, keepAliveInitialDelayMs: 30_000 });
    try {
      const err = await request(`${origin}/json`, { dispatcher: d }).catch((e: unknown) => e);
      expect(toKubeError(err).code).toBe('Network');
    } finally {
      await d.close();
    }
  });

  it('reports a refused connection as a network error and refuses requests once closed', async () => {
    const d = dispatcher();
    const refused = await request('https://127.0.0.1:1/x', { dispatcher: d }).catch((e: unknown) => e);
    expect(toKubeError(refused).code).toBe('Network');
    await d.close();
    await expect(request(`${origin}/json`, { dispatcher: d })).rejects.toMatchObject({
      code: 'UND_ERR_DESTROYED',
    });
  });
});
