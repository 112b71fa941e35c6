/**
 * Benchmark: the agent's memory and status-sync time on a member with many nodes and pods.
 *
 * Starts a local control plane and one member with KWOK nodes, creates pods bound to those nodes
 * (spec.nodeName set, so no scheduler work), runs the agent as a real process, waits until the
 * Cluster status reports every node and pod, then samples the agent's RSS and the
 * `cluster_sync_status_duration_seconds` histogram over several periods.
 *
 *   npm run bench -w @kf/agent                      # 500 nodes, 5,000 pods
 *   KF_BENCH_NODES=100 KF_BENCH_PODS=1000 npm run bench -w @kf/agent
 */
import { readFile } from 'node:fs/promises';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { clusterKind, type Cluster } from '@kf/api';
import { ResourceClient } from '@kf/kube';
import { startFederation, type LocalFederation } from '@kf/testing';
import { eventually, startAgent, type AgentProcess } from '../test/agent-process.ts';

const NODES = Number(process.env.KF_BENCH_NODES ?? 500);
const PODS = Number(process.env.KF_BENCH_PODS ?? 5_000);
/** Status periods sampled once everything is reported. */
const SAMPLES = 10;
const PERIOD_S = 2;
const NAMESPACE = 'bench';

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

/** VmRSS and VmHWM (peak) of a process, in MiB. */
async function memoryOf(pid: number): Promise<{ rssMiB: number; peakMiB: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0);
  return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
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

async function main(): Promise<void> {
  const t0 = Date.now();
  const log = (msg: string): void => {
    console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${msg}`);
  };
  let fed: LocalFederation | undefined;
  let agent: AgentProcess | undefined;
  try {
    log(`starting a control plane and a member with ${NODES} KWOK nodes`);
    fed = await startFederation({ members: 1, member: { nodes: NODES } });
    const member = fed.member('member1');
    log(`creating ${PODS} pods bound to the nodes`);
    await createPods(member.kubeConfig().makeApiClient(CoreV1Api));
    log('starting the agent');
    await fed.controlPlane
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespace({
        body: { metadata: { name: 'karmada-system' } },
      });
    agent = await startAgent({
      cluster: 'member1',
      karmadaKubeconfig: fed.controlPlane.kubeconfigPath,
      member,
      runDir: fed.runDir,
      flags: [`--cluster-status-update-frequency=${PERIOD_S}s`, '--leader-elect=false', '--log-level=warn'],
    });
    const clusters = new ResourceClient<Cluster>(fed.controlPlane.kubeConfig(), clusterKind);
    const startedAt = Date.now();
    await eventually(
      'every node and pod reported',
      async () => {
        const s = (await clusters.find('member1'))?.status;
        return s?.nodeSummary?.totalNum === NODES && s.resourceSummary?.allocated?.pods === formatCount(PODS);
      },
      600_000,
      500,
    );
    log(`status complete ${((Date.now() - startedAt) / 1000).toFixed(1)} s after the agent started`);
    const first = await syncStats(agent);
    const running = agent;
    await eventually(
      `${SAMPLES} more syncs`,
      async () => (await syncStats(running)).count >= first.count + SAMPLES,
      600_000,
      500,
    );
    const last = await syncStats(agent);
    const memory = await memoryOf(agent.pid);
    const status = (await clusters.get('member1')).status;
    const meanMs = ((last.sum - first.sum) / (last.count - first.count)) * 1000;
    console.log('');
    console.log(`member:                ${NODES} nodes, ${PODS} pods`);
    console.log(`nodeSummary:           ${JSON.stringify(status?.nodeSummary)}`);
    console.log(`allocated:             ${JSON.stringify(status?.resourceSummary?.allocated)}`);
    console.log(
      `agent RSS:             ${memory.rssMiB.toFixed(1)} MiB (peak ${memory.peakMiB.toFixed(1)} MiB)`,
    );
    console.log(`status sync (mean):    ${meanMs.toFixed(1)} ms over ${last.count - first.count} syncs`);
    console.log(
      `targets:               RSS < 100 MiB ${memory.peakMiB < 100 ? 'met' : 'MISSED'}, sync < 1 s ${meanMs < 1000 ? 'met' : 'MISSED'}`,
    );
  } finally {
    await agent?.stop();
    await fed?.destroy();
  }
}

/** How the API prints a pod count (5000 → 5k). */
function formatCount(n: number): string {
  return n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

await main();
