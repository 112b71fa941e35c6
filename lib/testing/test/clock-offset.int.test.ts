/**
 * A Node process run with a clock offset (what a skewed member agent gets) against a loopback HTTPS
 * server holding a certificate of the harness's PKI: the process reads the offset time of day,
 * keeps real-length timers, and still accepts the certificate however far behind or ahead it is
 * within the offsets the harness accepts.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockOffsetEnvFor, parseClockOffset } from '../src/clock-offset.ts';
import { ensureClusterPki, type ClusterPki } from '../src/pki.ts';
import { newRunDir, removeRunDir } from '../src/run-dir.ts';

const execFileAsync = promisify(execFile);

/**
 * Prints the child's wall clock, how long a 1 s timer took on the monotonic and on the wall clock,
 * and the status of a GET to the server trusting only the PKI's CA (or the TLS error's code).
 */
const CHILD = `
const https = require('node:https');
const [url, ca] = process.argv.slice(1);
const nowMs = Date.now();
const t0 = performance.now();
setTimeout(() => {
  const timer = { monotonicMs: performance.now() - t0, wallMs: Date.now() - nowMs };
  https.get(url, { ca }, (res) => {
    res.resume();
    console.log(JSON.stringify({ nowMs, ...timer, status: res.statusCode }));
  }).on('error', (err) => console.log(JSON.stringify({ nowMs, ...timer, error: err.code })));
}, 1000);
`;

interface ChildReport {
  readonly nowMs: number;
  readonly monotonicMs: number;
  readonly wallMs: number;
  readonly status?: number;
  readonly error?: string;
}

let dir: string;
let pki: ClusterPki;
let server: Server;
let url: string;

beforeAll(async () => {
  dir = await newRunDir('clock-offset');
  pki = await ensureClusterPki(join(dir, 'pki'));
  server = createServer(
    { cert: await readFile(pki.servingCert), key: await readFile(pki.servingKey) },
    (_req, res) => res.end('ok'),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  url = `https://127.0.0.1:${String(typeof address === 'object' && address !== null ? address.port : 0)}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await removeRunDir(dir);
});

async function runWithOffset(offset: string): Promise<{ report: ChildReport; startedAtMs: number }> {
  const ca = await readFile(pki.caCert, 'utf8');
  const startedAtMs = Date.now();
  const { stdout } = await execFileAsync(process.execPath, ['-e', CHILD, url, ca], {
    env: { ...process.env, ...(await clockOffsetEnvFor(offset)) },
    timeout: 30_000,
  });
  return { report: JSON.parse(stdout) as ChildReport, startedAtMs };
}

describe('a process run with a clock offset', () => {
  it.each(['-60s', '+60s', '+10m', '-1h', '+0s'])(
    '%s: reads the offset time, keeps real-length timers, accepts the harness certificates',
    async (offset) => {
      const { report, startedAtMs } = await runWithOffset(offset);
      const seenOffsetMs = report.nowMs - startedAtMs;
      // The child read its clock within its start-up time (under 5 s on a busy machine) of ours.
      expect(seenOffsetMs).toBeGreaterThanOrEqual(parseClockOffset(offset));
      expect(seenOffsetMs).toBeLessThan(parseClockOffset(offset) + 5_000);
      // A 1 s timer lasts 1 s on both clocks: only the time of day moved.
      expect(report.monotonicMs).toBeGreaterThanOrEqual(999);
      expect(report.monotonicMs).toBeLessThan(3_000);
      expect(Math.abs(report.wallMs - report.monotonicMs)).toBeLessThan(100);
      expect(report.error).toBeUndefined();
      expect(report.status).toBe(200);
    },
  );
});
