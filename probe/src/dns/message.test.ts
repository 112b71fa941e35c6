import dnsPacket, { type Answer, type Packet } from 'dns-packet';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EDNS_PAYLOAD_BYTES, encodeQuery, judgeMessage, rcodeName, type Expected } from './message.ts';

const NAME = 'kubernetes.default.svc.cluster.local';
const ID = 4242;
const UDP: Expected = { id: ID, question: { name: NAME, type: 'A' }, maxBytes: 512, overTcp: false };
const TCP: Expected = { ...UDP, maxBytes: 65_535, overTcp: true };

const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

/** A reply to the expected query, changed by `over`. */
function reply(over: Partial<Packet> & { rcode?: number } = {}): Buffer {
  const { rcode = 0, flags = 0, ...rest } = over;
  return dnsPacket.encode({
    type: 'response',
    id: ID,
    flags: flags | dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | rcode,
    questions: [{ type: 'A', class: 'IN', name: NAME }],
    answers: [{ type: 'A', class: 'IN', name: NAME, ttl: 5, data: '10.96.0.1' }],
    ...rest,
  });
}

const a = (name: string, data: string): Answer => ({ type: 'A', class: 'IN', name, ttl: 5, data });

describe('encodeQuery', () => {
  it('asks one IN question with recursion desired', () => {
    const q = dnsPacket.decode(encodeQuery(7, { name: NAME, type: 'AAAA' }, false));
    expect(q).toMatchObject({
      id: 7,
      flag_rd: true,
      flag_qr: false,
      questions: [{ name: NAME, type: 'AAAA', class: 'IN' }],
    });
    expect(q.additionals).toEqual([]);
  });

  it('advertises a 1232-byte payload with edns0', () => {
    const q = dnsPacket.decode(encodeQuery(7, { name: NAME, type: 'A' }, true));
    expect(q.additionals).toMatchObject([{ type: 'OPT', udpPayloadSize: EDNS_PAYLOAD_BYTES }]);
  });
});

