/**
 * The I/O every probe pod does whatever its code, with Node's own modules only: a DNS query over
 * UDP and an API call (to each API server) every 100 ms, and an HTTP server for its health and metrics endpoints,
 * which here answers `GET /count` with how many rounds completed (the benchmark checks the
 * program did its work).
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

export const env = {
  /** One API server per URL (comma-separated): a leader calls its member's and the control plane's. */
  urls: (process.env['FLOOR_URLS'] ?? '').split(','),
  ca: process.env['FLOOR_CA'] === undefined ? undefined : readFileSync(process.env['FLOOR_CA']),
  http1: process.env['FLOOR_HTTP'] === '1',
  dnsPort: Number(process.env['FLOOR_DNS_PORT']),
  countPort: Number(process.env['FLOOR_COUNT_PORT']),
};

/** A query for `kubernetes.default.svc.cluster.local. IN A`, id 0x4b46, recursion desired. */
function query(): Buffer {
  const labels = 'kubernetes.default.svc.cluster.local'.split('.');
  const name = Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')])),
    Buffer.from([0]),
  ]);
  const header = Buffer.from([0x4b, 0x46, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  return Buffer.concat([header, name, Buffer.from([0, 1, 0, 1])]);
}

/** Runs `call` and a DNS query every 100 ms, counting the rounds where both answered. */
export function runRounds(call: () => Promise<unknown>): void {
  let rounds = 0;
  const socket = createSocket('udp4');
  const message = query();
  let answered: (() => void) | undefined;
  socket.on('message', () => answered?.());
  const dns = (): Promise<void> =>
    new Promise((resolve) => {
      answered = resolve;
      socket.send(message, env.dnsPort, '127.0.0.1');
    });
  setInterval(() => {
    void Promise.all([dns(), call()]).then(
      () => rounds++,
      (err: unknown) => process.stderr.write(`round failed: ${String(err)}\n`),
    );
  }, 100);
  createServer((_req, res) => res.end(String(rounds))).listen(env.countPort, '127.0.0.1');
}
