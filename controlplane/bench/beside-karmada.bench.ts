/**
 * The project's control plane and Karmada v1.18.2's at the same work, one after the other on this
 * machine, each against a fresh kube-apiserver:
 *
 *   node controlplane/bench/beside-karmada.bench.ts [--bindings=10000] [--members=100] [--only=project|karmada]
 *
 * (KF_BESIDE_BINDINGS, KF_BESIDE_MEMBERS, KF_BESIDE_ONLY set the defaults.) The work is the scale
 * benchmark's (scale-workload.ts): `members` simulated Pull clusters whose Leases this process
 * renews every 10 s (40 s Leases, both monitors at a 40 s grace), one PropagationPolicy per pair
 * of members, `bindings` Deployments of 2 replicas divided 1:1 over a pair. The project runs as
 * deployed (the production bundle); Karmada as the interop tests build it (controller-manager,
 * scheduler, aggregated API server and webhook from its Go module, its default client rates),
 * with the same default ClusterTaintPolicy and NoExecute eviction at 50 bindings/s on both sides.
 * Per side, one line each:
 *
 *   place   Deployments created 16 at a time, then seconds until every binding is placed as its
 *           policy says and until both Works of every binding exist; bindings/s
 *   cost    CPU seconds of the deciding processes from the first create until the last Work
 *           (the project's one process; Karmada's controller-manager and scheduler, its
 *           aggregated API server and webhook counted apart), their RSS settled (median of 5
 *           samples over 8 s) and at its peak (VmHWM), from /proc
 *   lost    member001 reports Ready=False: seconds until every binding on it has left it
 *
 * and, with both sides run, the ratios Karmada / project. Processes are measured from /proc
 * (utime + stime at 100 ticks a second; VmRSS, VmHWM), the same way for both.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import { propagationPolicyKind, type ResourceBinding } from '@kf/api';
import { ResourceClient } from '@kf/kube';
import type { KubeConfig, V1Deployment } from '@kubernetes/client-node';
import { DEFAULT_TAINT_POLICY_FILE, KarmadaControlPlane, type SimulatedMembers } from '@kf/testing';
import { bundleControlPlane } from '../src/build/bundle.ts';
import {
  DEPLOYMENT_RESOURCE,
  ScaleWorkload,
  MONITOR_GRACE_SECONDS,
  memberName,
  reportUnreachable,
  simulatedMembers,
  startProjectControlPlane,
  watchPlacementProgress,
  watchPlacements,
} from './scale-workload.ts';
import { benchOutput, inParallel, mib, secs, since, sleep } from './support.ts';

const execFileAsync = promisify(execFile);

const { values: args } = parseArgs({
  options: {
    bindings: { type: 'string', default: process.env['KF_BESIDE_BINDINGS'] ?? '10000' },
    members: { type: 'string', default: process.env['KF_BESIDE_MEMBERS'] ?? '100' },
    only: { type: 'string', default: process.env['KF_BESIDE_ONLY'] ?? '' },
  },
});
const BINDINGS = Number(args.bindings);
const MEMBERS = Number(args.members);
if (!Number.isInteger(BINDINGS) || BINDINGS < 1 || !Number.isInteger(MEMBERS) || MEMBERS < 2) {
  throw new Error('--bindings must be at least 1 and --members at least 2');
}
if (!['', 'project', 'karmada'].includes(args.only)) throw new Error('--only is project or karmada');

const EVICTION_RATE = 50;
/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these. */
const TICKS_PER_SECOND = 100;

const { log, print, untilPhase } = benchOutput('beside-karmada');
const workload = new ScaleWorkload(MEMBERS);

/** One control plane under test: its API server, and the processes that decide, by name. */
interface Side {
  readonly name: 'project' | 'karmada';
  readonly kubeConfig: KubeConfig;
  /** The processes compared: the project's one, Karmada's controller-manager and scheduler. */
  readonly deciding: () => ReadonlyMap<string, number | undefined>;
  /** Processes the other side has no counterpart of (Karmada's aggregated API server, webhook). */
  readonly besides: () => ReadonlyMap<string, number | undefined>;
  readonly destroy: () => Promise<void>;
}

