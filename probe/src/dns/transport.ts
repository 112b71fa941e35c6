import { randomInt } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, isIP, type Socket as TcpSocket } from 'node:net';
import {
  EDNS_PAYLOAD_BYTES,
  TCP_MESSAGE_MAX_BYTES,
  UDP_PAYLOAD_BYTES,
  encodeQuery,
  judgeMessage,
  type Expected,
  type Question,
} from './message.ts';

/** How one query to one server ended. */
export type ExchangeOutcome =
  | { readonly kind: 'reply'; readonly rcode: string; readonly addresses: readonly string[] }
  /** No acceptable reply within the per-try timeout. */
  | { readonly kind: 'timeout' }
  /** The socket failed: `code` is the system error code (`ECONNREFUSED`) or `ABORTED`. */
  | { readonly kind: 'error'; readonly code: string; readonly message: string }
  /** A reply arrived but could not be trusted (garbage, cut off, oversized). */
  | { readonly kind: 'malformed'; readonly why: string };

export type Transport = 'udp' | 'tcp';

/** One query to one server, as reported per attempt. */
export interface Exchange {
  /** Over which transport the outcome was reached (tcp after a truncated UDP reply). */
  readonly transport: Transport;
  readonly outcome: ExchangeOutcome;
  /** From sending the first query to the outcome, both transports included. */
  readonly latencyMs: number;
}

export interface ExchangeRequest {
  /** IP literal. */
  readonly server: string;
  readonly port: number;
  readonly question: Question;
  /** Per transport: a truncated UDP reply gives the TCP retry a fresh timeout, as glibc does. */
  readonly timeoutMs: number;
  readonly edns0: boolean;
  /** Skip UDP (`options use-vc`). */
  readonly tcpOnly: boolean;
  readonly signal?: AbortSignal;
}

/** Sends one query and waits for its outcome. */
export type Exchanger = (req: ExchangeRequest) => Promise<Exchange>;

type UdpOutcome = ExchangeOutcome | { readonly kind: 'truncated' };

const ABORTED: ExchangeOutcome = Object.freeze({ kind: 'error', code: 'ABORTED', message: 'lookup aborted' });

/**
 * Asks `req.server` one question over UDP and, when the reply is truncated, again over TCP. One
 * socket per query with its own timer, closed on every path; a random 16-bit id; replies from
 * another address or port, with another id or for another question are ignored. Never rejects.
 */
export async function exchange(req: ExchangeRequest): Promise<Exchange> {
  const startedAtMs = performance.now();
  const elapsed = (): number => performance.now() - startedAtMs;
  if (!req.tcpOnly) {
    const udp = await queryUdp(req, randomInt(0, 65_536));
    if (udp.kind !== 'truncated') return { transport: 'udp', outcome: udp, latencyMs: elapsed() };
  }
  const tcp = await queryTcp(req, randomInt(0, 65_536));
  return { transport: 'tcp', outcome: tcp, latencyMs: elapsed() };
}

/** Calls `settle` once, however many of the racing events (reply, timer, error, abort) fire. */
function settleOnce<T>(
  req: ExchangeRequest,
  resolve: (value: T) => void,
  cleanup: () => void,
  onTimeout: () => T,
): (value: T) => void {
  let settled = false;
  const settle = (value: T): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', onAbort);
    cleanup();
    resolve(value);
  };
  const onAbort = (): void => {
    settle(ABORTED as T);
  };
  const timer = setTimeout(() => {
    settle(onTimeout());
  }, req.timeoutMs);
  if (req.signal?.aborted === true) queueMicrotask(onAbort);
  else req.signal?.addEventListener('abort', onAbort, { once: true });
  return settle;
}

