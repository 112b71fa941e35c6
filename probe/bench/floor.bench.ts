/**
 * How much of the probe's memory any probe on Node pays before its own code: small programs
 * (`floor/*.ts`), bundled as the probe is and run with its production flags, each adding one
 * thing a probe pod cannot do without.
 *
 *   node probe/bench/floor.bench.ts [--seconds=N]
 *
 * - `idle`: Node itself;
 * - `tls`: + one TLS context;
 * - `http2`: a DNS query over UDP and an API call over TLS every 100 ms, and an HTTP server for
 *   health and metrics, with Node's modules alone (node:dgram, node:http2, node:http);
 * - `undici`: the same, the API calls through undici over HTTP/2 (how the probe reaches
 *   kube-apiserver);
 * - `..., leader`: calling two API servers each round, as the leader does (its member's and the
 *   control plane's);
 * - `undici-http1`: undici over HTTP/1.1 (a server or proxy without HTTP/2), whose parser is
 *   WebAssembly; and the same without `--liftoff-only`, to show what that flag saves.
 * The API server is a local HTTP/2 server with HTTP/1.1 fallback answering a Node-sized JSON
 * object; the DNS server a UDP socket that echoes each query as an answer. Reported per row: RSS
 * (mean of samples every 250 ms over the measured seconds, after 3 s to settle), its anonymous
 * and file-backed parts and the peak, and what is left of the probe's target (`TARGET_RSS_MIB`)
 * for the probe's own code.
 */
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { bundleProcess } from '@kf/runtime/bundle';
import { ensureClusterPki, freePort } from '@kf/testing';
import { PROBE_NODE_FLAGS } from '../src/build/bundle.ts';
import { TARGET_RSS_MIB, meanRssOver, procStatus, type ProcStatus } from './proc-status.ts';

const seconds = Number(
  process.argv.find((a) => a.startsWith('--seconds='))?.slice('--seconds='.length) ?? '10',
);

interface Row {
  readonly name: string;
  readonly program: 'idle' | 'tls' | 'http2' | 'undici';
  readonly nodeFlags: readonly string[];
  readonly http1?: boolean;
  /** API servers called each round: 1 for any pod, 2 for the leader (member and control plane). */
  readonly servers?: 1 | 2;
}

const ROWS: readonly Row[] = [
  { name: 'idle', program: 'idle', nodeFlags: PROBE_NODE_FLAGS },
  { name: 'tls', program: 'tls', nodeFlags: PROBE_NODE_FLAGS },
  { name: 'http2', program: 'http2', nodeFlags: PROBE_NODE_FLAGS },
  { name: 'http2, leader', program: 'http2', nodeFlags: PROBE_NODE_FLAGS, servers: 2 },
  { name: 'undici', program: 'undici', nodeFlags: PROBE_NODE_FLAGS },
  { name: 'undici, leader', program: 'undici', nodeFlags: PROBE_NODE_FLAGS, servers: 2 },
  { name: 'undici-http1', program: 'undici', nodeFlags: PROBE_NODE_FLAGS, http1: true },
  {
    name: 'undici-http1 without --liftoff-only',
    program: 'undici',
    nodeFlags: PROBE_NODE_FLAGS.filter((f) => f !== '--liftoff-only'),
    http1: true,
  },
];

/** A Node as kube-apiserver would send it, trimmed: about 1.5 KB of JSON. */
const NODE_JSON = JSON.stringify({
  kind: 'Node',
  apiVersion: 'v1',
  metadata: {
    name: 'member1-node-0',
    uid: '7b0d8a4e-5a43-4c6e-9f3e-2f1c4a7d9e10',
    resourceVersion: '123456',
    labels: { 'kubernetes.io/hostname': 'member1-node-0', 'kubernetes.io/os': 'linux', type: 'kwok' },
    annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
  },
  spec: { podCIDR: '10.0.1.0/24' },
  status: {
    capacity: { cpu: '32', memory: '256Gi', pods: '110' },
    allocatable: { cpu: '32', memory: '256Gi', pods: '110' },
    conditions: [
      'Ready',
      'MemoryPressure',
      'DiskPressure',
      'PIDPressure',
      'ServiceDomainNameResolutionReady',
    ].map((type) => ({
      type,
      status: type === 'Ready' || type === 'ServiceDomainNameResolutionReady' ? 'True' : 'False',
      lastHeartbeatTime: '2026-01-01T00:00:00Z',
      lastTransitionTime: '2026-01-01T00:00:00Z',
      reason: `${type}Reason`,
      message: `${type} as reported`,
    })),
    nodeInfo: { kubeletVersion: 'v1.34.0', architecture: 'amd64', operatingSystem: 'linux' },
  },
});

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

