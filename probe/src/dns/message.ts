import dnsPacket, { type DecodedPacket, type Question as PacketQuestion } from 'dns-packet';

/** Record types a probe asks for: A in IPv4 and dual-stack clusters, AAAA in IPv6-only ones. */
export type RecordType = 'A' | 'AAAA';

export interface Question {
  /** Fully qualified, without the trailing dot. */
  readonly name: string;
  readonly type: RecordType;
}

/** Response codes by their RFC 1035 / 2136 names; anything else is `RCODE<n>`. */
const RCODE_NAMES: readonly string[] = [
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
];

export function rcodeName(code: number): string {
  return RCODE_NAMES[code] ?? `RCODE${code}`;
}

/** UDP payload a reply may have: 512 bytes (RFC 1035), or what EDNS advertised (RFC 6891). */
export const UDP_PAYLOAD_BYTES = 512;
export const EDNS_PAYLOAD_BYTES = 1232;
/** A DNS message over TCP has a 16-bit length prefix. */
export const TCP_MESSAGE_MAX_BYTES = 65_535;
const HEADER_BYTES = 12;
const OPCODE_QUERY = 0;

/** The query message for `q` with `id`, recursion desired; with EDNS when `edns0`. */
export function encodeQuery(id: number, q: Question, edns0: boolean): Buffer {
  return dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: q.type, class: 'IN', name: q.name }],
    ...(edns0
      ? {
          additionals: [
            {
              type: 'OPT',
              name: '.',
              udpPayloadSize: EDNS_PAYLOAD_BYTES,
              extendedRcode: 0,
              ednsVersion: 0,
              flags: 0,
              flag_do: false,
              options: [],
            },
          ],
        }
      : {}),
  });
}

/**
 * What one received message means for the query it may answer:
 * - `ignore`: not a reply to this query (another id or question); keep waiting, as glibc does,
 *   so that a stray or spoofed datagram cannot end the wait;
 * - `malformed`: claims to answer but cannot be trusted (undecodable, cut off, oversized);
 * - `truncated`: the server set TC; ask again over TCP;
 * - `reply`: a well-formed answer with its response code and the addresses it holds for the
 *   question (none: NODATA).
 */
export type Verdict =
  | { readonly kind: 'ignore'; readonly why: string }
  | { readonly kind: 'malformed'; readonly why: string }
  | { readonly kind: 'truncated' }
  | { readonly kind: 'reply'; readonly rcode: string; readonly addresses: readonly string[] };

export interface Expected {
  readonly id: number;
  readonly question: Question;
  /** Largest acceptable message: the advertised UDP payload, or 65535 over TCP. */
  readonly maxBytes: number;
  /** Over TCP the TC bit means nothing more can be had: judge what arrived. */
  readonly overTcp: boolean;
}

/**
 * Judges one received message against the query it should answer. Pure and total: any byte
 * string gives a verdict, never an exception.
 */
export function judgeMessage(buf: Buffer, expected: Expected): Verdict {
  const header = judgeHeader(buf, expected);
  if (header !== undefined) return header;
  let packet: DecodedPacket;
  try {
    packet = dnsPacket.decode(buf);
  } catch (err: unknown) {
    return {
      kind: 'malformed',
      why: `reply cannot be decoded: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  // dns-packet does not check record data against the end of the message: a reply cut inside
  // its last record decodes "successfully" from bytes that are not there.
  if (dnsPacket.decode.bytes > buf.length) return { kind: 'malformed', why: 'reply is cut short' };
  const rcode = buf.readUInt16BE(2) & 0xf;
  const questions = packet.questions ?? [];
  // Servers may leave the question out of an error reply (FORMERR, NOTIMP); glibc accepts that.
  if (!(questions.length === 0 && rcode !== 0) && !asksFor(questions, expected.question)) {
    return { kind: 'ignore', why: 'reply is for another question' };
  }
  return {
    kind: 'reply',
    rcode: rcodeName(rcode),
    addresses: rcode === 0 ? addressesIn(packet, expected.question) : [],
  };
}

/** What the 12-byte header alone decides; undefined when the rest must be read. */
function judgeHeader(buf: Buffer, expected: Expected): Verdict | undefined {
  if (buf.length < HEADER_BYTES)
    return { kind: 'malformed', why: `${buf.length}-byte message is shorter than a DNS header` };
  if (buf.readUInt16BE(0) !== expected.id)
    return { kind: 'ignore', why: 'message id does not match the query' };
  if (buf.length > expected.maxBytes) {
    return { kind: 'malformed', why: `${buf.length}-byte reply exceeds the ${expected.maxBytes}-byte limit` };
  }
  const flags = buf.readUInt16BE(2);
  if ((flags & 0x8000) === 0) return { kind: 'ignore', why: 'message is a query, not a reply' };
  if (((flags >> 11) & 0xf) !== OPCODE_QUERY)
    return { kind: 'malformed', why: 'reply has an unexpected opcode' };
  if ((flags & 0x0200) !== 0 && !expected.overTcp) return { kind: 'truncated' };
  return undefined;
}

function asksFor(questions: readonly PacketQuestion[], q: Question): boolean {
  const only = questions.length === 1 ? questions[0] : undefined;
  return only !== undefined && only.type === q.type && sameName(only.name, q.name);
}

function sameName(a: string, b: string): boolean {
  return a.replace(/\.$/, '').toLowerCase() === b.replace(/\.$/, '').toLowerCase();
}

/**
 * Addresses of the asked type for the asked name or any CNAME target in the chain the answer
 * section spells out. A records whose data is not an address are ignored.
 */
function addressesIn(packet: DecodedPacket, q: Question): string[] {
  const answers = packet.answers ?? [];
  const names = new Set([q.name.toLowerCase()]);
  for (const a of answers) {
    if (a.type === 'CNAME' && names.has(a.name.toLowerCase()))
      names.add(a.data.toLowerCase().replace(/\.$/, ''));
  }
  const out: string[] = [];
  for (const a of answers) {
    if (a.type !== 'A' && a.type !== 'AAAA') continue;
    if (a.type === q.type && names.has(a.name.toLowerCase()) && isAddressOf(q.type, a.data)) out.push(a.data);
  }
  return out;
}

function isAddressOf(type: RecordType, data: string): boolean {
  return type === 'A' ? /^\d{1,3}(\.\d{1,3}){3}$/.test(data) : data.includes(':');
}
