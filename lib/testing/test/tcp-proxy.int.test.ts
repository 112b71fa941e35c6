/**
 * The fault-injection proxy against plain loopback servers: an echo server over raw TCP (to time
 * round trips and watch one connection live or die) and an HTTP server (what API clients see).
 */
import { once } from 'node:events';
import { createServer as createHttpServer, request, type Server as HttpServer } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TcpProxy } from '../src/faults/tcp-proxy.ts';

let echo: Server;
let echoPort: number;
let http: HttpServer;
let httpPort: number;
const proxies: TcpProxy[] = [];

async function listen(server: Server | HttpServer): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

beforeAll(async () => {
  echo = createServer((s) => {
    s.on('error', () => undefined);
    s.pipe(s);
  });
  echoPort = await listen(echo);
  http = createHttpServer((_req, res) => {
    res.end('hello');
  });
  httpPort = await listen(http);
});

afterAll(async () => {
  echo.close();
  http.closeAllConnections();
  http.close();
  await Promise.all([once(echo, 'close'), once(http, 'close')]);
});

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

async function proxyTo(target: string): Promise<TcpProxy> {
  const proxy = await TcpProxy.start({ target, name: 'test' });
  proxies.push(proxy);
  return proxy;
}

const echoProxy = (): Promise<TcpProxy> => proxyTo(`tcp://127.0.0.1:${echoPort}`);
const httpProxy = (): Promise<TcpProxy> => proxyTo(`http://127.0.0.1:${httpPort}`);

/** A connected raw TCP client that records how it ended. */
interface Client {
  readonly socket: Socket;
  /** Resolves with the error code that ended it ('' for a clean close). */
  readonly ended: Promise<string>;
}

async function tcpClient(port: number): Promise<Client> {
  const socket = connect({ host: '127.0.0.1', port, noDelay: true });
  let code = '';
  socket.on('error', (err: NodeJS.ErrnoException) => {
    code = err.code ?? err.message;
  });
  const ended = new Promise<string>((resolve) => {
    socket.once('close', () => {
      resolve(code);
    });
  });
  await once(socket, 'connect');
  return { socket, ended };
}

/** Sends a line and resolves with the echo's round-trip time in ms (rejects after `timeoutMs`). */
async function roundTrip(socket: Socket, timeoutMs = 2_000): Promise<number> {
  const start = performance.now();
  const text = `ping ${start}\n`;
  socket.write(text);
  let got = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off('data', onData);
      reject(new Error(`no echo within ${timeoutMs} ms`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      got += chunk.toString();
      if (got.length >= text.length) {
        clearTimeout(timer);
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData);
  });
  expect(got).toBe(text);
  return performance.now() - start;
}

/** One GET on a fresh connection: the body, or the error code (`TIMEOUT` after `timeoutMs`). */
function get(url: string, timeoutMs = 2_000): Promise<{ body?: string; error?: string; ms: number }> {
  const start = performance.now();
  return new Promise((resolve) => {
    const req = request(url, { agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => {
        resolve({ body, ms: performance.now() - start });
      });
    });
    req.on('timeout', () => {
      req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      resolve({ error: err.code ?? err.message, ms: performance.now() - start });
    });
    req.end();
  });
}

