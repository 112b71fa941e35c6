/**
 * A misbehaving DNS server on 127.0.0.1 for tests: UDP and TCP on the same port, answering each
 * query with whatever the test's current behaviour says (garbage, wrong ids, truncation, a
 * dripping or hanging TCP stream...). Everything it opens, `close()` closes.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import dnsPacket, { type Answer } from 'dns-packet';

/** What to do with one UDP query: datagrams to send (each after an optional delay), or nothing. */
export type UdpBehaviour = (
  query: Buffer,
) => readonly { readonly bytes: Buffer; readonly delayMs?: number }[];
/** What to do with one TCP query: write to / end / leave the socket as the test likes. */
export type TcpBehaviour = (query: Buffer, socket: Socket) => void;

export interface HostileDns {
  readonly port: number;
  udp: UdpBehaviour;
  tcp: TcpBehaviour;
  /** Queries received so far, by transport. */
  readonly received: { udp: number; tcp: number };
  close(): Promise<void>;
}

export interface ReplyOptions {
  readonly id?: number;
  readonly rcode?: number;
  readonly truncated?: boolean;
  readonly answers?: readonly Answer[];
  readonly name?: string;
}

/** A well-formed reply to `query`, changed by `o` (default: one A record 10.96.0.1). */
export function replyTo(query: Buffer, o: ReplyOptions = {}): Buffer {
  const q = dnsPacket.decode(query);
  const question = q.questions?.[0] ?? { type: 'A', name: 'x' };
  const name = o.name ?? question.name;
  return dnsPacket.encode({
    type: 'response',
    id: o.id ?? q.id ?? 0,
    flags:
      dnsPacket.RECURSION_DESIRED |
      dnsPacket.RECURSION_AVAILABLE |
      (o.truncated === true ? dnsPacket.TRUNCATED_RESPONSE : 0) |
      (o.rcode ?? 0),
    questions: [{ type: question.type, class: 'IN', name }],
    answers:
      o.answers === undefined
        ? [{ type: 'A', class: 'IN', name, ttl: 5, data: '10.96.0.1' }]
        : [...o.answers],
  });
}

/** `message` with the 2-byte length prefix of DNS over TCP. */
export function framed(message: Buffer): Buffer {
  const out = Buffer.alloc(2 + message.length);
  out.writeUInt16BE(message.length, 0);
  message.copy(out, 2);
  return out;
}

export const ANSWER_UDP: UdpBehaviour = (q) => [{ bytes: replyTo(q) }];
export const ANSWER_TCP: TcpBehaviour = (q, s) => s.end(framed(replyTo(q)));

export async function startHostileDns(): Promise<HostileDns> {
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const tcpServer: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    tcpServer.once('error', reject);
    tcpServer.listen(0, '127.0.0.1', () => {
      resolve();
    });
  });
  const port = (tcpServer.address() as { port: number }).port;
  const udp: UdpSocket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(port, '127.0.0.1', () => {
      resolve();
    });
  });
  const server: HostileDns = {
    port,
    udp: ANSWER_UDP,
    tcp: ANSWER_TCP,
    received: { udp: 0, tcp: 0 },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await Promise.all([
        new Promise<void>((resolve) => {
          tcpServer.close(() => {
            resolve();
          });
        }),
        new Promise<void>((resolve) => {
          udp.close(() => {
            resolve();
          });
        }),
      ]);
    },
  };
  udp.on('message', (msg, from) => {
    server.received.udp++;
    for (const { bytes, delayMs } of safely(() => server.udp(msg), [])) {
      const send = (): void => {
        udp.send(bytes, from.port, from.address, () => undefined);
      };
      if (delayMs === undefined) send();
      else {
        const t = setTimeout(() => {
          timers.delete(t);
          send();
        }, delayMs);
        timers.add(t);
      }
    }
  });
  tcpServer.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
    });
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length < 2 || buf.length < 2 + buf.readUInt16BE(0)) return;
      server.received.tcp++;
      const query = buf.subarray(2, 2 + buf.readUInt16BE(0));
      safely(() => {
        server.tcp(query, socket);
      }, undefined);
    });
  });
  return server;
}

function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}
