/**
 * Rescheduling after a cluster failure, end to end through the control-plane process
 * (`node controlplane/src/main.ts run --failover`) against a real Karmada API server:
 *
 *   node controlplane/bench/reschedule.bench.ts [bindings]   (default 1,000; KF_BENCH_BINDINGS too)
 *
 * Three Pull clusters are simulated (status and heartbeat Leases written by this process; no
 * member API servers: nothing needs to be applied). `bindings` Deployments, each with 2 replicas,
 * are propagated by one PropagationPolicy dividing them by static weights member1:1, member2:1,
 * so that every binding has a replica on member1. Then member1 reports Ready=False: the default
 * ClusterTaintPolicy (hold time 0) taints it NoExecute, the taint manager evicts every binding
 * (paced by --resource-eviction-rate/--resource-eviction-burst, defaults 50/s and 100), and the
 * scheduler places member2:2. Prints the seconds from the failure until every binding has its
 * new placement and until every Work of the new placement is in place (member2's carrying 2
 * replicas; member1's stay while their graceful eviction tasks wait for health no simulated member
 * reports), the rate, and the ratio to upstream's figure of about 22 bindings/s; then, over the failover
 * alone, per binding: the control plane's reconciles, the API server's write requests and 409
 * conflicts (by resource, from kube-apiserver's own `apiserver_request_total`), and the control
 * plane's CPU seconds; and the writes of bindings and Works that changed nothing (successful
 * writes minus the changes a watch saw), and each controller's reconciles.
 *
 * Then, on the same API server, its floor for the same writes (unless `--no-floor`): the control
 * plane stopped, this process alone makes the failover's writes (api-floor.ts), with the Events,
 * without, without with a watch of every binding and Work open, and without once more (the
 * second over the first is the floor's own spread); the seconds from the taint until every
 * binding moved, over each floor; and the move over the floor of its state writes as
 * the product of kube-apiserver's extra CPU for the move's writes and the share of the cores the
 * control plane's CPU left it.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { AppsV1Api } from '@kubernetes/client-node';
import {
  resourceBindingKind,
  workKind,
  type PropagationPolicy,
  type ResourceBinding,
  type Work,
} from '@kf/api';
import { WatchCache, type KubeObject, type ResourceDescriptor } from '@kf/kube';
import { createLogger } from '@kf/runtime';
import {
  SimulatedMembers,
  demoDeployment,
  dividedByStaticWeights,
  startFailoverFederation,
  type FailoverFederation,
} from '@kf/testing';
import {
  apiReads,
  apiServerMetrics,
  apiWrites,
  controlPlaneTotals,
  controllerBreakdown,
  type ControlPlaneTotals,
  grownSince,
  metricSum,
  inParallel,
  placementOf,
  sumOf,
  type Samples,
  waitForIdle,
} from './support.ts';
import { workNameFor } from '../src/names.ts';
import { replayFailoverWrites } from './api-floor.ts';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'no-floor': { type: 'boolean', default: false },
    'floor-concurrency': { type: 'string', default: '32' },
  },
});
const BINDINGS = Number(positionals[0] ?? process.env['KF_BENCH_BINDINGS'] ?? 1_000);
const UPSTREAM_BINDINGS_PER_SECOND = 22;
const CPU = 'process_cpu_seconds_total';
const NAMESPACE = 'default';
const LABEL = { bench: 'reschedule' };

function log(msg: string): void {
  process.stderr.write(`[reschedule.bench] ${msg}\n`);
}

/** Bindings of the bench's namespace whose placement is `wanted`, as the watch shows them now. */
function countPlaced(bindings: Watched<ResourceBinding>, wanted: string): number {
  return bindings.cache.list().filter((b) => placementOf(b) === wanted).length;
}

/** Works of the bench's bindings per member, with the replicas their Deployment carries. */
function worksInPlace(works: Watched<Work>): { member1: number; member2Done: number } {
  let member1 = 0;
  let member2Done = 0;
  for (const w of works.cache.list()) {
    if (!(w.metadata.name ?? '').startsWith('app-')) continue;
    const ns = w.metadata.namespace ?? '';
    if (ns === 'karmada-es-member1') member1++;
    const manifest = w.spec.workload?.manifests?.[0] as { spec?: { replicas?: number } } | undefined;
    if (ns === 'karmada-es-member2' && manifest?.spec?.replicas === 2) member2Done++;
  }
  return { member1, member2Done };
}

