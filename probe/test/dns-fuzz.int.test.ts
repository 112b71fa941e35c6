import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { createLogger, createRegistry, systemClock } from '@kf/runtime';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { exchange, type Exchange, type ExchangeOutcome } from '../src/dns/transport.ts';
import type { NodeCondition } from '../src/health/node-condition.ts';
import { createProbeMetrics } from '../src/metrics.ts';
import type { NodeConditionStore } from '../src/node/node-status.ts';
import { NodeProber } from '../src/node/prober.ts';
import {
  ANSWER_TCP,
  ANSWER_UDP,
  framed,
  replyTo,
  startHostileDns,
  type HostileDns,
  type TcpBehaviour,
  type UdpBehaviour,
} from './hostile-dns.ts';

const NAME = 'kubernetes.default.svc.cluster.local';
const TIMEOUT_MS = 300;

const idOf = (q: Buffer): number => q.readUInt16BE(0);
const withId = (bytes: Buffer, id: number): Buffer => {
  const b = Buffer.from(bytes);
  if (b.length >= 2) b.writeUInt16BE(id, 0);
  return b;
};
const truncatedUdp: UdpBehaviour = (q) => [{ bytes: replyTo(q, { truncated: true, answers: [] }) }];
const bigAnswers = Array.from({ length: 60 }, (_, i) => ({
  type: 'A' as const,
  class: 'IN' as const,
  name: NAME,
  ttl: 5,
  data: `10.2.0.${i}`,
}));

/** A reply header (id, QR, one question, 65535 answers) followed by random bytes. */
function garbageReply(id: number): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x8180, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(0xffff, 6);
  return Buffer.concat([header, randomBytes(50)]);
}

/** Every path must end with the socket closed: count this process's sockets. */
function openSockets(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap' || r === 'TCPSocketWrap').length;
}

