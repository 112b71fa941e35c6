import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceClient, kubeClients, type KubeObject } from '../src/index.ts';

const execFileAsync = promisify(execFile);

/**
 * Generated clients against a loopback HTTPS server that counts TLS handshakes and can hang:
 * what a real API server does not let a test control.
 */
describe('generated clients from kubeClients / ResourceClient', () => {
  let dir: string;
  let server: Server;
  let handshakes = 0;
  let kc: KubeConfig;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kf-api-client-'));
    await execFileAsync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        'key.pem',
        '-out',
        'cert.pem',
      ],
      { cwd: dir },
    );
    const cert = await readFile(join(dir, 'cert.pem'));
    server = createServer({ cert, key: await readFile(join(dir, 'key.pem')) }, (req, res) => {
      if (req.url?.startsWith('/api/v1/namespaces/slow/')) return; // never answers
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'NamespaceList',
          metadata: { resourceVersion: '1' },
          items: [],
        }),
      );
    });
    server.on('secureConnection', () => handshakes++);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'tls', server: `https://127.0.0.1:${port}`, caData: cert.toString('base64') }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'tls', cluster: 'tls', user: 'u' }],
      currentContext: 'tls',
    });
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reuses one TLS connection across calls (client-node alone opens one per call)', async () => {
    const clients = kubeClients(kc);
    const before = handshakes;
    for (let i = 0; i < 10; i++) await clients.core.listNamespace();
    // Back-to-back calls may find the first connection not yet returned to the pool: at most 2.
    expect(handshakes - before).toBeLessThanOrEqual(2);
  });

  it('ends a call that gets no answer at its deadline with code Timeout', async () => {
    const slow = new ResourceClient<KubeObject>(
      kc,
      { group: '', version: 'v1', plural: 'configmaps', namespaced: true },
      { timeoutMs: 300 },
    );
    const started = performance.now();
    await expect(slow.get('slow/x')).rejects.toMatchObject({ name: 'KubeError', code: 'Timeout' });
    expect(performance.now() - started).toBeLessThan(5_000);
    await expect(slow.get('slow/x', { timeoutMs: 100 })).rejects.toMatchObject({ code: 'Timeout' });
  });

  it('cancels a call when the caller signal aborts', async () => {
    const slow = new ResourceClient<KubeObject>(kc, {
      group: '',
      version: 'v1',
      plural: 'configmaps',
      namespaced: true,
    });
    const abort = new AbortController();
    const call = slow.get('slow/y', { signal: abort.signal });
    abort.abort();
    await expect(call).rejects.toMatchObject({ code: 'Timeout' });
  });
});
