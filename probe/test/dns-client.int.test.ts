import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOLV_CONF_DEFAULTS, parseResolvConf } from '../src/dns/resolv-conf.ts';
import { lookup } from '../src/dns/resolver.ts';
import { exchange, type ExchangeRequest } from '../src/dns/transport.ts';
import { Dnsmasq, KUBERNETES_FQDN, KUBERNETES_IP } from '@kf/testing';

const BIG = 'big.cluster.local';
const BIG_IPS = Array.from({ length: 100 }, (_, i) => `10.1.${Math.floor(i / 200)}.${i % 200}`);

/** Sockets of this process by kind, to show every query closed its own. */
function openSockets(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap' || r === 'TCPSocketWrap').length;
}

describe('DNS client against dnsmasq', () => {
  let dns: Dnsmasq;
  const ask = (name: string, extra: Partial<ExchangeRequest> = {}): ReturnType<typeof exchange> =>
    exchange({
      server: '127.0.0.1',
      port: dns.port,
      question: { name, type: 'A' },
      timeoutMs: 2_000,
      edns0: false,
      tcpOnly: false,
      ...extra,
    });

  beforeAll(async () => {
    dns = await Dnsmasq.start({ hosts: { [BIG]: BIG_IPS } });
  });

  afterAll(async () => {
    await dns.destroy();
  });

  it('gets an answer over UDP', async () => {
    const x = await ask(KUBERNETES_FQDN);
    expect(x).toMatchObject({
      transport: 'udp',
      outcome: { kind: 'reply', rcode: 'NOERROR', addresses: [KUBERNETES_IP] },
    });
  });

  it('gets NXDOMAIN for an unknown name in the cluster zone', async () => {
    expect((await ask('nope.default.svc.cluster.local')).outcome).toEqual({
      kind: 'reply',
      rcode: 'NXDOMAIN',
      addresses: [],
    });
  });

  it('retries a truncated reply over TCP and gets every record', async () => {
    const x = await ask(BIG);
    expect(x.transport).toBe('tcp');
    expect(x.outcome.kind === 'reply' ? [...x.outcome.addresses].sort() : x.outcome).toEqual(
      [...BIG_IPS].sort(),
    );
  });

  it('also truncates with EDNS (dnsmasq caps UDP replies) and falls back to TCP', async () => {
    const x = await ask(BIG, { edns0: true });
    expect(x.transport).toBe('tcp');
    expect(x.outcome.kind).toBe('reply');
  });

  it('asks over TCP only with use-vc', async () => {
    expect(await ask(KUBERNETES_FQDN, { tcpOnly: true })).toMatchObject({
      transport: 'tcp',
      outcome: { kind: 'reply', addresses: [KUBERNETES_IP] },
    });
  });

  it('resolves kubernetes.default through a pod search list, as nslookup does', async () => {
    const conf = parseResolvConf(
      'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 127.0.0.1\noptions ndots:5 timeout:1 attempts:1\n',
    );
    const r = await lookup('kubernetes.default', { conf, port: dns.port, type: 'A' }, exchange);
    expect(r).toMatchObject({ result: 'success', fqdn: KUBERNETES_FQDN, addresses: [KUBERNETES_IP] });
    expect(
      r.attempts.map((a) => [a.fqdn, a.outcome.kind === 'reply' ? a.outcome.rcode : a.outcome.kind]),
    ).toEqual([
      ['kubernetes.default.default.svc.cluster.local', 'NXDOMAIN'],
      [KUBERNETES_FQDN, 'NOERROR'],
    ]);
  });

  it('fails fast with connection refused while the server is down, and recovers', async () => {
    const conf = { ...RESOLV_CONF_DEFAULTS, nameservers: ['127.0.0.1'], timeoutMs: 3_000, attempts: 1 };
    await dns.stop();
    try {
      const startedAt = performance.now();
      const down = await lookup(KUBERNETES_FQDN, { conf, port: dns.port, type: 'A' }, exchange);
      expect(down.result).toBe('network_error');
      expect(down.message).toContain('connection refused');
      expect(performance.now() - startedAt).toBeLessThan(1_000); // ICMP unreachable, not the 3 s timeout
    } finally {
      await dns.start();
    }
    expect((await lookup(KUBERNETES_FQDN, { conf, port: dns.port, type: 'A' }, exchange)).result).toBe(
      'success',
    );
  });

  it('leaves no socket open after many queries', async () => {
    const before = openSockets();
    await Promise.all(Array.from({ length: 50 }, (_, i) => ask(i % 5 === 0 ? BIG : KUBERNETES_FQDN)));
    await expect.poll(openSockets, { timeout: 2_000 }).toBeLessThanOrEqual(before);
  });
});