async function startProject(): Promise<Side> {
  const bundle = await bundleControlPlane();
  const fed = await startProjectControlPlane(bundle.outfile);
  return {
    name: 'project',
    kubeConfig: fed.controlPlaneKubeConfig(),
    deciding: () => new Map([['controlplane', fed.controlPlaneProcess.pid]]),
    besides: () => new Map(),
    destroy: () => fed.destroy(),
  };
}

async function startKarmada(): Promise<Side> {
  const karmada = await KarmadaControlPlane.start({
    controllerManagerFlags: [
      '--cluster-monitor-period=5s',
      `--cluster-monitor-grace-period=${MONITOR_GRACE_SECONDS}s`,
      '--cluster-startup-grace-period=60s',
      `--resource-eviction-rate=${EVICTION_RATE}`,
    ],
  });
  const cp = karmada.cluster;
  await execFileAsync(cp.kubectlPath, cp.kubectlArgs('apply', '-f', DEFAULT_TAINT_POLICY_FILE));
  return {
    name: 'karmada',
    kubeConfig: cp.kubeConfig(),
    deciding: () =>
      new Map([
        ['controller-manager', karmada.pidOf('controller-manager')],
        ['scheduler', karmada.pidOf('scheduler')],
      ]),
    besides: () =>
      new Map([
        ['aggregated-apiserver', karmada.pidOf('aggregated-apiserver')],
        ['webhook', karmada.pidOf('webhook')],
      ]),
    destroy: () => karmada.destroy(),
  };
}

interface ProcStats {
  readonly cpuSeconds: number;
  readonly rssBytes: number;
  readonly peakRssBytes: number;
}

async function procStats(pid: number | undefined): Promise<ProcStats> {
  if (pid === undefined) throw new Error('a measured process is not running');
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const kib = (key: string): number =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return {
    cpuSeconds: ticks / TICKS_PER_SECOND,
    rssBytes: kib('VmRSS') * 1024,
    peakRssBytes: kib('VmHWM') * 1024,
  };
}

/** The stats of each process, and their sum. */
async function statsOf(processes: ReadonlyMap<string, number | undefined>): Promise<Map<string, ProcStats>> {
  const out = new Map<string, ProcStats>();
  for (const [name, pid] of processes) out.set(name, await procStats(pid));
  return out;
}

function sum(stats: ReadonlyMap<string, ProcStats>, pick: (s: ProcStats) => number): number {
  return [...stats.values()].reduce((n, s) => n + pick(s), 0);
}

interface SideResult {
  readonly placeSeconds: number;
  readonly cpuSeconds: number;
  readonly rssBytes: number;
  readonly peakRssBytes: number;
  readonly lostSeconds: number;
}

async function place(side: Side): Promise<{ seconds: number; cpuSeconds: number }> {
  const kc = side.kubeConfig;
  const policies = new ResourceClient(kc, propagationPolicyKind);
  const deployments = new ResourceClient<V1Deployment>(kc, DEPLOYMENT_RESOURCE);
  await inParallel(MEMBERS, (p) => policies.create(workload.policy(p)));
  const progress = await watchPlacementProgress(kc, workload);
  const before = await statsOf(side.deciding());
  const createdAt = performance.now();
  await inParallel(BINDINGS, (i) => deployments.create(workload.app(i)));
  log(`${side.name}: ${BINDINGS} Deployments created in ${secs(since(createdAt))} s`);
  const { scheduled, works: all } = await progress.untilPlaced(untilPhase, {
    label: `${side.name} `,
    bindings: BINDINGS,
    from: createdAt,
  });
  const after = await statsOf(side.deciding());
  const cpuSeconds = sum(after, (s) => s.cpuSeconds) - sum(before, (s) => s.cpuSeconds);
  print(
    `place side=${side.name} bindings=${BINDINGS} members=${MEMBERS} scheduled_s=${secs(scheduled)} ` +
      `works_s=${secs(all)} bindings_per_s=${(BINDINGS / all).toFixed(1)}`,
  );
  return { seconds: all, cpuSeconds };
}

