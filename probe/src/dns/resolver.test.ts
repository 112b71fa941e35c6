import { describe, expect, it } from 'vitest';
import { RESOLV_CONF_DEFAULTS, type ResolvConf } from './resolv-conf.ts';
import { lookup, type LookupOptions } from './resolver.ts';
import type { ExchangeOutcome, ExchangeRequest, Exchanger } from './transport.ts';

const POD: ResolvConf = {
  ...RESOLV_CONF_DEFAULTS,
  nameservers: ['10.96.0.10', '10.96.0.11'],
  search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
  ndots: 5,
};
const OPTS: LookupOptions = { conf: POD, port: 53, type: 'A' };
const FQDN = 'kubernetes.default.svc.cluster.local';
const FIRST = 'kubernetes.default.default.svc.cluster.local';

const answer = (ip = '10.96.0.1'): ExchangeOutcome => ({ kind: 'reply', rcode: 'NOERROR', addresses: [ip] });
const rcode = (name: string): ExchangeOutcome => ({ kind: 'reply', rcode: name, addresses: [] });
const NXDOMAIN = rcode('NXDOMAIN');
const NODATA = rcode('NOERROR');
const SERVFAIL = rcode('SERVFAIL');
const REFUSED = rcode('REFUSED');
const TIMEOUT: ExchangeOutcome = { kind: 'timeout' };
const REFUSED_CONN: ExchangeOutcome = {
  kind: 'error',
  code: 'ECONNREFUSED',
  message: 'connect ECONNREFUSED',
};
const GARBAGE: ExchangeOutcome = { kind: 'malformed', why: 'reply cannot be decoded: x' };

/**
 * A scripted DNS: `rules` maps `fqdn@server` (or `fqdn`, for every server) to the outcome; the
 * rest is NXDOMAIN. Records what was asked, in order.
 */
function scripted(rules: Record<string, ExchangeOutcome>): { exchanger: Exchanger; asked: string[] } {
  const asked: string[] = [];
  const exchanger: Exchanger = (req: ExchangeRequest) => {
    const key = `${req.question.name}@${req.server}`;
    asked.push(key);
    const outcome = rules[key] ?? rules[req.question.name] ?? NXDOMAIN;
    return Promise.resolve({ transport: 'udp', outcome, latencyMs: 1 });
  };
  return { exchanger, asked };
}

