/**
 * Cost of the DNS probe.
 *
 *   node probe/bench/lookup.bench.ts [--federation] [--seconds=N] [--runs=bundle,source]
 *                                    [--node-options=...] [--run-dir=.run/federation-XXXX]
 *
 * 1. In process: CPU time and wall time per lookup against a local dnsmasq, for a pod-style
 *    lookup (`kubernetes.default` through the search list: NXDOMAIN, then the answer) and a
 *    single-query one (an absolute name).
 * 2. The probe process itself, probing every 100 ms, run several ways one after the other:
 *    `bundle` (the production command: `node <PROBE_NODE_FLAGS> dist/probe.mjs`, built
 *    first), `bundle-no-flags` and `source` (`node src/main.ts`). Reported per run: RSS (mean of
 *    samples every 250 ms over the measured seconds, with its anonymous and file-backed parts at
 *    the end), peak RSS (the kernel's high-water mark, start-up included), and CPU per lookup of
 *    the whole process, read from /proc and its /metrics.
 *    With `--federation` it runs against a local federation (one member, one node; or the one of
 *    `--run-dir`, kept running elsewhere) and is measured only once it leads (Lease, Node and
 *    Cluster watches) and has written its Node condition; without, its API servers do not answer
 *    and it keeps retrying.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Dnsmasq, freePort, startFederation, type LocalFederation } from '@kf/testing';
import { PROBE_BUNDLE, PROBE_NODE_FLAGS, bundleProbe } from '../src/build/bundle.ts';
import { parseResolvConf } from '../src/dns/resolv-conf.ts';
import { lookup } from '../src/dns/resolver.ts';
import { exchange } from '../src/dns/transport.ts';
import { TARGET_RSS_MIB, meanRssOver, procStatus, type ProcStatus } from './proc-status.ts';

const PROBE_DIR = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_MAIN = join(PROBE_DIR, 'src', 'main.ts');

const args = process.argv.slice(2);
const option = (name: string): string | undefined =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const withFederation = args.includes('--federation') || option('run-dir') !== undefined;
const seconds = Number(option('seconds') ?? '20');
/** Extra V8/Node flags for every run, e.g. `--node-options=--max-semi-space-size=1`. */
const nodeOptions = (option('node-options') ?? '').split(' ').filter((o) => o !== '');

/** One way of running the probe. */
interface Run {
  readonly name: string;
  readonly entry: string;
  readonly nodeFlags: readonly string[];
}

const RUNS: readonly Run[] = [
  { name: 'bundle', entry: PROBE_BUNDLE, nodeFlags: PROBE_NODE_FLAGS },
  { name: 'bundle-no-flags', entry: PROBE_BUNDLE, nodeFlags: [] },
  { name: 'source', entry: SOURCE_MAIN, nodeFlags: [] },
];

const POD_RESOLV_CONF =
  'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 127.0.0.1\noptions ndots:5\n';
const NO_API_KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{ name: none, cluster: { server: "https://127.0.0.1:1", insecure-skip-tls-verify: true } }]
users: [{ name: none, user: { token: bench } }]
contexts: [{ name: none, context: { cluster: none, user: none } }]
current-context: none
`;

/** Results go to stdout, one line each. */
function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function inProcess(dns: Dnsmasq, name: string, n: number): Promise<{ cpuUs: number; wallUs: number }> {
  const conf = parseResolvConf(POD_RESOLV_CONF);
  const once = async (): Promise<void> => {
    const r = await lookup(name, { conf, port: dns.port, type: 'A' }, exchange);
    if (r.result !== 'success') throw new Error(`lookup failed: ${r.message}`);
  };
  for (let i = 0; i < 200; i++) await once(); // warm up the JIT
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < n; i++) await once();
  const used = process.cpuUsage(cpu);
  return { cpuUs: (used.user + used.system) / n, wallUs: ((performance.now() - start) * 1000) / n };
}

async function metricsOf(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

function lookupsIn(metrics: string): number {
  return [
    ...metrics.matchAll(/^karmada_failover_probe_lookup_duration_seconds_count\{[^}]*\} (\d+)/gm),
  ].reduce((sum, m) => sum + Number(m[1]), 0);
}

async function until(what: string, child: ChildProcess, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`probe exited before ${what}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`probe not ${what} within 60 s`);
    await sleep(200);
  }
}

interface Result {
  readonly run: Run;
  readonly lookups: number;
  readonly cpuUs: number;
  readonly meanRssMiB: number;
  readonly last: ProcStatus;
}

interface Setup {
  readonly dns: Dnsmasq;
  readonly resolvConf: string;
  readonly memberKubeconfig: string;
  readonly karmadaKubeconfig: string;
  readonly nodeName: string;
}

