/**
 * The control plane at scale, end to end through the control-plane process as deployed (the
 * production bundle, built first, run as `node <CONTROLPLANE_NODE_FLAGS> dist/controlplane.mjs run
 * --failover`) against a real Karmada API server:
 *
 *   node controlplane/bench/scale.bench.ts [--bindings=10000] [--members=100]
 *   node controlplane/bench/scale.bench.ts --sizes=1000x10,10000x100,30000x1000
 *
 * (KF_SCALE_BINDINGS, KF_SCALE_MEMBERS and KF_SCALE_SIZES set the defaults.) With `--sizes`, each
 * size runs in a process of its own and a table of the sizes side by side follows (scale-curve.ts). `members` Pull clusters member001..
 * are simulated (status and heartbeat Leases written by this process, renewed every 10 s with the
 * control plane's monitor grace at upstream's 40 s; no member API servers: nothing is applied).
 * Deployment i, of 2 replicas, carries pair label i mod `members`; PropagationPolicy `scale-<p>`
 * divides pair p by static weights 1:1 over member p+1 and the member after it (round the ring),
 * so every member carries 2 × bindings / members copies. Five phases, each printed on one line:
 *
 *   setup     clusters registered, Deployments created, every binding scheduled as its policy
 *             says, both Works of every binding there, work queues idle; bindings/s, reconciles
 *             per binding, of them those of the controllers that reconcile bindings, and of
 *             those the keys of their periodic resyncs (a key is queued again once it has gone
 *             10 minutes without a reconcile, so a setup longer than that meets the keys it
 *             placed first; each controller's counts are logged)
 *   memory    the control plane's RSS and heap once settled (after its idle heap compaction,
 *             which it makes once mostly idle, and once the setup's Events are written), its
 *             compactions and their mean pause, the peak of 1 s samples while it placed everything, and
 *             kube-apiserver's RSS
 *   restart   once the Events recorded during the setup are written (they go out paced, behind
 *             the work), SIGTERM to the process; while it is down, the cold-list floor (this
 *             process lists what the control plane's caches hold, all at once, page by page,
 *             objects counted and dropped: no cache can be filled sooner), then again (how far
 *             the two differ is the floor's own spread); start again: seconds
 *             to /readyz 200 (every cache listed from cold) and its ratio to that floor, to
 *             the first reconcile counted in its /metrics, to a Deployment created at /readyz
 *             being scheduled and its Works written (the first new decision), and to idle work
 *             queues (the cold resync done); the API writes of that resync (the probe
 *             Deployment's own included)
 *   lost      member001 reports Ready=False (the default ClusterTaintPolicy, hold time 0, taints it
 *             NoExecute; evictions paced at the default 50/s, burst 100): seconds until every
 *             binding that was on it has left it, with their count, and the pace's floor for
 *             that count (the burst at once, the rest at the rate), seen through a watch of the
 *             bindings (nothing listed while it runs); each member holds
 *             2 × bindings / members (`--bindings=15000 --members=10`: 3,000)
 *   floor     the control plane stopped: up to 2,000 new bindings placed by this process alone
 *             with the writes the control plane made for one (placement-floor.ts); the setup's
 *             placement rate as a share of that floor
 *
 * Bindings and Works are read page by page (500 at a time) and counted, never held whole, so this
 * process stays small whatever the size.
 */
