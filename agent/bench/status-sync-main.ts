/**
 * Benchmark: the agent's memory and status-sync time on a member with many nodes and pods.
 *
 * Starts a local control plane and one member with KWOK nodes, creates pods bound to those nodes
 * (spec.nodeName set, so no scheduler work), builds the production bundle, then runs the agent as
 * a real process in several ways, one after the other: the bundle with the Node flags of its
 * container (the production figure), the bundle without them, and the TypeScript sources with
 * and without them. Before each run the Cluster status is cleared, so each agent has to list
 * every node and pod itself; once its status reports all of them, the benchmark waits for
 * SAMPLES more status syncs while it samples the agent's RSS.
 *
 * Reported per run: peak RSS (the kernel's high-water mark, so start-up and the first LISTs are
 * included), steady RSS (mean of the samples taken during the last SAMPLES syncs), its anonymous
 * and file-backed parts (file-backed pages are the node binary's code and data, shared and
 * reclaimable), and the mean status-sync time over those syncs.
 *
 *   npm run bench -w @kf/agent                      # 500 nodes, 5,000 pods
 *   KF_BENCH_NODES=100 KF_BENCH_PODS=1000 npm run bench -w @kf/agent
 *   KF_BENCH_RUNS=bundle npm run bench -w @kf/agent # only the production run
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { clusterKind, type Cluster } from '@kf/api';
import { ResourceClient } from '@kf/kube';
import { eventually, startFederation, type LocalCluster, type LocalFederation } from '@kf/testing';
import { AGENT_BUNDLE, PRODUCTION_NODE_FLAGS, bundleAgent } from '../src/build/bundle.ts';
import { startAgent, type AgentProcess } from '../test/agent-process.ts';

const NODES = Number(process.env.KF_BENCH_NODES ?? 500);
const PODS = Number(process.env.KF_BENCH_PODS ?? 5_000);
/** Status periods sampled once everything is reported. */
const SAMPLES = 10;
const PERIOD_S = 2;
const SAMPLE_EVERY_MS = 250;
const NAMESPACE = 'bench';
const TARGET_RSS_MIB = 100;
const TARGET_SYNC_MS = 1_000;
const AGENT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_MAIN = join(AGENT_DIR, 'src', 'main.ts');

/** One way of running the agent. */
interface Run {
  readonly name: string;
  readonly entry: string;
  readonly nodeFlags: readonly string[];
}

const RUNS: readonly Run[] = [
  { name: 'bundle', entry: AGENT_BUNDLE, nodeFlags: PRODUCTION_NODE_FLAGS },
  { name: 'bundle-no-flags', entry: AGENT_BUNDLE, nodeFlags: [] },
  { name: 'source', entry: SOURCE_MAIN, nodeFlags: PRODUCTION_NODE_FLAGS },
  { name: 'source-no-flags', entry: SOURCE_MAIN, nodeFlags: [] },
];

interface Result {
  readonly run: Run;
  readonly peakMiB: number;
  readonly steadyMiB: number;
  readonly anonMiB: number;
  readonly fileMiB: number;
  readonly syncMs: number;
  readonly syncs: number;
}

function pod(i: number): V1Pod {
  return {
    metadata: { name: `bench-${i}`, namespace: NAMESPACE, labels: { app: 'bench' } },
    spec: {
      nodeName: `member1-node-${i % NODES}`,
      containers: [
        { name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '100m', memory: '64Mi' } } },
      ],
    },
  };
}

async function createPods(core: CoreV1Api): Promise<void> {
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  let next = 0;
  // Twenty requests in flight: enough to keep one API server busy on a small machine.
  const worker = async (): Promise<void> => {
    while (next < PODS) {
      const i = next++;
      await core.createNamespacedPod({ namespace: NAMESPACE, body: pod(i) });
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
}

interface Memory {
  readonly rssMiB: number;
  /** VmHWM: the highest RSS the process ever had. */
  readonly peakMiB: number;
  readonly anonMiB: number;
  readonly fileMiB: number;
}

async function memoryOf(pid: number): Promise<Memory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0) / 1024;
  return { rssMiB: mib('VmRSS'), peakMiB: mib('VmHWM'), anonMiB: mib('RssAnon'), fileMiB: mib('RssFile') };
}

/** Reads the agent's RSS every SAMPLE_EVERY_MS; `window()` returns the samples since `mark()`. */
function sampleRss(pid: number): { mark(): void; window(): number[]; stop(): void } {
  const samples: number[] = [];
  let from = 0;
  const timer = setInterval(() => {
    memoryOf(pid).then(
      (m) => samples.push(m.rssMiB),
      () => undefined, // the process is gone
    );
  }, SAMPLE_EVERY_MS);
  return {
    mark: () => {
      from = samples.length;
    },
    window: () => samples.slice(from),
    stop: () => {
      clearInterval(timer);
    },
  };
}

interface SyncStats {
  readonly count: number;
  readonly sum: number;
}

async function syncStats(agent: AgentProcess): Promise<SyncStats> {
  const text = await (await fetch(agent.metricsUrl)).text();
  const value = (name: string): number =>
    Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    count: value('cluster_sync_status_duration_seconds_count'),
    sum: value('cluster_sync_status_duration_seconds_sum'),
  };
}

interface Bench {
  readonly fed: LocalFederation;
  readonly member: LocalCluster;
  readonly clusters: ResourceClient<Cluster>;
  readonly log: (msg: string) => void;
}

