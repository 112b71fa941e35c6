import { createServer, request } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger } from '@kf/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceClient, WatchCache, type KubeObject, type ResourceDescriptor } from '../src/index.ts';
import { close, listen, tunnelConnects } from './http-proxy.ts';

/** A cluster whose kubeconfig has a `proxy-url`: every request goes through the proxy. */

const CONFIG_MAPS: ResourceDescriptor = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  namespaced: true,
  kind: 'ConfigMap',
};
const cm: KubeObject = { metadata: { name: 'one', namespace: 'ns', resourceVersion: '5' } };
const log = createLogger({ component: 'transport-proxy-test', level: 'silent' });

describe('KubeTransport through an HTTP proxy', () => {
  const api = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (url.searchParams.get('watch') === 'true') {
      res.flushHeaders(); // holds the watch open
      return;
    }
    if (url.pathname.endsWith('/configmaps')) {
      res.end(JSON.stringify({ kind: 'ConfigMapList', metadata: { resourceVersion: '5' }, items: [cm] }));
    } else res.end(JSON.stringify(cm));
  });
  /** host:port of every request the proxy passed on (forwarded or tunnelled with CONNECT). */
  const passed: string[] = [];
  const proxy = createServer((req, res) => {
    const target = new URL(req.url ?? '');
    passed.push(target.host);
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders(); // a watch sends its headers long before its first event
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  tunnelConnects(proxy, passed);
  let kc: KubeConfig;
  let apiPort: number;

  beforeAll(async () => {
    apiPort = await listen(api);
    const proxyPort = await listen(proxy);
    kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name: 'behind-proxy',
          server: `http://127.0.0.1:${apiPort}`,
          skipTLSVerify: true,
          proxyUrl: `http://127.0.0.1:${proxyPort}`,
        },
      ],
      users: [{ name: 'robot', token: 'secret-token' }],
      contexts: [{ name: 'ctx', cluster: 'behind-proxy', user: 'robot' }],
      currentContext: 'ctx',
    });
  });

  afterAll(async () => {
    await Promise.all([close(api), close(proxy)]);
  });

  it('sends ResourceClient calls and WatchCache lists and watches through the proxy', async () => {
    expect(await new ResourceClient(kc, CONFIG_MAPS).get('ns/one')).toEqual(cm);
    expect(passed).toEqual([`127.0.0.1:${apiPort}`]);
    const cache = new WatchCache<KubeObject>({ kubeConfig: kc, resource: CONFIG_MAPS, log });
    cache.start();
    try {
      await cache.synced();
      expect(cache.keys()).toEqual(['ns/one']);
      await expect.poll(() => cache.stats().watches).toBe(1);
      expect(passed.length).toBeGreaterThanOrEqual(3); // get, list, watch
      expect(new Set(passed)).toEqual(new Set([`127.0.0.1:${apiPort}`]));
    } finally {
      await cache.stop();
    }
  });
});