import { performance } from 'node:perf_hooks';
import {
  clusterKind,
  clusterPropagationPolicyKind,
  clusterResourceBindingKind,
  namespaces,
  propagationPolicyKind,
  resourceBindingKind,
  workKind,
  type ResourceBinding,
} from '@kf/api';
import { LEASE_RESOURCE, ResourceClient, type KubeObject, type ResourceDescriptor } from '@kf/kube';
import type { KubeConfig, V1Deployment } from '@kubernetes/client-node';
import type { FailoverFederation, SimulatedMembers } from '@kf/testing';
import { bundleControlPlane } from '../src/build/bundle.ts';
import { replayPlacementWrites } from './placement-floor.ts';
import {
  DEPLOYMENT_RESOURCE,
  NAMESPACE,
  ScaleWorkload,
  appName,
  memberName,
  reportUnreachable,
  simulatedMembers,
  startProjectControlPlane,
  watchPlacementProgress,
  watchPlacements,
} from './scale-workload.ts';
import { curveSizes, runCostCurve } from './scale-curve.ts';
import { workNameFor } from '../src/names.ts';
import { NAMESPACE_RESOURCE } from '../src/controllers/cluster/controller.ts';
import { DEFAULT_EVICTION_PACING } from '../src/controllers/fleet-guard/pacing.ts';
import {
  apiServerMetrics,
  apiWrites,
  controlPlaneTotals,
  controllerBreakdown,
  forEachListed,
  inParallel,
  metricSum,
  metricsText,
  placementOf,
  runSize,
  sleep,
  PHASE_TIMEOUT_MS,
  benchOutput,
  mib,
  secs,
  since,
  waitForIdle,
} from './support.ts';

// Several sizes: one process each, then the table (scale-curve.ts).
const sizes = curveSizes('KF_SCALE');
if (sizes !== undefined) {
  await runCostCurve(import.meta.filename, sizes);
  process.exit(0);
}
const { bindings: BINDINGS, members: MEMBERS } = runSize('KF_SCALE', { bindings: 10000, members: 100 });
const workload = new ScaleWorkload(MEMBERS);
const PROBE = 'scale-probe';
/** The floor's size and how many bindings it places at once. */
const FLOOR_BINDINGS = 2_000;
const FLOOR_CONCURRENCY = 32;
/** What the cold-list floor lists (see coldListFloor). */
const COLD_LISTED: readonly { readonly resource: ResourceDescriptor; readonly namespace?: string }[] = [
  { resource: workKind },
  { resource: resourceBindingKind },
  { resource: clusterResourceBindingKind },
  { resource: DEPLOYMENT_RESOURCE },
  { resource: propagationPolicyKind },
  { resource: clusterPropagationPolicyKind },
  { resource: clusterKind },
  { resource: LEASE_RESOURCE, namespace: namespaces.cluster },
  { resource: NAMESPACE_RESOURCE },
];

const { log, print, untilPhase } = benchOutput('scale.bench');

/**
 * Controllers whose keys are clusters or namespaces: their reconciles follow the members and the
 * time the setup takes (the health monitor's timers, members' status posts), not the bindings.
 */
const FLEET_CONTROLLERS = new Set([
  'cluster',
  'cluster-health',
  'cluster-taints',
  'taint-policy',
  'remedy',
  'namespace',
  'cluster-status',
  'execution',
  'work-status',
  'fence-release',
]);

/**
 * One look at the control plane's memory: RSS, the V8 heap's live objects and what V8 holds for
 * them (used, total), and memory outside the heap that V8 knows of (buffers, mostly).
 */
interface MemorySample {
  readonly rss: number;
  readonly heap: number;
  readonly heapTotal: number;
  readonly external: number;
}

