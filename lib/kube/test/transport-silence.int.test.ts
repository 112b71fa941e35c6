import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { TcpProxy, ensureClusterPki } from '@kf/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeTransport, getText } from '../src/index.ts';

/**
 * HTTP/2 connections that fall silent for good while the path to the server still works (the
 * proxy's dropOpen: a vanished server behind a virtual IP, a lost NAT entry) are given up within
 * three PING intervals and two round trips of being asked something; a slow answer, a slow link or
 * a quiet request on a live connection are not.
 */

const PING_MS = 100;

/** `/hang`: never answered; `/slow`: answered after 600 ms; anything else at once. */
function answer(path: string, send: (body: string) => void): void {
  if (path.startsWith('/hang')) return;
  if (path.startsWith('/slow')) {
    setTimeout(() => {
      send('{"slow":true}');
    }, 600);
    return;
  }
  send('{"ok":true}');
}

describe('KubeTransport and connections that fall silent', () => {
  let dir: string;
  let tls: { key: Buffer; cert: Buffer; ca: Buffer };
  let h2: Http2SecureServer;
  const sessions: ServerHttp2Session[] = [];
  let h1: HttpsServer;
  const proxies: TcpProxy[] = [];
  const transports: KubeTransport[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kf-transport-silence-'));
    const pki = await ensureClusterPki(dir);
    const [key, cert, ca] = await Promise.all([
      readFile(pki.servingKey),
      readFile(pki.servingCert),
      readFile(pki.caCert),
    ]);
    tls = { key, cert, ca };
    h2 = createSecureServer({ key, cert });
    h2.on('session', (session) => {
      sessions.push(session);
      session.on('error', () => undefined);
    });
    h2.on('stream', (stream, headers) => {
      stream.on('error', () => undefined);
      answer(String(headers[':path']), (body) => {
        if (stream.destroyed) return;
        stream.respond({ ':status': 200, 'content-type': 'application/json' });
        stream.end(body);
      });
    });
    // A server that speaks HTTP/1.1 only (ALPN offers no h2): no PINGs to tell anything by.
    h1 = createHttpsServer({ key, cert }, (req, res) => {
      answer(req.url ?? '/', (body) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      });
    });
    await Promise.all([
      new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve)),
      new Promise<void>((resolve) => h1.listen(0, '127.0.0.1', resolve)),
    ]);
  });

  afterEach(async () => {
    await Promise.all(transports.splice(0).map((t) => t.close()));
    await Promise.all(proxies.splice(0).map((p) => p.close()));
  });

  afterAll(async () => {
    for (const s of sessions) s.destroy();
    h1.closeAllConnections();
    await Promise.all([
      new Promise((resolve) => h2.close(resolve)),
      new Promise((resolve) => h1.close(resolve)),
    ]);
    await rm(dir, { recursive: true, force: true });
  });

  /** A transport to `server` through a proxy of its own. */
  async function through(
    server: Http2SecureServer | HttpsServer,
  ): Promise<{ t: KubeTransport; proxy: TcpProxy }> {
    const { port } = server.address() as AddressInfo;
    const proxy = await TcpProxy.start({ target: `https://127.0.0.1:${String(port)}` });
    proxies.push(proxy);
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: proxy.url, caData: tls.ca.toString('base64') }],
      users: [{ name: 'u', token: 'secret-token' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    const t = new KubeTransport(kc, { pingIntervalMs: PING_MS, connectTimeoutMs: 2_000 });
    transports.push(t);
    return { t, proxy };
  }

  /** How a GET ended, and after how long. */
  async function timed(
    t: KubeTransport,
    path: string,
    timeoutMs: number,
  ): Promise<{ ms: number; error?: string }> {
    const started = performance.now();
    try {
      await getText(t, path, { timeoutMs });
      return { ms: performance.now() - started };
    } catch (err: unknown) {
      return { ms: performance.now() - started, error: err instanceof Error ? err.message : String(err) };
    }
  }

  it('gives up a connection that falls silent: the request on it fails early, the next connects afresh', async () => {
    const { t, proxy } = await through(h2);
    expect((await getText(t, '/healthz')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3 * PING_MS)); // PINGs answered: HTTP/2 it is
    const before = sessions.length;
    proxy.dropOpen();
    const hung = await timed(t, '/healthz', 5_000);
    // Three PING intervals and two (loopback) round trips, checked every interval: well before 5 s.
    expect(hung.error).toContain('given up');
    expect(hung.ms).toBeLessThan(2_000);
    expect(t.retired).toBe(1);
    expect((await getText(t, '/healthz', { timeoutMs: 2_000 })).status).toBe(200);
    expect(sessions.length).toBe(before + 1);
  });

  it('gives up a quiet request (a watch) once its connection stops answering PINGs, not before', async () => {
    const { t, proxy } = await through(h2);
    expect((await getText(t, '/healthz')).status).toBe(200);
    const watch = timed(t, '/hang', 10_000);
    await new Promise((r) => setTimeout(r, 10 * PING_MS));
    expect(t.retired).toBe(0);
    proxy.dropOpen();
    const ended = await watch;
    expect(ended.error).toContain('given up');
    expect(ended.ms).toBeLessThan(10 * PING_MS + 2_000);
    expect(t.retired).toBe(1);
  });

  it('keeps a connection whose answer is slow, or whose link is slow, while it answers PINGs', async () => {
    const { t, proxy } = await through(h2);
    expect((await getText(t, '/healthz')).status).toBe(200);
    const before = sessions.length;
    // 600 ms of server time: twice the silence allowed on loopback, PINGs answered meanwhile.
    expect((await getText(t, '/slow', { timeoutMs: 5_000 })).status).toBe(200);
    // The link slows down to 250 ms each way: a round trip longer than three PING intervals, as
    // measured by the PINGs. (A round trip that grows at once by more than three intervals looks
    // like silence until the first late acknowledgement: 15 s at the default interval.)
    proxy.delay(100);
    expect((await getText(t, '/slow', { timeoutMs: 5_000 })).status).toBe(200);
    proxy.delay(250);
    expect((await getText(t, '/slow', { timeoutMs: 5_000 })).status).toBe(200);
    expect(t.retired).toBe(0);
    expect(sessions.length).toBe(before);
  });

  it('keeps a new connection over a slow link, whose handshake tells its round trip', async () => {
    const { t, proxy } = await through(h2);
    proxy.delay(250);
    expect((await getText(t, '/slow', { timeoutMs: 10_000 })).status).toBe(200);
    expect((await getText(t, '/slow', { timeoutMs: 10_000 })).status).toBe(200);
    expect(t.retired).toBe(0);
  });

  it('ends a request waiting for a connection still being made at its deadline, not the connect timeout', async () => {
    const { t, proxy } = await through(h2);
    proxy.blackhole(); // the TCP connection is accepted, the TLS handshake never answered
    const waited = await timed(t, '/healthz', 300);
    expect(waited.error).toContain('timeout');
    expect(waited.ms).toBeLessThan(1_500); // the connect timeout is 2 s
    proxy.restore();
    expect((await getText(t, '/healthz', { timeoutMs: 5_000 })).status).toBe(200);
  });

  it('connects afresh after reconnect(), while a request on the old connection still gets its answer', async () => {
    const { t } = await through(h2);
    expect((await getText(t, '/healthz')).status).toBe(200);
    const before = sessions.length;
    const inFlight = getText(t, '/slow', { timeoutMs: 5_000 });
    await new Promise((r) => setTimeout(r, 100)); // on the connection, not yet answered
    t.reconnect();
    expect((await getText(t, '/healthz', { timeoutMs: 2_000 })).status).toBe(200);
    expect(sessions.length).toBe(before + 1);
    expect((await inFlight).status).toBe(200);
    expect(t.retired).toBe(0);
  });

  it('leaves a quiet request alone over HTTP/1.1, where no PING tells a slow connection from a dead one', async () => {
    const { t } = await through(h1);
    expect((await getText(t, '/healthz')).status).toBe(200);
    const quiet = await timed(t, '/hang', 10 * PING_MS);
    expect(quiet.error).toContain('timeout');
    expect(t.retired).toBe(0);
  });
});