function queryUdp(req: ExchangeRequest, id: number): Promise<UdpOutcome> {
  return new Promise<UdpOutcome>((resolve) => {
    // isIP, not isIPv6: it tries the IPv4 pattern first, so an IPv4 server never runs Node's
    // IPv6 pattern, which V8 compiles to about 160 KiB of machine code once it has run.
    const socket: UdpSocket = createSocket({ type: isIP(req.server) === 6 ? 'udp6' : 'udp4' });
    const settle = settleOnce<UdpOutcome>(
      req,
      resolve,
      () => {
        closeQuietly(socket);
      },
      () => ({ kind: 'timeout' }),
    );
    const expected: Expected = {
      id,
      question: req.question,
      maxBytes: req.edns0 ? EDNS_PAYLOAD_BYTES : UDP_PAYLOAD_BYTES,
      overTcp: false,
    };
    // Kept after settling: a late error on a closing socket must not become an uncaught exception.
    socket.on('error', (err) => {
      settle(errorOutcome(err));
    });
    socket.on('message', (msg, from) => {
      if (!isPeer(socket, from)) return;
      const verdict = judgeMessage(msg, expected);
      if (verdict.kind !== 'ignore') settle(verdict);
    });
    // A connected socket receives only from the server, and an ICMP port unreachable becomes
    // ECONNREFUSED at once instead of a timeout.
    socket.connect(req.port, req.server, () => {
      socket.send(encodeQuery(id, req.question, req.edns0), (err) => {
        if (err) settle(errorOutcome(err));
      });
    });
  });
}

/** The datagram came from the address and port the socket is connected to. */
function isPeer(socket: UdpSocket, from: { readonly address: string; readonly port: number }): boolean {
  try {
    const peer = socket.remoteAddress();
    return peer.address === from.address && peer.port === from.port;
  } catch {
    return false; // not connected (yet, or any more)
  }
}

function queryTcp(req: ExchangeRequest, id: number): Promise<ExchangeOutcome> {
  return new Promise<ExchangeOutcome>((resolve) => {
    const socket: TcpSocket = connect({ host: req.server, port: req.port, noDelay: true });
    const settle = settleOnce<ExchangeOutcome>(
      req,
      resolve,
      () => socket.destroy(),
      () => ({ kind: 'timeout' }),
    );
    const reader = new FramedReader();
    socket.on('error', (err) => {
      settle(errorOutcome(err));
    });
    socket.on('connect', () => {
      const query = encodeQuery(id, req.question, req.edns0);
      const frame = Buffer.alloc(2 + query.length);
      frame.writeUInt16BE(query.length, 0);
      query.copy(frame, 2);
      socket.write(frame);
    });
    socket.on('data', (chunk: Buffer) => {
      const message = reader.push(chunk);
      if (message !== undefined) settle(judgeTcpReply(message, id, req));
    });
    socket.on('close', () => {
      settle({ kind: 'malformed', why: 'connection closed before a complete reply' });
    });
  });
}

function judgeTcpReply(message: Buffer, id: number, req: ExchangeRequest): ExchangeOutcome {
  const verdict = judgeMessage(message, {
    id,
    question: req.question,
    maxBytes: TCP_MESSAGE_MAX_BYTES,
    overTcp: true,
  });
  switch (verdict.kind) {
    case 'reply':
    case 'malformed':
      return verdict;
    case 'ignore':
      // On our own connection there is nothing else to wait for.
      return { kind: 'malformed', why: verdict.why };
    case 'truncated':
      return { kind: 'malformed', why: 'reply over TCP is truncated' };
  }
}

/**
 * Collects one length-prefixed DNS message from a TCP stream without copying on every chunk,
 * so a server dripping one byte at a time costs linear work.
 */
class FramedReader {
  private readonly chunks: Buffer[] = [];
  private received = 0;
  private length: number | undefined;

  /** Adds a chunk; returns the message once complete (bytes after it are ignored). */
  push(chunk: Buffer): Buffer | undefined {
    this.chunks.push(chunk);
    this.received += chunk.length;
    if (this.length === undefined && this.received >= 2) {
      const head = Buffer.concat(this.chunks);
      this.chunks.splice(0, this.chunks.length, head);
      this.length = head.readUInt16BE(0);
    }
    if (this.length === undefined || this.received < 2 + this.length) return undefined;
    return Buffer.concat(this.chunks).subarray(2, 2 + this.length);
  }
}

function errorOutcome(err: Error): ExchangeOutcome {
  const code = (err as NodeJS.ErrnoException).code ?? 'ERROR';
  return { kind: 'error', code, message: err.message };
}

function closeQuietly(socket: UdpSocket): void {
  try {
    socket.close();
  } catch {
    // already closed
  }
}