/** The control plane's RSS and heap, sampled every second; the peak since the last reset. */
class MemorySampler {
  peakRss = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(url: string) {
    this.#timer = setInterval(() => {
      void this.sample(url);
    }, 1_000);
  }

  async sample(url: string): Promise<MemorySample | undefined> {
    const text = await metricsText(url);
    const rss = text === undefined ? undefined : metricSum(text, 'process_resident_memory_bytes');
    if (text === undefined || rss === undefined) return undefined;
    this.peakRss = Math.max(this.peakRss, rss);
    return {
      rss,
      heap: metricSum(text, 'nodejs_heap_size_used_bytes') ?? 0,
      heapTotal: metricSum(text, 'nodejs_heap_size_total_bytes') ?? 0,
      external: metricSum(text, 'nodejs_external_memory_bytes') ?? 0,
    };
  }

  reset(): void {
    this.peakRss = 0;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

interface Context {
  readonly fed: FailoverFederation;
  /** Deployments through one connection pool: a client per request would grow this process. */
  readonly deployments: ResourceClient<V1Deployment>;
  readonly members: SimulatedMembers;
  readonly memory: MemorySampler;
  readonly url: string;
}

/** Sets up, places every binding; returns the placement rate (bindings per second). */
async function setup(ctx: Context): Promise<number> {
  const { fed, members, url, deployments } = ctx;
  const startedAt = performance.now();
  // Room for every copy, a lost neighbour's included, whatever the ratio of bindings to members.
  const pods = Math.max(10_000, Math.ceil((8 * BINDINGS) / MEMBERS));
  await inParallel(MEMBERS, (i) => members.register(memberName(i), pods));
  const registered = since(startedAt);
  await inParallel(MEMBERS, (p) => fed.policies.create(workload.policy(p)));
  const progress = await watchPlacementProgress(fed.controlPlaneKubeConfig(), workload);
  const before = await controlPlaneTotals(url);
  const createdAt = performance.now();
  await inParallel(BINDINGS, (i) => deployments.create(workload.app(i)));
  const created = since(createdAt);
  log(`${MEMBERS} clusters in ${secs(registered)} s; ${BINDINGS} Deployments created in ${secs(created)} s`);
  const { scheduled, works } = await progress.untilPlaced(untilPhase, {
    label: '',
    bindings: BINDINGS,
    from: createdAt,
  });
  const idle = await waitForIdle(url, createdAt);
  const after = await controlPlaneTotals(url);
  for (const line of controllerBreakdown(after)) log(`  ${line}`);
  let fleet = 0;
  let passes = 0;
  for (const [controller, e] of after.controllers) {
    const b = before.controllers.get(controller);
    if (FLEET_CONTROLLERS.has(controller)) fleet += e.count - (b?.count ?? 0);
    else passes += e.passes - (b?.passes ?? 0);
  }
  const perBinding = (n: number): string => (n / BINDINGS).toFixed(1);
  print(
    `setup bindings=${BINDINGS} members=${MEMBERS} clusters_registered_s=${secs(registered)} ` +
      `creates_s=${secs(created)} scheduled_s=${secs(scheduled)} works_s=${secs(works)} idle_s=${secs(idle)} ` +
      `bindings_per_s=${(BINDINGS / works).toFixed(1)} ` +
      `reconciles_per_binding=${perBinding(after.reconciles - before.reconciles)} ` +
      `of_binding_controllers=${perBinding(after.reconciles - before.reconciles - fleet)} ` +
      `of_them_resync_passes=${perBinding(passes)} ` +
      `controlplane_cpu_s=${secs(after.cpu - before.cpu)}`,
  );
  return BINDINGS / works;
}

/** Five samples over 8 s: a settled figure, not a moment of garbage. */
async function settledSamples(sampler: MemorySampler, url: string): Promise<MemorySample[]> {
  const samples: MemorySample[] = [];
  for (let i = 0; i < 5; i++) {
    const s = await sampler.sample(url);
    if (s !== undefined) samples.push(s);
    if (i < 4) await sleep(2_000);
  }
  return samples;
}

const COMPACTIONS = 'karmada_failover_heap_compaction_duration_seconds';

/**
 * Waits up to a minute for the control plane's first idle heap compaction (it looks every 10 s
 * and compacts once mostly idle); false when none came (`--idle-heap-compaction=false`).
 */
async function untilCompacted(url: string): Promise<boolean> {
  const startedAt = performance.now();
  while (since(startedAt) < 60) {
    if ((metricSum((await metricsText(url)) ?? '', `${COMPACTIONS}_count`) ?? 0) > 0) return true;
    await sleep(1_000);
  }
  return false;
}

async function memory(ctx: Context): Promise<void> {
  const { fed, memory: sampler, url } = ctx;
  const startedAt = performance.now();
  const median = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  // Settled: once the process gave back what the burst left and wrote the setup's Events, which
  // go out paced for minutes after the work.
  await untilCompacted(url);
  await untilEventsWritten(url);
  const samples = await settledSamples(sampler, url);
  const text = (await metricsText(url)) ?? '';
  const compactions = metricSum(text, `${COMPACTIONS}_count`) ?? 0;
  const pauses = metricSum(text, `${COMPACTIONS}_sum`) ?? 0;
  const apiRss = metricSum(await apiServerMetrics(fed), 'process_resident_memory_bytes') ?? 0;
  print(
    `memory controlplane_rss_mib=${mib(median(samples.map((s) => s.rss)))} ` +
      `controlplane_heap_mib=${mib(median(samples.map((s) => s.heap)))} ` +
      `controlplane_heap_total_mib=${mib(median(samples.map((s) => s.heapTotal)))} ` +
      `controlplane_external_mib=${mib(median(samples.map((s) => s.external)))} ` +
      `controlplane_peak_rss_mib=${mib(sampler.peakRss)} compactions=${compactions} ` +
      `compaction_pause_s=${compactions === 0 ? 0 : (pauses / compactions).toFixed(2)} ` +
      `kube_apiserver_rss_mib=${mib(apiRss)} phase_s=${secs(since(startedAt))}`,
  );
}

/** From a start: /readyz 200 and the first reconcile the new process counts; seconds each. */
async function firstSigns(url: string, from: number): Promise<{ ready: number; reconcile: number }> {
  let ready: number | undefined;
  let reconcile: number | undefined;
  while (ready === undefined || reconcile === undefined) {
    if (ready === undefined) {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
      if (res?.status === 200) ready = since(from);
    }
    if (reconcile === undefined) {
      const text = await metricsText(url);
      const n =
        text === undefined ? 0 : (metricSum(text, 'karmada_failover_reconcile_duration_seconds_count') ?? 0);
      if (n > 0) reconcile = since(from);
    }
    if (performance.now() - from > PHASE_TIMEOUT_MS) throw new Error('the control plane never got ready');
    await sleep(100);
  }
  return { ready, reconcile };
}

/** A Deployment created now: seconds until its binding is scheduled and until both its Works exist. */
async function probeDecision(ctx: Context): Promise<{ scheduled: number; works: number }> {
  const { fed, deployments } = ctx;
  const pair = MEMBERS > 2 ? 1 : 0;
  const at = performance.now();
  await deployments.create(workload.deployment(PROBE, pair));
  const wanted = workload.pairPlacement(pair);
  const binding = async (): Promise<number> => {
    const b = await fed.bindings.find(`${NAMESPACE}/${PROBE}-deployment`);
    return b !== undefined && placementOf(b) === wanted ? 1 : 0;
  };
  const scheduled = await untilPhase('probe binding scheduled', binding, 1, { from: at, pauseMs: 100 });
  const work = workNameFor('deployment', PROBE, NAMESPACE);
  const works = async (): Promise<number> => {
    const found = await Promise.all(
      workload.pairOf(pair).map((c) => fed.works.find(`karmada-es-${c}/${work}`)),
    );
    return found.filter((w) => w !== undefined).length;
  };
  const worksSeconds = await untilPhase('probe Works', works, 2, { from: at, pauseMs: 100 });
  return { scheduled, works: worksSeconds };
}

interface CoreEvent {
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    readonly creationTimestamp?: string;
  };
  readonly reason?: string;
  readonly involvedObject?: { readonly kind?: string };
}