async function cost(side: Side, cpuSeconds: number): Promise<{ rss: number; peak: number }> {
  const samples: number[] = [];
  let deciding = new Map<string, ProcStats>();
  for (let i = 0; i < 5; i++) {
    if (i > 0) await sleep(2_000);
    deciding = await statsOf(side.deciding());
    samples.push(sum(deciding, (s) => s.rssBytes));
  }
  const rss = samples.sort((a, b) => a - b)[2] ?? 0;
  // The last sample's figures stand for the processes now (peak and per-process lines).
  const peak = sum(deciding, (s) => s.peakRssBytes);
  const each = [...deciding, ...(await statsOf(side.besides()))]
    .map(([name, s]) => `${name}_rss_mib=${mib(s.rssBytes)} ${name}_cpu_s=${secs(s.cpuSeconds)}`)
    .join(' ');
  print(
    `cost side=${side.name} placing_cpu_s=${secs(cpuSeconds)} rss_settled_mib=${mib(rss)} ` +
      `rss_peak_mib=${mib(peak)} ${each}`,
  );
  return { rss, peak };
}

async function lost(side: Side, members: SimulatedMembers): Promise<number> {
  const lostMember = memberName(0);
  const placements = await watchPlacements(side.kubeConfig);
  try {
    const isOn = (b: ResourceBinding | undefined): boolean =>
      (b?.spec.clusters ?? []).some((c) => c.name === lostMember);
    const on = placements.cache
      .list()
      .filter(isOn)
      .map((b) => `${b.metadata.namespace ?? ''}/${b.metadata.name ?? ''}`);
    const failedAt = performance.now();
    await reportUnreachable(members, lostMember);
    const moved = (): Promise<number> =>
      Promise.resolve(on.filter((key) => !isOn(placements.cache.get(key))).length);
    const all = await untilPhase(`${side.name} bindings off ${lostMember}`, moved, on.length, {
      from: failedAt,
      pauseMs: 50,
    });
    print(
      `lost side=${side.name} member=${lostMember} bindings_on_it=${on.length} all_moved_s=${secs(all)} ` +
        `bindings_per_s=${(on.length / all).toFixed(1)}`,
    );
    return all;
  } finally {
    placements.stop();
  }
}

async function run(start: () => Promise<Side>): Promise<SideResult> {
  const startedAt = performance.now();
  const side = await start();
  const members = simulatedMembers(side.kubeConfig);
  try {
    log(`${side.name}: control plane up in ${secs(since(startedAt))} s`);
    const pods = Math.max(10_000, Math.ceil((8 * BINDINGS) / MEMBERS));
    await inParallel(MEMBERS, (i) => members.register(memberName(i), pods));
    const placed = await place(side);
    const { rss, peak } = await cost(side, placed.cpuSeconds);
    const lostSeconds = await lost(side, members);
    return {
      placeSeconds: placed.seconds,
      cpuSeconds: placed.cpuSeconds,
      rssBytes: rss,
      peakRssBytes: peak,
      lostSeconds,
    };
  } finally {
    members.stop();
    await side.destroy();
  }
}

const project = args.only === 'karmada' ? undefined : await run(startProject);
const karmada = args.only === 'project' ? undefined : await run(startKarmada);
if (project !== undefined && karmada !== undefined) {
  const ratio = (k: number, p: number): string => (k / p).toFixed(2);
  print(
    `ratio karmada_to_project placement_time=${ratio(karmada.placeSeconds, project.placeSeconds)} ` +
      `placing_cpu=${ratio(karmada.cpuSeconds, project.cpuSeconds)} ` +
      `rss_settled=${ratio(karmada.rssBytes, project.rssBytes)} rss_peak=${ratio(karmada.peakRssBytes, project.peakRssBytes)} ` +
      `lost_member=${ratio(karmada.lostSeconds, project.lostSeconds)}`,
  );
}