/** Runs the agent one way until SAMPLES syncs after its status was complete; stops it. */
async function measure(run: Run, b: Bench): Promise<Result> {
  // Whatever an earlier run reported is gone: this agent must list every node and pod itself.
  await b.clusters.patchStatus('member1', { status: null }).catch(() => undefined);
  b.log(`${run.name}: starting ${commandOf(run)}`);
  const agent = await startAgent({
    cluster: 'member1',
    karmadaKubeconfig: b.fed.controlPlane.kubeconfigPath,
    member: b.member,
    runDir: b.fed.runDir,
    name: `bench-${run.name}`,
    entry: run.entry,
    nodeFlags: run.nodeFlags,
    flags: [`--cluster-status-update-frequency=${PERIOD_S}s`, '--leader-elect=false', '--log-level=warn'],
  });
  const rss = sampleRss(agent.pid);
  try {
    const startedAt = Date.now();
    await eventually(
      'every node and pod reported',
      async () => {
        const s = (await b.clusters.find('member1'))?.status;
        return s?.nodeSummary?.totalNum === NODES && s.resourceSummary?.allocated?.pods === formatCount(PODS);
      },
      600_000,
      500,
    );
    b.log(`${run.name}: status complete ${((Date.now() - startedAt) / 1000).toFixed(1)} s after start`);
    const first = await syncStats(agent);
    rss.mark();
    await eventually(
      `${SAMPLES} more syncs`,
      async () => (await syncStats(agent)).count >= first.count + SAMPLES,
      600_000,
      500,
    );
    const last = await syncStats(agent);
    const memory = await memoryOf(agent.pid);
    const steady = rss.window();
    return {
      run,
      peakMiB: memory.peakMiB,
      steadyMiB: steady.length === 0 ? memory.rssMiB : steady.reduce((a, v) => a + v, 0) / steady.length,
      anonMiB: memory.anonMiB,
      fileMiB: memory.fileMiB,
      syncMs: ((last.sum - first.sum) / (last.count - first.count)) * 1000,
      syncs: last.count - first.count,
    };
  } finally {
    rss.stop();
    await agent.stop();
  }
}

function commandOf(run: Run): string {
  return ['node', ...run.nodeFlags, relative(AGENT_DIR, run.entry)].join(' ');
}

function report(results: readonly Result[], status: Cluster['status']): void {
  const col = (s: string, n: number): string => s.padEnd(n);
  const num = (v: number, n: number): string => v.toFixed(1).padStart(n);
  console.log('');
  console.log(`member:       ${NODES} nodes, ${PODS} pods`);
  console.log(`nodeSummary:  ${JSON.stringify(status?.nodeSummary)}`);
  console.log(`allocated:    ${JSON.stringify(status?.resourceSummary?.allocated)}`);
  console.log('');
  const width = Math.max(...results.map((r) => commandOf(r.run).length));
  console.log(
    `${col('run', 16)} ${col('command', width)}  peak MiB  steady MiB  anon MiB  file MiB  sync ms`,
  );
  for (const r of results) {
    console.log(
      `${col(r.run.name, 16)} ${col(commandOf(r.run), width)}  ${num(r.peakMiB, 8)}  ${num(r.steadyMiB, 10)}  ${num(r.anonMiB, 8)}  ${num(r.fileMiB, 8)}  ${num(r.syncMs, 7)}`,
    );
  }
  console.log('');
  for (const r of results) {
    console.log(
      `run=${r.run.name} rss_mib=${r.peakMiB.toFixed(1)} steady_mib=${r.steadyMiB.toFixed(1)} target=${TARGET_RSS_MIB} ratio=${(r.peakMiB / TARGET_RSS_MIB).toFixed(2)} sync_ms=${r.syncMs.toFixed(1)} sync_target=${TARGET_SYNC_MS} sync_ratio=${(r.syncMs / TARGET_SYNC_MS).toFixed(3)}`,
    );
  }
  const production = results.find((r) => r.run.name === 'bundle');
  if (production !== undefined) {
    const rssMet = production.peakMiB < TARGET_RSS_MIB ? 'met' : 'MISSED';
    const syncMet = production.syncMs < TARGET_SYNC_MS ? 'met' : 'MISSED';
    console.log(
      `targets (production bundle, peak RSS): RSS < ${TARGET_RSS_MIB} MiB ${rssMet}, sync < 1 s ${syncMet}`,
    );
  }
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const log = (msg: string): void => {
    console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${msg}`);
  };
  const wanted = process.env.KF_BENCH_RUNS?.split(',');
  const runs = RUNS.filter((r) => wanted === undefined || wanted.includes(r.name));
  let fed: LocalFederation | undefined;
  try {
    if (runs.some((r) => r.entry === AGENT_BUNDLE)) {
      const { bytes } = await bundleAgent();
      log(`built ${relative(AGENT_DIR, AGENT_BUNDLE)} (${(bytes / 1024).toFixed(0)} KiB)`);
    }
    log(`starting a control plane and a member with ${NODES} KWOK nodes`);
    fed = await startFederation({ members: 1, member: { nodes: NODES } });
    const member = fed.member('member1');
    log(`creating ${PODS} pods bound to the nodes`);
    await createPods(member.kubeConfig().makeApiClient(CoreV1Api));
    await fed.controlPlane
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: 'karmada-system' } } });
    const clusters = new ResourceClient<Cluster>(fed.controlPlane.kubeConfig(), clusterKind);
    const results: Result[] = [];
    for (const run of runs) results.push(await measure(run, { fed, member, clusters, log }));
    report(results, (await clusters.get('member1')).status);
  } finally {
    await fed?.destroy();
  }
}

/** How the API prints a pod count (5000 → 5k). */
function formatCount(n: number): string {
  return n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

await main();