describe('DNS client against a hostile server', () => {
  let hostile: HostileDns;
  const timers = new Set<NodeJS.Timeout>();
  const ask = (timeoutMs = TIMEOUT_MS): Promise<Exchange> =>
    exchange({
      server: '127.0.0.1',
      port: hostile.port,
      question: { name: NAME, type: 'A' },
      timeoutMs,
      edns0: false,
      tcpOnly: false,
    });
  const drip = (bytes: Buffer, s: Socket, everyMs: number): void => {
    let i = 0;
    const t = setInterval(() => {
      if (s.destroyed || i >= bytes.length) clearInterval(t);
      else s.write(bytes.subarray(i, ++i));
    }, everyMs);
    timers.add(t);
  };

  beforeAll(async () => {
    hostile = await startHostileDns();
  });
  beforeEach(() => {
    hostile.udp = ANSWER_UDP;
    hostile.tcp = ANSWER_TCP;
  });
  afterAll(async () => {
    for (const t of timers) clearInterval(t);
    await hostile.close();
  });

  it.each<[string, UdpBehaviour, TcpBehaviour, { kind: ExchangeOutcome['kind']; transport: 'udp' | 'tcp' }]>([
    ['a good answer is an answer', ANSWER_UDP, ANSWER_TCP, { kind: 'reply', transport: 'udp' }],
    [
      'random bytes with a random id are ignored until the timeout',
      () => [{ bytes: randomBytes(64) }],
      ANSWER_TCP,
      { kind: 'timeout', transport: 'udp' },
    ],
    [
      'garbage after a plausible header is malformed',
      (q) => [{ bytes: garbageReply(idOf(q)) }],
      ANSWER_TCP,
      { kind: 'malformed', transport: 'udp' },
    ],
    [
      'a reply with another id is ignored',
      (q) => [{ bytes: replyTo(q, { id: idOf(q) ^ 1 }) }],
      ANSWER_TCP,
      { kind: 'timeout', transport: 'udp' },
    ],
    [
      'a reply for another name is ignored',
      (q) => [{ bytes: replyTo(q, { name: 'evil.example' }) }],
      ANSWER_TCP,
      { kind: 'timeout', transport: 'udp' },
    ],
    [
      'a 5-byte datagram is malformed',
      (q) => [{ bytes: withId(Buffer.alloc(5), idOf(q)) }],
      ANSWER_TCP,
      { kind: 'malformed', transport: 'udp' },
    ],
    [
      'a reply cut in its last record is malformed',
      (q) => [{ bytes: replyTo(q).subarray(0, replyTo(q).length - 2) }],
      ANSWER_TCP,
      { kind: 'malformed', transport: 'udp' },
    ],
    [
      'an oversized UDP reply is malformed',
      (q) => [{ bytes: replyTo(q, { answers: bigAnswers }) }],
      ANSWER_TCP,
      { kind: 'malformed', transport: 'udp' },
    ],
    ['silence is a timeout', () => [], ANSWER_TCP, { kind: 'timeout', transport: 'udp' }],
    [
      'a reply slower than the timeout is a timeout',
      (q) => [{ bytes: replyTo(q), delayMs: TIMEOUT_MS + 200 }],
      ANSWER_TCP,
      { kind: 'timeout', transport: 'udp' },
    ],
    [
      'a flood of wrong ids does not hide the real answer',
      (q) => [
        ...Array.from({ length: 30 }, (_, i) => ({ bytes: replyTo(q, { id: (idOf(q) + i + 1) & 0xffff }) })),
        { bytes: replyTo(q) },
      ],
      ANSWER_TCP,
      { kind: 'reply', transport: 'udp' },
    ],
    [
      'SERVFAIL is a reply',
      (q) => [{ bytes: replyTo(q, { rcode: 2, answers: [] }) }],
      ANSWER_TCP,
      { kind: 'reply', transport: 'udp' },
    ],
    ['truncated, then a good TCP answer', truncatedUdp, ANSWER_TCP, { kind: 'reply', transport: 'tcp' }],
    [
      'truncated, then TCP garbage',
      truncatedUdp,
      (_q, s) => s.end(framed(randomBytes(40))),
      { kind: 'malformed', transport: 'tcp' },
    ],
    [
      'truncated, then TCP garbage with the right id',
      truncatedUdp,
      (q, s) => s.end(framed(withId(randomBytes(40), idOf(q)))),
      { kind: 'malformed', transport: 'tcp' },
    ],
    [
      'truncated, then the TCP connection closes',
      truncatedUdp,
      (_q, s) => s.end(),
      { kind: 'malformed', transport: 'tcp' },
    ],
    [
      'truncated, then a TCP reply shorter than its length prefix',
      truncatedUdp,
      (q, s) => s.end(Buffer.concat([Buffer.from([1, 244]), replyTo(q)])),
      { kind: 'malformed', transport: 'tcp' },
    ],
    ['truncated, then TCP hangs', truncatedUdp, () => undefined, { kind: 'timeout', transport: 'tcp' }],
    [
      'truncated, then TCP drips one byte at a time',
      truncatedUdp,
      (q, s) => {
        drip(framed(replyTo(q)), s, 40);
      },
      { kind: 'timeout', transport: 'tcp' },
    ],
    [
      'truncated, then a TCP reply with another id',
      truncatedUdp,
      (q, s) => s.end(framed(replyTo(q, { id: idOf(q) ^ 1 }))),
      { kind: 'malformed', transport: 'tcp' },
    ],
    [
      'truncated, then 64 KiB of TCP garbage',
      truncatedUdp,
      (q, s) => s.end(framed(withId(randomBytes(65_535), idOf(q)))),
      { kind: 'malformed', transport: 'tcp' },
    ],
    [
      'truncated, then TCP truncated again: the records that came count',
      truncatedUdp,
      (q, s) => s.end(framed(replyTo(q, { truncated: true }))),
      { kind: 'reply', transport: 'tcp' },
    ],
  ])('%s', async (_name, udp, tcp, expected) => {
    hostile.udp = udp;
    hostile.tcp = tcp;
    const startedAt = performance.now();
    const x = await ask();
    expect({ kind: x.outcome.kind, transport: x.transport }).toEqual(expected);
    // Both transports get their own timeout; nothing may take longer.
    expect(performance.now() - startedAt).toBeLessThan(2 * TIMEOUT_MS + 500);
  });

  it('survives random corruption of real replies, closing every socket', async () => {
    const before = openSockets();
    const kinds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
          cut: fc.option(fc.nat(), { nil: undefined }),
          tail: fc.uint8Array({ maxLength: 16 }),
          viaTcp: fc.boolean(),
        }),
        async ({ flips, cut, tail, viaTcp }) => {
          const corrupt = (reply: Buffer): Buffer => {
            const b = Buffer.concat([reply, Buffer.from(tail)]);
            for (const [at, value] of flips) if (at % b.length >= 2) b[at % b.length] = value;
            return cut === undefined ? b : b.subarray(0, Math.max(2, cut % (b.length + 1)));
          };
          hostile.udp = viaTcp ? truncatedUdp : (q) => [{ bytes: corrupt(replyTo(q)) }];
          hostile.tcp = (q, s) => s.end(framed(corrupt(replyTo(q))));
          const x = await ask(100);
          kinds.add(x.outcome.kind);
          expect(['reply', 'timeout', 'malformed', 'error']).toContain(x.outcome.kind);
        },
      ),
      { numRuns: 150 },
    );
    expect(kinds.has('malformed')).toBe(true);
    await expect.poll(openSockets, { timeout: 2_000 }).toBeLessThanOrEqual(before);
  });
});