describe('TcpProxy', () => {
  it('forwards both ways and counts connections', async () => {
    const proxy = await httpProxy();
    expect(proxy.url).toBe(`http://127.0.0.1:${proxy.port}`);
    expect(await get(`${proxy.url}/`)).toMatchObject({ body: 'hello' });
    const client = await tcpClient((await echoProxy()).port);
    expect(await roundTrip(client.socket)).toBeLessThan(500);
    expect(proxy.accepted).toBe(1);
    await expect.poll(() => proxy.open).toBe(0);
    client.socket.end();
    expect(await client.ended).toBe('');
  });

  it('cut resets open connections and every new one at once, until restored', async () => {
    const proxy = await echoProxy();
    const client = await tcpClient(proxy.port);
    await roundTrip(client.socket);
    expect(proxy.open).toBe(1);

    const cutAt = performance.now();
    proxy.cut();
    expect(await client.ended).toBe('ECONNRESET');
    expect(performance.now() - cutAt).toBeLessThan(500);
    expect(proxy.open).toBe(0);

    const refused = await get(`http://127.0.0.1:${proxy.port}/`);
    expect(refused.error).toBe('ECONNRESET');
    expect(refused.ms).toBeLessThan(500);

    proxy.restore();
    const again = await tcpClient(proxy.port);
    await roundTrip(again.socket);
    again.socket.end();
    await again.ended;
  });

  it('cut resets an HTTP request in flight and the next one, and HTTP works after restore', async () => {
    const proxy = await httpProxy();
    proxy.cut();
    expect((await get(`${proxy.url}/`)).error).toBe('ECONNRESET');
    proxy.restore();
    expect(await get(`${proxy.url}/`)).toMatchObject({ body: 'hello' });
  });

  it('blackhole accepts connections but answers nothing, so requests only time out', async () => {
    const proxy = await httpProxy();
    proxy.blackhole();
    const accepted = proxy.accepted;
    const r = await get(`${proxy.url}/`, 700);
    expect(r.error).toBe('TIMEOUT');
    expect(r.ms).toBeGreaterThanOrEqual(650);
    expect(proxy.accepted).toBe(accepted + 1);

    proxy.restore();
    expect(await get(`${proxy.url}/`)).toMatchObject({ body: 'hello' });
  });

  it('blackhole swallows data on an open connection; restore resets it and keeps idle ones', async () => {
    const proxy = await echoProxy();
    const talking = await tcpClient(proxy.port);
    const idle = await tcpClient(proxy.port);
    await roundTrip(talking.socket);
    await roundTrip(idle.socket);

    proxy.blackhole();
    await expect(roundTrip(talking.socket, 500)).rejects.toThrow('no echo within 500 ms');
    expect(talking.socket.destroyed).toBe(false);

    proxy.restore();
    // The talking connection lost its ping for good: it is reset rather than left corrupt.
    expect(await talking.ended).toBe('ECONNRESET');
    // The idle one lost nothing and carries on.
    await roundTrip(idle.socket);
    idle.socket.end();
    await idle.ended;
  });

  it('a connection accepted in a blackhole reaches the target after restore if it sent nothing', async () => {
    const proxy = await echoProxy();
    proxy.blackhole();
    const client = await tcpClient(proxy.port);
    await expect.poll(() => proxy.open).toBe(1);
    proxy.restore();
    await roundTrip(client.socket);
    client.socket.end();
    await client.ended;
  });

  it('dropOpen silences the open connections for good, while new ones get through', async () => {
    const proxy = await echoProxy();
    const open = await tcpClient(proxy.port);
    await roundTrip(open.socket);

    proxy.dropOpen();
    expect(proxy.mode).toBe('forward');
    await expect(roundTrip(open.socket, 500)).rejects.toThrow('no echo within 500 ms');
    const fresh = await tcpClient(proxy.port);
    await roundTrip(fresh.socket);
    // Not even restore() revives it, and it is never reset: only its own timeout tells.
    proxy.restore();
    await expect(roundTrip(open.socket, 500)).rejects.toThrow('no echo within 500 ms');
    expect(open.socket.destroyed).toBe(false);
    open.socket.destroy();
    fresh.socket.end();
    await Promise.all([open.ended, fresh.ended]);
  });

  it('delay adds latency in each direction, and restore removes it', async () => {
    const proxy = await echoProxy();
    const client = await tcpClient(proxy.port);
    const baseline = await roundTrip(client.socket);

    proxy.delay(150);
    expect(proxy.mode).toBe('delay');
    const delayed = await roundTrip(client.socket);
    // 150 ms on the way out and 150 ms on the way back.
    expect(delayed).toBeGreaterThanOrEqual(300);
    expect(delayed).toBeLessThan(300 + baseline + 400);

    proxy.restore();
    expect(await roundTrip(client.socket)).toBeLessThan(150);
    client.socket.end();
    await client.ended;
  });

  it('delay keeps bytes in order when shortened mid-stream', async () => {
    const proxy = await echoProxy();
    const client = await tcpClient(proxy.port);
    proxy.delay(300);
    let got = '';
    client.socket.on('data', (c: Buffer) => (got += c.toString()));
    client.socket.write('first,');
    await new Promise((r) => setTimeout(r, 50));
    proxy.delay(0);
    client.socket.write('second');
    await expect.poll(() => got, { timeout: 2_000 }).toBe('first,second');
    client.socket.end();
    await client.ended;
  });

  it('passes a reset from the target on, and resets clients when the target is down', async () => {
    const target = createServer((s) => {
      s.on('error', () => undefined);
      s.resetAndDestroy();
    });
    const port = await listen(target);
    const proxy = await proxyTo(`tcp://127.0.0.1:${port}`);
    const client = await tcpClient(proxy.port);
    expect(await client.ended).toBe('ECONNRESET');
    target.close();
    await once(target, 'close');
    const r = await get(`http://127.0.0.1:${proxy.port}/`);
    expect(r.error).toBe('ECONNRESET');
  });

  it('close stops listening and resets open connections', async () => {
    const proxy = await echoProxy();
    const client = await tcpClient(proxy.port);
    await proxy.close();
    expect(await client.ended).toBe('ECONNRESET');
    expect((await get(`http://127.0.0.1:${proxy.port}/`)).error).toBe('ECONNREFUSED');
    expect(() => {
      proxy.cut();
    }).toThrow('closed');
  });
});