describe('judgeMessage', () => {
  const bigIps = Array.from({ length: 60 }, (_, i) => `10.0.0.${i}`);
  const big = bigIps.map((ip) => a(NAME, ip));
  it.each<[string, Buffer, Expected, ReturnType<typeof judgeMessage>]>([
    [
      'an answer gives its addresses',
      reply(),
      UDP,
      { kind: 'reply', rcode: 'NOERROR', addresses: ['10.96.0.1'] },
    ],
    [
      'the name matches case-insensitively',
      reply({
        questions: [{ type: 'A', name: NAME.toUpperCase() }],
        answers: [a(NAME.toUpperCase(), '10.96.0.1')],
      }),
      UDP,
      { kind: 'reply', rcode: 'NOERROR', addresses: ['10.96.0.1'] },
    ],
    [
      'follows a CNAME chain',
      reply({
        answers: [
          { type: 'CNAME', name: NAME, data: 'x.cluster.local' },
          { type: 'CNAME', name: 'x.cluster.local', data: 'y.cluster.local' },
          a('y.cluster.local', '10.0.0.9'),
        ],
      }),
      UDP,
      { kind: 'reply', rcode: 'NOERROR', addresses: ['10.0.0.9'] },
    ],
    [
      'ignores records for names outside the chain (NODATA)',
      reply({ answers: [a('evil.example', '6.6.6.6')] }),
      UDP,
      { kind: 'reply', rcode: 'NOERROR', addresses: [] },
    ],
    [
      'an empty answer is NODATA',
      reply({ answers: [] }),
      UDP,
      { kind: 'reply', rcode: 'NOERROR', addresses: [] },
    ],
    [
      'ignores records of another type',
      reply({ answers: [{ type: 'AAAA', name: NAME, data: '::1' }] }),
      UDP,
      { kind: 'reply', rcode: 'NOERROR', addresses: [] },
    ],
    [
      'NXDOMAIN carries no addresses',
      reply({ rcode: RCODE.NXDOMAIN, answers: [] }),
      UDP,
      { kind: 'reply', rcode: 'NXDOMAIN', addresses: [] },
    ],
    [
      'SERVFAIL ignores any records',
      reply({ rcode: RCODE.SERVFAIL }),
      UDP,
      { kind: 'reply', rcode: 'SERVFAIL', addresses: [] },
    ],
    [
      'an error reply may omit the question',
      reply({ rcode: RCODE.FORMERR, questions: [], answers: [] }),
      UDP,
      { kind: 'reply', rcode: 'FORMERR', addresses: [] },
    ],
    [
      'a NOERROR reply must carry the question',
      reply({ questions: [] }),
      UDP,
      { kind: 'ignore', why: 'reply is for another question' },
    ],
    [
      'ignores another id',
      reply({ id: ID + 1 }),
      UDP,
      { kind: 'ignore', why: 'message id does not match the query' },
    ],
    [
      'ignores a query echoed back',
      dnsPacket.encode({ type: 'query', id: ID, questions: [{ type: 'A', name: NAME }] }),
      UDP,
      { kind: 'ignore', why: 'message is a query, not a reply' },
    ],
    [
      'ignores a reply for another name',
      reply({ questions: [{ type: 'A', name: 'other.example' }] }),
      UDP,
      { kind: 'ignore', why: 'reply is for another question' },
    ],
    [
      'ignores a reply for another type',
      reply({ questions: [{ type: 'AAAA', name: NAME }] }),
      UDP,
      { kind: 'ignore', why: 'reply is for another question' },
    ],
    [
      'ignores a reply with two questions',
      reply({
        questions: [
          { type: 'A', name: NAME },
          { type: 'A', name: NAME },
        ],
      }),
      UDP,
      { kind: 'ignore', why: 'reply is for another question' },
    ],
    [
      'TC over UDP asks for TCP',
      reply({ flags: dnsPacket.TRUNCATED_RESPONSE, answers: [] }),
      UDP,
      { kind: 'truncated' },
    ],
    [
      'TC over TCP is judged as it is',
      reply({ flags: dnsPacket.TRUNCATED_RESPONSE }),
      TCP,
      { kind: 'reply', rcode: 'NOERROR', addresses: ['10.96.0.1'] },
    ],
    [
      'a header-only fragment is malformed',
      Buffer.alloc(11),
      UDP,
      { kind: 'malformed', why: '11-byte message is shorter than a DNS header' },
    ],
    [
      'an oversized UDP reply is malformed',
      reply({ answers: big }),
      UDP,
      { kind: 'malformed', why: `${reply({ answers: big }).length}-byte reply exceeds the 512-byte limit` },
    ],
    [
      'a large reply is fine over TCP',
      reply({ answers: big }),
      TCP,
      { kind: 'reply', rcode: 'NOERROR', addresses: bigIps },
    ],
    [
      'another opcode is malformed',
      withFlags(reply(), (f) => f | (2 << 11)),
      UDP,
      { kind: 'malformed', why: 'reply has an unexpected opcode' },
    ],
    [
      'an unknown rcode is named by number',
      reply({ rcode: 12, answers: [] }),
      UDP,
      { kind: 'reply', rcode: 'RCODE12', addresses: [] },
    ],
  ])('%s', (_name, buf, expected, verdict) => {
    expect(judgeMessage(buf, expected)).toEqual(verdict);
  });

  it('a reply cut short is malformed', () => {
    const full = reply();
    const verdict = judgeMessage(full.subarray(0, full.length - 3), UDP);
    expect(verdict.kind).toBe('malformed');
  });

  it('an A record of the wrong length is not an address', () => {
    const full = reply();
    // The RDLENGTH of the only answer is the 2 bytes before its 4 data bytes; make it 2.
    const cut = Buffer.concat([
      full.subarray(0, full.length - 6),
      Buffer.from([0, 2]),
      full.subarray(full.length - 4, full.length - 2),
    ]);
    const verdict = judgeMessage(cut, UDP);
    expect(verdict.kind === 'reply' ? verdict.addresses : verdict.kind).not.toContain('10.96.0.1');
  });

  it('never throws, whatever the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.boolean(), (bytes, withId) => {
        const buf = Buffer.from(bytes);
        if (withId && buf.length >= 2) buf.writeUInt16BE(ID, 0);
        const v = judgeMessage(buf, UDP);
        expect(['ignore', 'malformed', 'truncated', 'reply']).toContain(v.kind);
      }),
      { numRuns: 2_000 },
    );
  });

  it('never throws on a valid reply with bytes flipped or cut', () => {
    const base = reply({
      answers: [{ type: 'CNAME', name: NAME, data: 'x.cluster.local' }, a('x.cluster.local', '10.0.0.9')],
    });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
        fc.nat(base.length),
        (flips, cut) => {
          const buf = Buffer.from(base);
          for (const [at, value] of flips) if (at >= 2) buf[at] = value;
          const v = judgeMessage(buf.subarray(0, Math.max(cut, 12)), UDP);
          expect(['ignore', 'malformed', 'truncated', 'reply']).toContain(v.kind);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe('rcodeName', () => {
  it.each([
    [0, 'NOERROR'],
    [2, 'SERVFAIL'],
    [3, 'NXDOMAIN'],
    [5, 'REFUSED'],
    [15, 'RCODE15'],
  ])('%i → %s', (code, name) => {
    expect(rcodeName(code)).toBe(name);
  });
});

function withFlags(buf: Buffer, change: (flags: number) => number): Buffer {
  const out = Buffer.from(buf);
  out.writeUInt16BE(change(out.readUInt16BE(2)) & 0xffff, 2);
  return out;
}