interface Result {
  readonly row: Row;
  readonly meanRssMiB: number;
  readonly last: ProcStatus;
  readonly rounds: number;
}

const dir = await mkdtemp(join(tmpdir(), 'kf-probe-floor-'));
const pki = await ensureClusterPki(join(dir, 'pki'));
const tlsFiles = { key: await readFile(pki.servingKey), cert: await readFile(pki.servingCert) };
async function startApiServer(): Promise<Http2SecureServer> {
  const server = createSecureServer({ allowHTTP1: true, ...tlsFiles });
  server.on('request', (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(NODE_JSON);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}
const apis = [await startApiServer(), await startApiServer()];
const apiUrls = apis.map(
  (a) => `https://127.0.0.1:${(a.address() as AddressInfo).port}/api/v1/nodes/member1-node-0`,
);
const dns = createSocket('udp4');
dns.on('message', (msg, from) => {
  const answer = Buffer.from(msg);
  answer[2] = (answer[2] ?? 0) | 0x80; // QR: a response
  dns.send(answer, from.port, from.address);
});
dns.bind(0, '127.0.0.1');
await once(dns, 'listening');

async function rounds(port: number): Promise<number> {
  return Number(await (await fetch(`http://127.0.0.1:${port}/count`)).text());
}

async function measure(row: Row, bundle: string): Promise<Result> {
  const countPort = await freePort();
  const child = spawn(process.execPath, [...row.nodeFlags, bundle], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      FLOOR_URLS: apiUrls.slice(0, row.servers ?? 1).join(','),
      FLOOR_CA: pki.caCert,
      FLOOR_HTTP: row.http1 === true ? '1' : '2',
      FLOOR_DNS_PORT: String(dns.address().port),
      FLOOR_COUNT_PORT: String(countPort),
    },
  });
  const pid = child.pid ?? 0;
  const counts = row.program === 'http2' || row.program === 'undici';
  try {
    await sleep(3_000); // start-up settles
    const before = counts ? await rounds(countPort) : 0;
    const meanRssMiB = await meanRssOver(pid, seconds * 1000);
    const last = await procStatus(pid);
    const done = counts ? (await rounds(countPort)) - before : 0;
    if (counts && done < seconds * 5) throw new Error(`${row.name}: only ${done} rounds in ${seconds} s`);
    return { row, meanRssMiB, last, rounds: done };
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
}

try {
  const bundles = new Map<Row['program'], string>();
  for (const program of new Set(ROWS.map((r) => r.program))) {
    const outfile = join(dir, `${program}.mjs`);
    await bundleProcess({
      entry: join(import.meta.dirname, 'floor', `${program}.ts`),
      outfile,
      minifyIdentifiers: true,
    });
    bundles.set(program, outfile);
  }
  const results: Result[] = [];
  for (const row of ROWS) results.push(await measure(row, bundles.get(row.program) ?? ''));

  const num = (v: number, n: number): string => v.toFixed(1).padStart(n);
  const width = Math.max(...ROWS.map((r) => r.name.length));
  print(`what a probe on Node pays before its own code (node ${PROBE_NODE_FLAGS.join(' ')}), ${seconds}s:`);
  print(
    `  ${'row'.padEnd(width)}  RSS MiB  peak MiB  anon MiB  file MiB  rounds  left of ${TARGET_RSS_MIB} MiB`,
  );
  for (const r of results) {
    print(
      `  ${r.row.name.padEnd(width)}  ${num(r.meanRssMiB, 7)}  ${num(r.last.hwmMiB, 8)}  ${num(r.last.anonMiB, 8)}  ${num(r.last.fileMiB, 8)}  ${String(r.rounds).padStart(6)}  ${num(TARGET_RSS_MIB - r.meanRssMiB, 15)}`,
    );
  }
  for (const r of results) {
    print(
      `floor=${r.row.name.replaceAll(' ', '_')} rss_mib=${r.meanRssMiB.toFixed(1)} peak_mib=${r.last.hwmMiB.toFixed(1)} left_mib=${(TARGET_RSS_MIB - r.meanRssMiB).toFixed(1)}`,
    );
  }
} finally {
  for (const a of apis) a.close();
  dns.close();
  await rm(dir, { recursive: true, force: true });
}