async function measure(run: Run, s: Setup): Promise<Result> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...run.nodeFlags,
      ...nodeOptions,
      run.entry,
      `--host-name=${s.nodeName}`,
      '--cluster-name=member1',
      `--kubeconfig=${s.memberKubeconfig}`,
      `--karmada-kubeconfig=${s.karmadaKubeconfig}`,
      `--resolv-conf=${s.resolvConf}`,
      `--nameserver-port=${s.dns.port}`,
      '--coredns-detect-period=100ms',
      `--metrics-bind-address=127.0.0.1:${port}`,
      `--health-probe-bind-address=127.0.0.1:${port}`,
      '--log-level=error',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const pid = child.pid ?? 0;
  try {
    if (withFederation) {
      // Measured as it runs in a cluster: leading, watching, its Node condition written.
      await until('ready', child, async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok);
      await until('leading', child, async () =>
        /^karmada_failover_leader_election_is_leader 1$/m.test(await metricsOf(port)),
      );
    } else {
      await until('serving', child, async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status > 0);
    }
    await sleep(3_000); // start-up settles
    const first = { status: await procStatus(pid), lookups: lookupsIn(await metricsOf(port)) };
    const meanRssMiB = await meanRssOver(pid, seconds * 1000);
    const last = { status: await procStatus(pid), lookups: lookupsIn(await metricsOf(port)) };
    const lookups = last.lookups - first.lookups;
    return {
      run,
      lookups,
      cpuUs: ((last.status.cpuSeconds - first.status.cpuSeconds) * 1e6) / lookups,
      meanRssMiB,
      last: last.status,
    };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

function commandOf(run: Run): string {
  return ['node', ...run.nodeFlags, ...nodeOptions, relative(PROBE_DIR, run.entry)].join(' ');
}

function report(results: readonly Result[]): void {
  const how = withFederation ? 'leading, against a local federation' : 'API servers unreachable';
  print(`probe process (${how}), ${seconds}s at a 100ms period:`);
  const width = Math.max(...results.map((r) => commandOf(r.run).length));
  const num = (v: number, n: number): string => v.toFixed(1).padStart(n);
  print(
    `  ${'run'.padEnd(16)} ${'command'.padEnd(width)}  RSS MiB  peak MiB  anon MiB  file MiB  lookups  CPU µs/lookup`,
  );
  for (const r of results) {
    print(
      `  ${r.run.name.padEnd(16)} ${commandOf(r.run).padEnd(width)}  ${num(r.meanRssMiB, 7)}  ${num(r.last.hwmMiB, 8)}  ${num(r.last.anonMiB, 8)}  ${num(r.last.fileMiB, 8)}  ${String(r.lookups).padStart(7)}  ${r.cpuUs.toFixed(0).padStart(13)}`,
    );
  }
  for (const r of results) {
    print(
      `run=${r.run.name} rss_mib=${r.meanRssMiB.toFixed(1)} peak_mib=${r.last.hwmMiB.toFixed(1)} target=${TARGET_RSS_MIB} ratio=${(r.meanRssMiB / TARGET_RSS_MIB).toFixed(2)} cpu_us_per_lookup=${r.cpuUs.toFixed(0)}`,
    );
  }
  const production = results.find((r) => r.run.name === 'bundle');
  if (production !== undefined) {
    const met = production.meanRssMiB <= TARGET_RSS_MIB ? 'met' : 'MISSED';
    print(`target (production bundle, steady RSS): <= ${TARGET_RSS_MIB} MiB ${met}`);
  }
}

const wanted = option('runs')?.split(',');
const runs = RUNS.filter((r) => wanted === undefined || wanted.includes(r.name));
const runDir = option('run-dir');
const dir = await mkdtemp(join(tmpdir(), 'kf-probe-bench-'));
const dns = await Dnsmasq.start();
let fed: LocalFederation | undefined;
try {
  for (const [label, name] of [
    ['kubernetes.default via the search list (2 queries)', 'kubernetes.default'],
    ['absolute name (1 query)', 'kubernetes.default.svc.cluster.local.'],
  ] as const) {
    const r = await inProcess(dns, name, 3_000);
    print(`in process, ${label}: CPU ${r.cpuUs.toFixed(0)} µs/lookup, wall ${r.wallUs.toFixed(0)} µs/lookup`);
  }
  if (runs.some((r) => r.entry === PROBE_BUNDLE)) {
    const { bytes } = await bundleProbe();
    print(`built ${relative(PROBE_DIR, PROBE_BUNDLE)} (${(bytes / 1024).toFixed(0)} KiB)`);
  }
  const resolvConf = join(dir, 'resolv.conf');
  const noApi = join(dir, 'no-api.kubeconfig');
  await writeFile(resolvConf, POD_RESOLV_CONF);
  await writeFile(noApi, NO_API_KUBECONFIG);
  if (withFederation && runDir === undefined)
    fed = await startFederation({ members: 1, member: { nodes: 1 } });
  const setup: Setup = {
    dns,
    resolvConf,
    memberKubeconfig:
      runDir === undefined
        ? (fed?.member('member1').kubeconfigPath ?? noApi)
        : join(runDir, 'member1', 'kubeconfig'),
    karmadaKubeconfig:
      runDir === undefined
        ? (fed?.controlPlane.kubeconfigPath ?? noApi)
        : join(runDir, 'karmada', 'kubeconfig'),
    nodeName: 'member1-node-0',
  };
  const results: Result[] = [];
  for (const run of runs) results.push(await measure(run, setup));
  report(results);
} finally {
  await fed?.destroy();
  await dns.destroy();
  await rm(dir, { recursive: true, force: true });
}