/**
 * A resource as one watch shows it, and how many changes the watch reported since `countChanges()`:
 * a write that changes nothing is answered but reported to no watch, so writes minus changes are
 * the writes that were not needed. The bench observes through watches rather than by listing, so
 * that measuring does not load the API server it measures.
 */
interface Watched<T extends KubeObject> {
  readonly cache: WatchCache<T>;
  countChanges(): void;
  changes(): number;
  stop(): void;
}

async function watched<T extends KubeObject>(
  fed: FailoverFederation,
  resource: ResourceDescriptor,
  namespace?: string,
): Promise<Watched<T>> {
  const cache = new WatchCache<T>({
    kubeConfig: fed.controlPlaneKubeConfig(),
    resource,
    ...(namespace === undefined ? {} : { namespace }),
    log: createLogger({ component: 'bench', level: 'silent' }),
  });
  const stop = new AbortController();
  void cache.run(stop.signal);
  await cache.synced();
  let changes: number | undefined;
  cache.onEvent(() => {
    if (changes !== undefined) changes++;
  });
  return {
    cache,
    countChanges: () => {
      changes = 0;
    },
    changes: () => changes ?? 0,
    stop: () => {
      stop.abort();
    },
  };
}

/** One round of the floor: its seconds, and kube-apiserver's CPU seconds meanwhile. */
interface FloorFigures {
  readonly seconds: number;
  readonly apiCpu: number;
}

/**
 * After the failover, on the same API server: the control plane stopped, the failover's writes
 * made by this process alone (see api-floor.ts), in four rounds: with the Events the pipeline
 * records; without them; without them again, with a watch of every binding and every Work
 * open in this process as the control plane holds them (what any watch-fed control plane costs
 * the API server and the cores to learn of the writes, without deciding anything); and the second
 * round once more (the floor's own spread from one round to the next). Every binding is on member2
 * by then, with member1's Works kept for their graceful eviction tasks: the rounds move them to
 * member1, back, to member1 again and back, each write changing something.
 */
async function measureFloor(
  fed: FailoverFederation,
  placed: readonly ResourceBinding[],
  concurrency: number,
): Promise<{
  readonly withEvents: FloorFigures;
  readonly stateWrites: FloorFigures;
  readonly watched: FloorFigures;
  readonly stateWritesAgain: FloorFigures;
}> {
  await fed.controlPlaneProcess.stop();
  const kubeConfig = fed.controlPlaneKubeConfig();
  const manifests = pipelineManifests(placed);
  const bytes = [...manifests.values()].reduce((n, m) => n + JSON.stringify(m).length, 0) / manifests.size;
  log(
    `the floor writes each Work's Deployment as the pipeline did: ${bytes.toFixed(0)} bytes of JSON on average`,
  );
  let rounds = 0;
  const round = async (
    from: string,
    to: string,
    eventsPerBinding: number,
    watches: boolean,
  ): Promise<FloorFigures> => {
    rounds += 1;
    const open = watches
      ? await Promise.all([watched<ResourceBinding>(fed, resourceBindingKind), watched<Work>(fed, workKind)])
      : [];
    const beforeText = await apiServerMetrics(fed);
    const before = apiWrites(beforeText);
    const r = await replayFailoverWrites(kubeConfig, placed, {
      from,
      to,
      eventsPerBinding,
      concurrency,
      manifests,
      mark: String(rounds),
    });
    const afterText = await apiServerMetrics(fed);
    for (const w of open) w.stop();
    const counted = sumOf(grownSince(apiWrites(afterText), before));
    const apiCpu = (metricSum(afterText, CPU) ?? 0) - (metricSum(beforeText, CPU) ?? 0);
    process.stdout.write(
      `floor bindings=${placed.length} events_per_binding=${eventsPerBinding} concurrency=${concurrency} ` +
        `watches=${watches ? 'bindings,works' : 'none'} seconds=${r.seconds.toFixed(2)} writes=${r.writes} ` +
        `api_writes=${counted} writes_per_s=${(r.writes / r.seconds).toFixed(0)} apiserver_cpu_s=${apiCpu.toFixed(1)}\n`,
    );
    return { seconds: r.seconds, apiCpu };
  };
  const withEvents = await round('member2', 'member1', 5, false);
  const stateWrites = await round('member1', 'member2', 0, false);
  const watchedRound = await round('member2', 'member1', 0, true);
  // The second round again: how far it strays from the second is the floor's own spread.
  const stateWritesAgain = await round('member1', 'member2', 0, false);
  return { withEvents, stateWrites, watched: watchedRound, stateWritesAgain };
}

