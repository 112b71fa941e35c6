import { KubeConfig } from '@kubernetes/client-node';
import { TcpProxy, startControlPlane, type LocalCluster } from '@kf/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MemberHttp } from '../src/member/member-http.ts';

/**
 * The member API server's plain GETs (health probe, version, discovery) against a real
 * kube-apiserver behind a proxy: a call whose deadline ends it unanswered leaves the next call a
 * connection of its own, so that a probe does not ride a connection gone silent for good until
 * the PINGs give it up (15 s and more at the default interval, longer than a failure threshold
 * after a slow spell).
 */
describe('MemberHttp and a connection gone silent', () => {
  let cluster: LocalCluster;
  const proxies: TcpProxy[] = [];
  const clients: MemberHttp[] = [];

  beforeAll(async () => {
    cluster = await startControlPlane({ installCrds: false });
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(proxies.splice(0).map((p) => p.close()));
  });

  afterAll(async () => {
    await (cluster as LocalCluster | undefined)?.stop();
  });

  /** A client of the API server through a proxy of its own. */
  async function through(): Promise<{ http: MemberHttp; proxy: TcpProxy }> {
    const proxy = await TcpProxy.start({ target: cluster.server });
    proxies.push(proxy);
    const kc = new KubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);
    const current = kc.getCurrentCluster();
    if (current === null) throw new Error('the kubeconfig names no cluster');
    kc.clusters = kc.clusters.map((c) => (c.name === current.name ? { ...c, server: proxy.url } : c));
    const http = new MemberHttp(kc);
    clients.push(http);
    return { http, proxy };
  }

  it('connects afresh after a call its deadline ended unanswered, and the next call is answered', async () => {
    const { http, proxy } = await through();
    expect((await http.get('/readyz')).status).toBe(200);
    const connections = proxy.accepted;
    proxy.dropOpen();
    await expect(http.get('/readyz', { timeoutMs: 300 })).rejects.toMatchObject({ code: 'Timeout' });
    // Well within the PINGs' verdict on the silent connection (three 5 s intervals).
    expect((await http.get('/readyz', { timeoutMs: 3_000 })).status).toBe(200);
    expect(proxy.accepted).toBe(connections + 1);
  });

  it('keeps its connection after any answer, an error status included', async () => {
    const { http, proxy } = await through();
    expect((await http.get('/readyz')).status).toBe(200);
    const connections = proxy.accepted;
    await expect(http.getJson('/apis/no.such.group/v1')).rejects.toMatchObject({ status: 404 });
    expect((await http.get('/version')).status).toBe(200);
    expect(proxy.accepted).toBe(connections);
  });
});