describe('lookup', () => {
  it('walks the search list until a candidate answers', async () => {
    const dns = scripted({ [FQDN]: answer() });
    const r = await lookup('kubernetes.default', OPTS, dns.exchanger);
    expect(r).toMatchObject({ result: 'success', addresses: ['10.96.0.1'], fqdn: FQDN, rcode: 'NOERROR' });
    expect(r.message).toBe(`kubernetes.default resolves (${FQDN})`);
    expect(dns.asked).toEqual([`${FIRST}@10.96.0.10`, `${FQDN}@10.96.0.10`]);
  });

  it('reports NXDOMAIN with every candidate tried', async () => {
    const dns = scripted({});
    const r = await lookup('kubernetes.default', OPTS, dns.exchanger);
    expect(r.result).toBe('nxdomain');
    expect(r.message).toBe(
      `kubernetes.default did not resolve: NXDOMAIN for ${FIRST}, ${FQDN}, kubernetes.default.cluster.local, kubernetes.default`,
    );
    expect(dns.asked).toHaveLength(4); // NXDOMAIN is final for a name: no other server is asked
  });

  it('reports NODATA when a candidate exists without the record type', async () => {
    const r = await lookup('kubernetes.default', OPTS, scripted({ [FQDN]: NODATA }).exchanger);
    expect(r.result).toBe('nodata');
    expect(r.message).toMatch(/^kubernetes\.default did not resolve: no A record for /);
  });

  it('asks the next server after SERVFAIL and REFUSED', async () => {
    const dns = scripted({ [`${FQDN}@10.96.0.10`]: REFUSED, [`${FQDN}@10.96.0.11`]: answer() });
    const r = await lookup('kubernetes.default', OPTS, dns.exchanger);
    expect(r.result).toBe('success');
    expect(dns.asked.slice(1)).toEqual([`${FQDN}@10.96.0.10`, `${FQDN}@10.96.0.11`]);
  });

  it('goes on with the next candidate when every server fails one', async () => {
    const dns = scripted({ [FIRST]: SERVFAIL, [FQDN]: answer() });
    const r = await lookup('kubernetes.default', OPTS, dns.exchanger);
    expect(r.result).toBe('success');
    // attempts (2) × servers (2) for the first candidate, then the second one.
    expect(dns.asked).toEqual([
      `${FIRST}@10.96.0.10`,
      `${FIRST}@10.96.0.11`,
      `${FIRST}@10.96.0.10`,
      `${FIRST}@10.96.0.11`,
      `${FQDN}@10.96.0.10`,
    ]);
  });

  it('reports servfail when server failures were all it got', async () => {
    const r = await lookup('kubernetes.default', OPTS, scripted({ [FIRST]: SERVFAIL }).exchanger);
    expect(r.result).toBe('servfail');
    expect(r.message).toMatch(
      /^kubernetes\.default did not resolve: the name servers failed \(SERVFAIL\) for /,
    );
  });

  it('moves to the next server after a timeout and keeps the answer', async () => {
    const dns = scripted({ [`${FIRST}@10.96.0.10`]: TIMEOUT, [`${FIRST}@10.96.0.11`]: answer('10.0.0.7') });
    const r = await lookup('kubernetes.default', OPTS, dns.exchanger);
    expect(r).toMatchObject({ result: 'success', addresses: ['10.0.0.7'], fqdn: FIRST });
  });

  it('stops the search when no server answers a candidate', async () => {
    const dns = scripted({ [FIRST]: TIMEOUT, [FQDN]: answer() });
    const r = await lookup('kubernetes.default', OPTS, dns.exchanger);
    expect(r.result).toBe('timeout');
    expect(r.message).toBe(
      `kubernetes.default did not resolve: no answer from 10.96.0.11:53 within 5s for ${FIRST}`,
    );
    expect(dns.asked).toHaveLength(4);
    expect(r.attempts.every((a) => a.fqdn === FIRST)).toBe(true);
  });

  it('reports a refused connection as a network error', async () => {
    const r = await lookup('kubernetes.default', OPTS, scripted({ [FIRST]: REFUSED_CONN }).exchanger);
    expect(r.result).toBe('network_error');
    expect(r.message).toBe(
      `kubernetes.default did not resolve: 10.96.0.11:53 over udp: connection refused for ${FIRST}`,
    );
  });

  it('reports an untrustworthy reply as a bad answer', async () => {
    const r = await lookup('kubernetes.default', OPTS, scripted({ [FIRST]: GARBAGE }).exchanger);
    expect(r.result).toBe('bad_answer');
    expect(r.message).toBe(
      'kubernetes.default did not resolve: bad answer from 10.96.0.11:53 over udp: reply cannot be decoded: x',
    );
  });

  it('the last failure decides the kind when servers fail differently', async () => {
    const dns = scripted({ [`${FIRST}@10.96.0.10`]: GARBAGE, [`${FIRST}@10.96.0.11`]: TIMEOUT });
    expect((await lookup('kubernetes.default', OPTS, dns.exchanger)).result).toBe('timeout');
  });

  it('with rotate starts at the server the caller names', async () => {
    const dns = scripted({ [FQDN]: answer() });
    await lookup(
      'kubernetes.default',
      { ...OPTS, conf: { ...POD, rotate: true }, rotation: 1 },
      dns.exchanger,
    );
    expect(dns.asked[0]).toBe(`${FIRST}@10.96.0.11`);
  });

  it('ignores the rotation without options rotate', async () => {
    const dns = scripted({ [FQDN]: answer() });
    await lookup('kubernetes.default', { ...OPTS, rotation: 1 }, dns.exchanger);
    expect(dns.asked[0]).toBe(`${FIRST}@10.96.0.10`);
  });

  it('asks an absolute name only as written', async () => {
    const dns = scripted({ [FQDN]: answer() });
    await lookup(`${FQDN}.`, OPTS, dns.exchanger);
    expect(dns.asked).toEqual([`${FQDN}@10.96.0.10`]);
  });

  it('passes port, type, timeout, edns0 and use-vc through', async () => {
    const seen: ExchangeRequest[] = [];
    const exchanger: Exchanger = (req) => {
      seen.push(req);
      return Promise.resolve({ transport: 'tcp', outcome: answer('::1'), latencyMs: 1 });
    };
    const conf = { ...POD, timeoutMs: 1_500, edns0: true, useTcp: true };
    const r = await lookup('kubernetes.default', { conf, port: 5353, type: 'AAAA' }, exchanger);
    expect(seen[0]).toMatchObject({
      port: 5353,
      timeoutMs: 1_500,
      edns0: true,
      tcpOnly: true,
      question: { type: 'AAAA' },
    });
    expect(r.attempts[0]?.transport).toBe('tcp');
  });

  it('asks nothing once aborted', async () => {
    const dns = scripted({});
    const r = await lookup('kubernetes.default', { ...OPTS, signal: AbortSignal.abort() }, dns.exchanger);
    expect(r.result).toBe('aborted');
    expect(dns.asked).toEqual([]);
  });

  it('reports an abort during a query as aborted', async () => {
    const aborted: ExchangeOutcome = { kind: 'error', code: 'ABORTED', message: 'lookup aborted' };
    const r = await lookup('kubernetes.default', OPTS, scripted({ [FIRST]: aborted }).exchanger);
    expect(r.result).toBe('aborted');
  });
});