/**
 * Each binding's Deployment as the pipeline wrote it into its member2 Work, by the binding's
 * `namespace/name`: the floor writes Works of the same size.
 */
function pipelineManifests(placed: readonly ResourceBinding[]): ReadonlyMap<string, object> {
  const out = new Map<string, object>();
  for (const b of placed) {
    const name = workNameFor('deployment', b.spec.resource.name, b.spec.resource.namespace);
    const manifest = worksWatch.cache.get(`karmada-es-member2/${name}`)?.spec.workload?.manifests?.[0];
    if (manifest !== undefined) out.set(`${b.metadata.namespace ?? ''}/${b.metadata.name ?? ''}`, manifest);
  }
  if (out.size !== placed.length)
    throw new Error(`${placed.length - out.size} bindings have no member2 Work`);
  return out;
}

/**
 * The move over the floor of its state writes, as two factors whose product it is when
 * kube-apiserver is the limit: how much more CPU kube-apiserver spent on the move's writes than on
 * the floor's (serving the control plane's watches, Leases, its Events), and how much less of the
 * two cores it had meanwhile (the control plane's own CPU beside it).
 */
function printFloorShares(move: MoveFigures, floor: FloorFigures): void {
  const work = move.apiCpu / floor.apiCpu;
  const cores = floor.apiCpu / floor.seconds / (move.apiCpu / move.seconds);
  process.stdout.write(
    `move / floor: ${(move.seconds / floor.seconds).toFixed(2)} = kube-apiserver CPU ${work.toFixed(2)} ` +
      `(${move.apiCpu.toFixed(1)} s against ${floor.apiCpu.toFixed(1)} s) x its share of the cores ${cores.toFixed(2)} ` +
      `(${(floor.apiCpu / floor.seconds).toFixed(2)} cores against ${(move.apiCpu / move.seconds).toFixed(2)}; ` +
      `the control plane ${(move.controlPlaneCpu / move.seconds).toFixed(2)})\n`,
  );
}

const fed = await startFailoverFederation({
  members: 0,
  agents: false,
  timing: { taintHoldSeconds: 0 },
  logLevel: 'warn',
  // This process plays the agents: it should not also carry the control plane's traffic.
  proxies: false,
});
const members = new SimulatedMembers(fed.controlPlaneKubeConfig());
const bindingsWatch = await watched<ResourceBinding>(fed, resourceBindingKind, NAMESPACE);
const worksWatch = await watched<Work>(fed, workKind);
try {
  for (const name of ['member1', 'member2', 'member3']) await members.register(name);
  const policy: PropagationPolicy = {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: 'bench', namespace: NAMESPACE },
    spec: {
      resourceSelectors: [
        { apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: LABEL } },
      ],
      placement: dividedByStaticWeights({ member1: 1, member2: 1 }),
      failover: { cluster: { purgeMode: 'Gracefully' } },
    },
  };
  await fed.policies.create(policy);
  const apps = fed.controlPlaneKubeConfig().makeApiClient(AppsV1Api);
  const createdAt = performance.now();
  await inParallel(BINDINGS, async (i) => {
    const d = demoDeployment(`app-${String(i).padStart(5, '0')}`, 2, NAMESPACE);
    d.metadata = { ...d.metadata, labels: { ...d.metadata?.labels, ...LABEL } };
    await apps.createNamespacedDeployment({ namespace: NAMESPACE, body: d });
  });
  for (;;) {
    const placed = countPlaced(bindingsWatch, 'member1:1,member2:1');
    if (placed === BINDINGS) break;
    if (performance.now() - createdAt > 15 * 60_000) throw new Error(`only ${placed} bindings placed`);
    await new Promise((r) => setTimeout(r, 500));
  }
  log(
    `${BINDINGS} bindings placed member1:1,member2:1 in ${((performance.now() - createdAt) / 1000).toFixed(1)} s`,
  );

  // Events of the set-up included: a quiet fleet fails, not one still writing its last Events.
  await waitForIdle(fed.controlPlaneUrl, performance.now(), { timeoutMs: 10 * 60_000, events: true });
  log(
    `control plane idle ${((performance.now() - createdAt) / 1000).toFixed(1)} s after the first Deployment`,
  );

  const failover = await measureFailover();
  if (!args['no-floor']) {
    const floor = await measureFloor(fed, bindingsWatch.cache.list(), Number(args['floor-concurrency']));
    const over = (f: FloorFigures): string => (failover.afterTaintSeconds / f.seconds).toFixed(2);
    process.stdout.write(
      `reschedule / floor: ${over(floor.stateWrites)} (with its Events: ${over(floor.withEvents)}; ` +
        `with the watches open: ${over(floor.watched)}; over the same floor again: ${over(floor.stateWritesAgain)})\n` +
        `floor again / floor: ${(floor.stateWritesAgain.seconds / floor.stateWrites.seconds).toFixed(2)}\n`,
    );
    printFloorShares(failover.move, floor.stateWrites);
  }
} finally {
  bindingsWatch.stop();
  worksWatch.stop();
  members.stop();
  await fed.destroy();
}