/** The Events made since `sinceMs`, by kind and reason: what a restart said, if anything. */
async function logEventsSince(ctx: Context, sinceMs: number): Promise<void> {
  const events = new ResourceClient<CoreEvent>(ctx.fed.controlPlaneKubeConfig(), {
    group: '',
    version: 'v1',
    plural: 'events',
    kind: 'Event',
    namespaced: true,
  });
  const counts = new Map<string, number>();
  for (const e of (await events.list()).items) {
    if (Date.parse(e.metadata.creationTimestamp ?? '') < sinceMs - 1_000) continue;
    const key = `${e.involvedObject?.kind ?? '?'} ${e.reason ?? '?'}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1])) log(`events over the restart ${key}: ${n}`);
}

/**
 * Waits until the control plane has written the Events it recorded (they go out at a paced rate,
 * behind the work they report): what a stopping process flushes is the setup's, not the restart's.
 */
async function untilEventsWritten(url: string): Promise<void> {
  const startedAt = performance.now();
  for (;;) {
    const pending = metricSum((await metricsText(url)) ?? '', 'karmada_failover_events_pending');
    if (pending === 0) break;
    if (since(startedAt) * 1000 > PHASE_TIMEOUT_MS) throw new Error(`${pending} Events still pending`);
    await sleep(1_000);
  }
  log(`Events of the setup written after ${secs(since(startedAt))} s more`);
}

async function restart(ctx: Context): Promise<void> {
  const { fed, memory: sampler, url } = ctx;
  await untilEventsWritten(url);
  const writesBefore = apiWrites(await apiServerMetrics(fed));
  const restartWallMs = Date.now();
  const stoppingAt = performance.now();
  await fed.controlPlaneProcess.stop();
  const stopped = since(stoppingAt);
  // Twice, back to back: how far the second strays from the first is the floor's own spread,
  // what a ratio of the restart to it cannot be read finer than.
  const listFloor = await coldListFloor(fed.controlPlaneKubeConfig());
  const listFloorAgain = await coldListFloor(fed.controlPlaneKubeConfig());
  sampler.reset();
  const startAt = performance.now();
  await fed.controlPlaneProcess.start();
  const signs = await firstSigns(url, startAt);
  const fromReady = performance.now();
  const probe = await probeDecision(ctx);
  const idle = await waitForIdle(url, startAt);
  const after = await controlPlaneTotals(url);
  const writes = apiWrites(await apiServerMetrics(fed));
  const delta = [...writes]
    .map(([k, v]): [string, number] => [k, v - (writesBefore.get(k) ?? 0)])
    // The simulated members' Lease renewals are this process's, not the control plane's; the
    // Endpoints writes are the API server's own, refused (422) for its loopback address.
    .filter(([k, v]) => v > 0 && !k.includes(' leases ') && !k.includes(' endpoints '))
    .sort((a, b) => b[1] - a[1]);
  for (const [k, v] of delta) log(`api writes over the restart ${k}: ${v}`);
  await logEventsSince(ctx, restartWallMs);
  const rss = (await sampler.sample(url))?.rss ?? 0;
  const readyOffset = (fromReady - startAt) / 1000;
  print(
    `restart stop_s=${secs(stopped)} readyz_s=${secs(signs.ready)} list_floor_s=${secs(listFloor.seconds)} ` +
      `list_floor_again_s=${secs(listFloorAgain.seconds)} listed_objects=${listFloor.objects} ` +
      `readyz_to_list_floor=${(signs.ready / listFloor.seconds).toFixed(2)} ` +
      `first_reconcile_s=${secs(signs.reconcile)} ` +
      `new_binding_scheduled_s=${secs(readyOffset + probe.scheduled)} new_works_s=${secs(readyOffset + probe.works)} ` +
      `idle_s=${secs(idle)} reconciles=${after.reconciles} controlplane_cpu_s=${secs(after.cpu)} ` +
      `api_writes=${delta.reduce((n, [, v]) => n + v, 0)} rss_mib=${mib(rss)} peak_rss_mib=${mib(sampler.peakRss)}`,
  );
}

/**
 * The floor of a cold start's lists: with the control plane stopped, the collections its caches
 * hold (the large ones and the cluster-wide small ones) listed by this process at once, each page
 * by page (500 at a time, as the caches ask), the objects counted and dropped. No control plane
 * can have every cache listed sooner on this API server.
 */
async function coldListFloor(kc: KubeConfig): Promise<{ seconds: number; objects: number }> {
  const startedAt = performance.now();
  const counts = await Promise.all(
    COLD_LISTED.map(async ({ resource, namespace }) => {
      let n = 0;
      await forEachListed(new ResourceClient<KubeObject>(kc, resource), namespace, () => {
        n++;
      });
      return n;
    }),
  );
  return { seconds: since(startedAt), objects: counts.reduce((a, b) => a + b, 0) };
}

async function lost(ctx: Context): Promise<void> {
  const { fed, members, url } = ctx;
  const lostMember = memberName(0);
  const placements = await watchPlacements(fed.controlPlaneKubeConfig());
  const isOn = (b: ResourceBinding | undefined): boolean =>
    (b?.spec.clusters ?? []).some((c) => c.name === lostMember);
  const on = placements.cache
    .list()
    .filter(isOn)
    .map((b) => `${NAMESPACE}/${b.metadata.name ?? ''}`);
  const before = await controlPlaneTotals(url);
  const failedAt = performance.now();
  await reportUnreachable(members, lostMember);
  let first: number | undefined;
  const moved = (): Promise<number> => {
    const n = on.filter((key) => !isOn(placements.cache.get(key))).length;
    if (n > 0) first ??= since(failedAt);
    return Promise.resolve(n);
  };
  const all = await untilPhase(`bindings off ${lostMember}`, moved, on.length, {
    from: failedAt,
    pauseMs: 50,
  });
  placements.stop();
  const idle = await waitForIdle(url, failedAt);
  const after = await controlPlaneTotals(url);
  // The pace's floor: the burst at once, the rest at the rate.
  const { ratePerSecond, burst } = DEFAULT_EVICTION_PACING;
  const paceFloor = Math.max(0, on.length - burst) / ratePerSecond;
  print(
    `lost member=${lostMember} bindings_on_it=${on.length} first_moved_s=${secs(first ?? all)} ` +
      `all_moved_s=${secs(all)} bindings_per_s=${(on.length / all).toFixed(1)} ` +
      `pace_floor_s=${secs(paceFloor)}${paceFloor > 0 ? ` to_pace_floor=${(all / paceFloor).toFixed(2)}` : ''} ` +
      `idle_s=${secs(idle)} controlplane_cpu_s=${secs(after.cpu - before.cpu)}`,
  );
}

const bundle = await bundleControlPlane();
/**
 * The API server's floor for the setup's writes (placement-floor.ts), the control plane stopped:
 * up to 2,000 new bindings placed by this process alone, as copies of one the control plane placed.
 */
async function floor(ctx: Context, placementRate: number): Promise<void> {
  const { fed } = ctx;
  await fed.controlPlaneProcess.stop();
  const app = appName(MEMBERS > 2 ? 1 : 0);
  const binding = await fed.bindings.get(`${NAMESPACE}/${app}-deployment`);
  const template = await ctx.deployments.get(`${NAMESPACE}/${app}`);
  const work = workNameFor('deployment', app, NAMESPACE);
  const works = await Promise.all(
    (binding.spec.clusters ?? []).map((c) => fed.works.get(`karmada-es-${c.name}/${work}`)),
  );
  const count = Math.min(BINDINGS, FLOOR_BINDINGS);
  const result = await replayPlacementWrites(
    fed.controlPlaneKubeConfig(),
    { binding, works, template },
    { count, prefix: 'floor', concurrency: FLOOR_CONCURRENCY },
  );
  const floorRate = count / result.seconds;
  print(
    `floor bindings=${count} writes_per_binding=${(result.writes / count).toFixed(0)} ` +
      `concurrency=${FLOOR_CONCURRENCY} seconds=${secs(result.seconds)} bindings_per_s=${floorRate.toFixed(1)} ` +
      `placement_to_floor=${(placementRate / floorRate).toFixed(2)}`,
  );
}

const benchStartedAt = performance.now();
const fed = await startProjectControlPlane(bundle.outfile);
const ctx: Context = {
  fed,
  deployments: new ResourceClient<V1Deployment>(fed.controlPlaneKubeConfig(), DEPLOYMENT_RESOURCE),
  members: simulatedMembers(fed.controlPlaneKubeConfig()),
  memory: new MemorySampler(fed.controlPlaneUrl),
  url: fed.controlPlaneUrl,
};
try {
  log(`federation up in ${secs(since(benchStartedAt))} s`);
  const placementRate = await setup(ctx);
  await memory(ctx);
  await restart(ctx);
  await lost(ctx);
  await floor(ctx, placementRate);
  print(
    `bench total_s=${secs(since(benchStartedAt))} bench_peak_rss_mib=${mib(process.resourceUsage().maxRSS * 1024)}`,
  );
} finally {
  ctx.memory.stop();
  ctx.members.stop();
  await fed.destroy();
}
