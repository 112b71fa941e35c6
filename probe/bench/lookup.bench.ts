/**
 * Cost of the DNS probe. Run: `node probe/bench/lookup.bench.ts [--federation] [--seconds=N]`.
 *
 * 1. In process: CPU time and wall time per lookup against a local dnsmasq, for a pod-style
 *    lookup (`kubernetes.default` through the search list: NXDOMAIN, then the answer) and a
 *    single-query one (an absolute name).
 * 2. The probe process itself (`src/main.ts`), probing every 100 ms: its resident memory (total,
 *    anonymous, file-backed) and its CPU time per lookup, read from /proc and its /metrics.
 *    Without `--federation` its API servers do not answer (it keeps retrying); with it, it runs
 *    against a local federation and leads, so it also holds the Node and Cluster watches.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startFederation, type LocalFederation } from '@kf/testing';
import { parseResolvConf } from '../src/dns/resolv-conf.ts';
import { lookup } from '../src/dns/resolver.ts';
import { exchange } from '../src/dns/transport.ts';
import { Dnsmasq } from '../test/dnsmasq.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const args = process.argv.slice(2);
const withFederation = args.includes('--federation');
const seconds = Number(/--seconds=(\d+)/.exec(args.join(' '))?.[1] ?? '20');
/** V8/Node flags for the probe process, e.g. `--node-options=--max-semi-space-size=1`. */
const nodeOptions = args.find((a) => a.startsWith('--node-options='))?.slice('--node-options='.length) ?? '';

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

interface ProcStatus {
  readonly rssMiB: number;
  readonly anonMiB: number;
  readonly fileMiB: number;
  readonly hwmMiB: number;
  readonly cpuSeconds: number;
}

async function procStatus(pid: number): Promise<ProcStatus> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string): number =>
    Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 'NaN') / 1024;
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(stat[11]) + Number(stat[12]); // utime + stime, fields 14 and 15
  return {
    rssMiB: kib('VmRSS'),
    anonMiB: kib('RssAnon'),
    fileMiB: kib('RssFile'),
    hwmMiB: kib('VmHWM'),
    cpuSeconds: ticks / 100,
  };
}

async function lookupsOf(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return [...text.matchAll(/^karmada_failover_probe_lookup_duration_seconds_count\{[^}]*\} (\d+)/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
}

async function probeProcess(dns: Dnsmasq, dir: string, fed: LocalFederation | undefined): Promise<void> {
  const resolvConf = join(dir, 'resolv.conf');
  const noApi = join(dir, 'no-api.kubeconfig');
  await writeFile(resolvConf, POD_RESOLV_CONF);
  await writeFile(noApi, NO_API_KUBECONFIG);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...nodeOptions.split(' ').filter((o) => o !== ''),
      MAIN,
      '--node-name=member1-node-0',
      '--cluster-name=member1',
      `--kubeconfig=${fed?.member('member1').kubeconfigPath ?? noApi}`,
      `--karmada-kubeconfig=${fed?.controlPlane.kubeconfigPath ?? noApi}`,
      `--resolv-conf=${resolvConf}`,
      `--nameserver-port=${dns.port}`,
      '--period=100ms',
      `--metrics-bind-address=127.0.0.1:${port}`,
      `--health-probe-bind-address=127.0.0.1:${port}`,
      '--log-level=error',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const pid = child.pid ?? 0;
  try {
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // start-up
    const first = { status: await procStatus(pid), lookups: await lookupsOf(port) };
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const last = { status: await procStatus(pid), lookups: await lookupsOf(port) };
    const lookups = last.lookups - first.lookups;
    const cpuUs = ((last.status.cpuSeconds - first.status.cpuSeconds) * 1e6) / lookups;
    const s = last.status;
    const how = fed === undefined ? 'API servers unreachable' : 'leading, against a local federation';
    print(
      `probe process (${how}${nodeOptions === '' ? '' : `, ${nodeOptions}`}), ${seconds}s at a 100ms period:`,
    );
    print(`  lookups: ${lookups}, CPU per lookup (whole process): ${cpuUs.toFixed(0)} µs`);
    print(
      `  RSS ${s.rssMiB.toFixed(1)} MiB (anonymous ${s.anonMiB.toFixed(1)}, file-backed ${s.fileMiB.toFixed(1)}), peak ${s.hwmMiB.toFixed(1)} MiB`,
    );
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

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
  if (withFederation) fed = await startFederation({ members: 1, member: { nodes: 1 } });
  await probeProcess(dns, dir, fed);
} finally {
  await fed?.destroy();
  await dns.destroy();
  await rm(dir, { recursive: true, force: true });
}