/**
 * The failover itself: member1 reports not ready; every binding must leave it. The seconds from
 * the NoExecute taint until every binding had its new placement.
 */
async function measureFailover(): Promise<{
  readonly afterTaintSeconds: number;
  readonly move: MoveFigures;
}> {
  bindingsWatch.countChanges();
  worksWatch.countChanges();
  const apiBefore = await apiServerMetrics(fed);
  const writesBefore = apiWrites(apiBefore);
  const totalsBefore = await controlPlaneTotals(fed.controlPlaneUrl);
  // The failure: member1's agent reports it not ready.
  const failedAt = performance.now();
  await members.setCondition('member1', {
    type: 'Ready',
    status: 'False',
    reason: 'ClusterNotReachable',
    message: 'cluster is not reachable',
  });
  // When the NoExecute taint lands (one GET every 50 ms, beside the wait below).
  const tainted = (async (): Promise<number> => {
    for (;;) {
      const member1 = await fed.clusters.get('member1');
      if ((member1.spec.taints ?? []).some((t) => t.effect === 'NoExecute')) return performance.now();
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  let firstMovedAt: number | undefined;
  let moved: number;
  for (;;) {
    moved = countPlaced(bindingsWatch, 'member2:2');
    if (moved > 0 && firstMovedAt === undefined) firstMovedAt = performance.now();
    if (moved === BINDINGS) break;
    if (performance.now() - failedAt > 15 * 60_000) throw new Error(`only ${moved} bindings rescheduled`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const movedAt = performance.now();
  const [apiAtMove, totalsAtMove] = await Promise.all([
    apiServerMetrics(fed),
    controlPlaneTotals(fed.controlPlaneUrl),
  ]);
  const seconds = (movedAt - failedAt) / 1000;
  const taintedAt = await tainted;
  // member1's Works stay while their graceful eviction tasks wait for health reports, which
  // simulated members do not send: in place means member2's Works all carry the new replicas.
  for (;;) {
    const works = worksInPlace(worksWatch);
    if (works.member2Done === BINDINGS) break;
    if (performance.now() - failedAt > 15 * 60_000)
      throw new Error(`Works not in place: ${JSON.stringify(works)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const worksSeconds = (performance.now() - failedAt) / 1000;
  const rate = BINDINGS / seconds;
  const firstSeconds = ((firstMovedAt ?? failedAt) - failedAt) / 1000;
  process.stdout.write(
    `reschedule bindings=${BINDINGS} seconds=${seconds.toFixed(2)} works_in_place_s=${worksSeconds.toFixed(2)} ` +
      `first_moved_s=${firstSeconds.toFixed(2)} tainted_s=${((taintedAt - failedAt) / 1000).toFixed(2)} ` +
      `after_taint_s=${((movedAt - taintedAt) / 1000).toFixed(2)} ` +
      `bindings_per_s=${rate.toFixed(1)} upstream_per_s=${UPSTREAM_BINDINGS_PER_SECOND} ` +
      `ratio=${(rate / UPSTREAM_BINDINGS_PER_SECOND).toFixed(2)}\n`,
  );
  const move = printMoveCosts({ apiBefore, totalsBefore }, { api: apiAtMove, totals: totalsAtMove, seconds });
  await printCosts({ apiBefore, writesBefore, totalsBefore });
  return { afterTaintSeconds: (movedAt - taintedAt) / 1000, move };
}

/** The move, from the failure until every binding had its new placement. */
interface MoveFigures {
  readonly seconds: number;
  /** CPU seconds meanwhile. */
  readonly apiCpu: number;
  readonly controlPlaneCpu: number;
}

/**
 * The CPU of the move alone: the control plane's and kube-apiserver's (the floor's figure to read
 * it against), and the writes made meanwhile.
 */
function printMoveCosts(
  before: { readonly apiBefore: string; readonly totalsBefore: ControlPlaneTotals },
  atMove: { readonly api: string; readonly totals: ControlPlaneTotals; readonly seconds: number },
): MoveFigures {
  const apiCpu = (metricSum(atMove.api, CPU) ?? 0) - (metricSum(before.apiBefore, CPU) ?? 0);
  const controlPlaneCpu = atMove.totals.cpu - before.totalsBefore.cpu;
  const writes = grownSince(apiWrites(atMove.api), apiWrites(before.apiBefore));
  const state = sumOf(writes, (k) => / (resourcebindings|resourcebindings\/status|works) 20\d$/.test(k));
  process.stdout.write(
    `over the move: seconds=${atMove.seconds.toFixed(2)} controlplane_cpu_s=${controlPlaneCpu.toFixed(1)} ` +
      `apiserver_cpu_s=${apiCpu.toFixed(1)} state_writes=${String(state)} ` +
      `events=${String(sumOf(writes, (k) => k.startsWith('POST events ')))}\n`,
  );
  return { seconds: atMove.seconds, apiCpu, controlPlaneCpu };
}

/** What the failover cost: per binding, and the writes that changed nothing. */
async function printCosts(before: {
  readonly apiBefore: string;
  readonly writesBefore: Samples;
  readonly totalsBefore: ControlPlaneTotals;
}): Promise<void> {
  const { apiBefore, writesBefore, totalsBefore } = before;
  // Events included: they are writes of the failover too, only later.
  await waitForIdle(fed.controlPlaneUrl, performance.now(), { timeoutMs: 10 * 60_000, events: true });
  const totals = await controlPlaneTotals(fed.controlPlaneUrl);
  const apiAfter = await apiServerMetrics(fed);
  const writes = grownSince(apiWrites(apiAfter), writesBefore);
  const reads = grownSince(apiReads(apiAfter), apiReads(apiBefore));
  const apiCpu = (metricSum(apiAfter, CPU) ?? 0) - (metricSum(apiBefore, CPU) ?? 0);
  const sum = (pick?: (key: string) => boolean): number => sumOf(writes, pick);
  const perBinding = (n: number): string => (n / BINDINGS).toFixed(2);
  process.stdout.write(
    `per binding over the failover: reconciles=${perBinding(totals.reconciles - totalsBefore.reconciles)} ` +
      `writes=${perBinding(sum())} reads=${perBinding(sumOf(reads))} conflicts=${perBinding(sum((k) => k.endsWith(' 409')))} ` +
      `work_conflicts=${String(sum((k) => k.endsWith(' 409') && k.includes(' works')))} ` +
      `controlplane_cpu_s=${(totals.cpu - totalsBefore.cpu).toFixed(1)} apiserver_cpu_s=${apiCpu.toFixed(1)}\n`,
  );
  // Successful writes of bindings (spec and status) and Works against the changes watches saw.
  const succeeded = (resource: string) => (k: string) => k.includes(` ${resource}`) && / 20\d$/.test(k);
  process.stdout.write(
    `writes that changed nothing: bindings=${String(sum(succeeded('resourcebindings')) - bindingsWatch.changes())} ` +
      `works=${String(sum(succeeded('works')) - worksWatch.changes())}\n`,
  );
  for (const [k, v] of [...writes].sort((a, b) => b[1] - a[1])) log(`api writes ${k}: ${String(v)}`);
  for (const [k, v] of [...reads].sort((a, b) => b[1] - a[1])) log(`api reads ${k}: ${String(v)}`);
  for (const line of controllerBreakdown(totals, totalsBefore)) log(`over the failover: ${line}`);
}