describe('the probe loop under hostile answers', () => {
  it('keeps probing, reports the failure and never throws', async () => {
    const hostile = await startHostileDns();
    const writes: NodeCondition[] = [];
    const store: NodeConditionStore = {
      load: () => Promise.resolve(undefined),
      write: (c) => {
        writes.push(c);
        return Promise.resolve(c);
      },
    };
    const behaviours: UdpBehaviour[] = [
      () => [{ bytes: randomBytes(30) }],
      (q) => [{ bytes: withId(randomBytes(80), idOf(q)) }],
      (q) => [{ bytes: replyTo(q, { answers: bigAnswers }) }],
      (q) => [{ bytes: replyTo(q).subarray(0, 20) }],
      truncatedUdp,
    ];
    hostile.tcp = (q, s) => s.end(framed(withId(randomBytes(100), idOf(q))));
    const registry = createRegistry({ component: 'probe', version: 'test' });
    const prober = new NodeProber({
      config: {
        names: ['kubernetes.default'],
        recordType: 'A',
        resolvConfPath: '(test)',
        nameserverPort: hostile.port,
        dnsTimeoutMs: 100,
        dnsAttempts: 1,
        periodMs: 30,
        hold: { toFalseMs: 200, toTrueMs: 200 },
        staleThresholdMs: 10_000,
        heartbeatIntervalMs: 2_500,
      },
      store,
      exchanger: exchange,
      clock: systemClock,
      log: createLogger({ component: 'probe', level: 'silent' }),
      metrics: createProbeMetrics(registry),
      readResolvConf: () =>
        Promise.resolve('nameserver 127.0.0.1\nsearch svc.cluster.local cluster.local\noptions ndots:5\n'),
    });
    const stop = new AbortController();
    let round = 0;
    const rotate = setInterval(() => {
      hostile.udp = behaviours[round++ % behaviours.length] ?? ANSWER_UDP;
    }, 50);
    const running = prober.start(stop.signal);
    try {
      await expect.poll(() => writes.at(-1)?.status, { timeout: 10_000 }).toBe('False');
      const received = hostile.received.udp;
      await expect.poll(() => hostile.received.udp, { timeout: 5_000 }).toBeGreaterThan(received + 20);
      expect(() => prober.liveness(1_000)()).not.toThrow();
      // And it recovers once the server behaves again.
      clearInterval(rotate);
      hostile.udp = ANSWER_UDP;
      await expect.poll(() => writes.at(-1)?.status, { timeout: 10_000 }).toBe('True');
    } finally {
      clearInterval(rotate);
      stop.abort();
      await running;
      await hostile.close();
    }
    const metrics = await registry.getSingleMetricAsString('karmada_failover_probe_lookup_duration_seconds');
    expect(metrics).toMatch(/_count\{result="bad_answer"\} [1-9]/);
  });
});
