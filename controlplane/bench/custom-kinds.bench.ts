/**
 * What a custom kind's ResourceInterpreterCustomization costs the control plane at scale: the
 * same pipeline run for Deployments (built-in replica, revision and status rules, no Lua) and then
 * for OpenKruise CloneSets with Karmada's own CloneSet customization, unchanged (GetReplicas in the
 * resource-detector, ReviseReplica for each cluster's Work, AggregateStatus into the template):
 *
 *   node controlplane/bench/custom-kinds.bench.ts [--bindings=1000] [--members=10]
 *
 * (KF_CUSTOM_BINDINGS and KF_CUSTOM_MEMBERS set the defaults.) `members` Pull clusters member001..
 * are simulated as in scale.bench.ts (status and Leases written by this process, nothing applied);
 * each serves both kinds. Template i of either kind, of 2 replicas with the same pod template
 * (requests 100m CPU, 64Mi), carries pair label i mod `members`; one PropagationPolicy per kind and
 * pair divides it by static weights 1:1 over member p+1 and the next one round the ring. Per kind,
 * two lines:
 *
 *   place   every binding scheduled as its policy says and both Works of every binding written,
 *           each Work's manifest with `spec.replicas` revised to its cluster's share (1); the
 *           control plane's CPU seconds until its work queues are idle, its reconciles and API
 *           writes per binding (Events included, once their paced queue has drained), its RSS and
 *           heap afterwards
 *   status  this process reports every Work applied with the status the kind's reflection would
 *           give for 1 replica ready (as an agent would); seconds until every template's status
 *           is aggregated (replicas 2, ready 2, observedGeneration at the template's generation),
 *           with the same cost figures
 *
 * A last line gives CloneSet/Deployment ratios. The control plane exposes no metric of its own for
 * interpreter calls, so the reconcile seconds of the workload controllers that run the scripts are
 * printed instead. Before each kind, one warm-up template goes through (its kind watched, the
 * customization loaded) and every queue, Events included, drains; it is not counted.
 *
 * Bindings, Works and templates are read page by page (500 at a time) and counted, never held
 * whole, so this process stays small whatever the size.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  annotations,
  resourceInterpreterCustomizationKind,
  type PropagationPolicy,
  type ResourceInterpreterCustomization,
  type Work,
} from '@kf/api';
import { parseCustomizations } from '@kf/interpreter';
import { thirdPartyCustomizationsFolder } from '@kf/interpreter/testing';
import { ResourceClient, type ResourceDescriptor } from '@kf/kube';
import {
  SimulatedMembers,
  appliedWorkStatus,
  demoDeployment,
  dividedByStaticWeights,
  freeFormCrd,
  installCrd,
  servedAs,
  startFailoverFederation,
  type FailoverFederation,
} from '@kf/testing';
import type { ResourceTemplate } from '../src/workload/template.ts';
import {
  apiServerMetrics,
  apiWrites,
  controlPlaneTotals,
  grownSince,
  inParallel,
  metricSum,
  metricsText,
  placementOf,
  runSize,
  sleep,
  sumOf,
  benchOutput,
  forEachListed,
  mib,
  secs,
  since,
  waitForIdle,
  type Samples,
} from './support.ts';

const { bindings: BINDINGS, members: MEMBERS } = runSize('KF_CUSTOM', { bindings: 1000, members: 10 });
const NAMESPACE = 'default';
const LABEL = 'bench';
const PAIR_LABEL = 'custom-kinds-pair';
const REPLICAS = 2;
/** Upstream's Lease renewal (a quarter of its 40 s duration) and monitor grace period. */
const RENEW_INTERVAL_MS = 10_000;
const LEASE_SECONDS = 40;
const MONITOR_GRACE_SECONDS = 40;
/** The workload controllers, the three that run a custom kind's scripts among them. */
const PIPELINE = ['resource-detector', 'scheduler', 'binding', 'binding-status'] as const;

const KRUISE_GROUP = 'apps.kruise.io';
const KRUISE_VERSION = 'v1alpha1';

/** One of the two kinds compared, and what an agent reflects of one copy of 1 replica, ready. */
interface KindUnderTest {
  readonly kind: 'Deployment' | 'CloneSet';
  readonly group: string;
  readonly version: string;
  readonly resource: ResourceDescriptor;
  /** Template names are `<prefix><index>`: Works (named after their template) are told apart. */
  readonly prefix: string;
  readonly reflected: (name: string, templateGeneration: number) => Record<string, unknown>;
}

/** What the built-in reflection keeps of a member Deployment (see deployment-status.ts). */
const DEPLOYMENT: KindUnderTest = {
  kind: 'Deployment',
  group: 'apps',
  version: 'v1',
  resource: { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true, kind: 'Deployment' },
  prefix: 'deploy-',
  reflected: (_name, templateGeneration) => ({
    replicas: 1,
    readyReplicas: 1,
    updatedReplicas: 1,
    availableReplicas: 1,
    observedGeneration: 1,
    generation: 1,
    resourceTemplateGeneration: templateGeneration,
  }),
};

/** What Karmada's CloneSet statusReflection script returns for a member CloneSet. */
const CLONESET: KindUnderTest = {
  kind: 'CloneSet',
  group: KRUISE_GROUP,
  version: KRUISE_VERSION,
  resource: {
    group: KRUISE_GROUP,
    version: KRUISE_VERSION,
    plural: 'clonesets',
    namespaced: true,
    kind: 'CloneSet',
  },
  prefix: 'clone-',
  reflected: (name, templateGeneration) => ({
    replicas: 1,
    readyReplicas: 1,
    updatedReplicas: 1,
    availableReplicas: 1,
    updatedReadyReplicas: 1,
    expectedUpdatedReplicas: 1,
    updateRevision: `${name}-rev1`,
    currentRevision: `${name}-rev1`,
    labelSelector: `app=${name}`,
    observedGeneration: 1,
    generation: 1,
    resourceTemplateGeneration: templateGeneration,
  }),
};

const { log, print, untilPhase } = benchOutput('custom-kinds.bench');
const perBinding = (n: number): string => (n / BINDINGS).toFixed(2);

const memberName = (i: number): string => `member${String(i + 1).padStart(3, '0')}`;
const templateName = (k: KindUnderTest, i: number): string => `${k.prefix}${String(i).padStart(6, '0')}`;
/** The two members of pair p: member p+1 and the next one round the ring. */
const pairOf = (p: number): [string, string] => [memberName(p), memberName((p + 1) % MEMBERS)];
const apiVersionOf = (k: KindUnderTest): string => `${k.group}/${k.version}`;

/** What the binding of template `<prefix><i>` should be placed on; undefined for other bindings. */
function wantedPlacement(k: KindUnderTest, bindingName: string): string | undefined {
  const m = new RegExp(`^${k.prefix}(\\d+)-${k.kind.toLowerCase()}$`).exec(bindingName);
  if (m === null) return undefined;
  return pairOf(Number(m[1]) % MEMBERS)
    .map((c) => `${c}:1`)
    .sort()
    .join(',');
}

/** The template's manifest in a Work (the only one the pipeline puts there). */
function manifestOf(w: Work): ResourceTemplate | undefined {
  return w.spec.workload?.manifests?.[0] as ResourceTemplate | undefined;
}

async function countScheduled(fed: FailoverFederation, k: KindUnderTest): Promise<number> {
  let n = 0;
  await forEachListed(fed.bindings, NAMESPACE, (b) => {
    const wanted = wantedPlacement(k, b.metadata.name ?? '');
    if (wanted !== undefined && placementOf(b) === wanted) n++;
  });
  return n;
}

/** Works of the kind's templates whose manifest carries the cluster's share: 1 replica of 2. */
async function countRevisedWorks(fed: FailoverFederation, k: KindUnderTest): Promise<number> {
  let n = 0;
  await forEachListed(fed.works, undefined, (w) => {
    if (!(w.metadata.name ?? '').startsWith(k.prefix)) return;
    if ((manifestOf(w)?.spec?.['replicas'] as number | undefined) === 1) n++;
  });
  return n;
}

/** Whether the template's status is the sum of two copies of 1 ready replica, fully observed. */
function isAggregated(t: ResourceTemplate): boolean {
  const s = t.status ?? {};
  return (
    s['replicas'] === REPLICAS &&
    s['readyReplicas'] === REPLICAS &&
    s['availableReplicas'] === REPLICAS &&
    s['observedGeneration'] === t.metadata.generation
  );
}

async function countAggregated(
  templates: ResourceClient<ResourceTemplate>,
  k: KindUnderTest,
): Promise<number> {
  let n = 0;
  await forEachListed(templates, NAMESPACE, (t) => {
    if ((t.metadata.name ?? '').startsWith(k.prefix) && isAggregated(t)) n++;
  });
  return n;
}

/** Template `name` of the kind: 2 replicas, the same pod template for both kinds. */
function template(k: KindUnderTest, name: string, pair: number): ResourceTemplate {
  const { spec } = demoDeployment(name, REPLICAS, NAMESPACE);
  return {
    apiVersion: apiVersionOf(k),
    kind: k.kind,
    metadata: {
      name,
      namespace: NAMESPACE,
      labels: { app: name, [LABEL]: k.kind.toLowerCase(), [PAIR_LABEL]: String(pair) },
    },
    spec: { ...spec },
  };
}

function pairPolicy(k: KindUnderTest, p: number): PropagationPolicy {
  const [a, b] = pairOf(p);
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: `${k.prefix}${p}`, namespace: NAMESPACE },
    spec: {
      resourceSelectors: [
        {
          apiVersion: apiVersionOf(k),
          kind: k.kind,
          labelSelector: { matchLabels: { [LABEL]: k.kind.toLowerCase(), [PAIR_LABEL]: String(p) } },
        },
      ],
      placement: dividedByStaticWeights({ [a]: 1, [b]: 1 }),
    },
  };
}

/** What the control plane and kube-apiserver have done so far, to subtract phase by phase. */
interface Totals {
  readonly reconciles: number;
  readonly cpu: number;
  readonly apiServerCpu: number;
  readonly writes: Samples;
  /** Reconcile seconds per workload controller. */
  readonly pipelineSeconds: ReadonlyMap<string, number>;
}

function reconcileSecondsOf(text: string, controller: string): number {
  return (
    metricSum(
      text
        .split('\n')
        .filter((l) => l.includes(`controller="${controller}"`))
        .join('\n'),
      'karmada_failover_reconcile_duration_seconds_sum',
    ) ?? 0
  );
}

async function totals(ctx: Context): Promise<Totals> {
  const [cp, text, apiText] = await Promise.all([
    controlPlaneTotals(ctx.url),
    metricsText(ctx.url),
    apiServerMetrics(ctx.fed),
  ]);
  return {
    ...cp,
    apiServerCpu: metricSum(apiText, 'process_cpu_seconds_total') ?? 0,
    writes: apiWrites(apiText),
    pipelineSeconds: new Map(PIPELINE.map((c) => [c, reconcileSecondsOf(text ?? '', c)])),
  };
}

/**
 * The control plane's writes: without this process's own (the simulated members' Leases, the
 * templates it creates, the Work statuses it reports as the agents) and kube-apiserver's own
 * Endpoints.
 */
function controlPlaneWrites(
  grown: Samples,
  k: KindUnderTest,
): { all: number; events: number; conflicts: number } {
  const own = (key: string): boolean =>
    key.includes(' leases ') ||
    key.includes(' works/status ') ||
    key.includes(' endpoints ') ||
    key.startsWith(`POST ${k.resource.plural} `);
  return {
    all: sumOf(grown, (key) => !own(key)),
    events: sumOf(grown, (key) => key.includes(' events ')),
    conflicts: sumOf(grown, (key) => !own(key) && key.endsWith(' 409')),
  };
}

/** The cost figures of a phase, from `before` to `cpuAt` (CPU, reconciles) and `after` (writes). */
interface Cost {
  readonly cpu: number;
  readonly apiServerCpu: number;
  readonly reconciles: number;
  readonly writes: number;
  readonly eventWrites: number;
  readonly line: string;
}

function costOf(k: KindUnderTest, spans: { before: Totals; cpuAt: Totals; after: Totals }): Cost {
  const { before, cpuAt, after } = spans;
  const grown = grownSince(after.writes, before.writes);
  for (const [key, v] of [...grown].sort((a, b) => b[1] - a[1])) log(`${k.kind} api writes ${key}: ${v}`);
  const writes = controlPlaneWrites(grown, k);
  const cpu = cpuAt.cpu - before.cpu;
  const apiServerCpu = cpuAt.apiServerCpu - before.apiServerCpu;
  const reconciles = cpuAt.reconciles - before.reconciles;
  const pipeline = PIPELINE.map(
    (c) => `${c}_s=${secs((cpuAt.pipelineSeconds.get(c) ?? 0) - (before.pipelineSeconds.get(c) ?? 0))}`,
  ).join(' ');
  const line =
    `controlplane_cpu_s=${secs(cpu)} kube_apiserver_cpu_s=${secs(apiServerCpu)} ` +
    `reconciles_per_binding=${perBinding(reconciles)} writes_per_binding=${perBinding(writes.all)} ` +
    `event_writes_per_binding=${perBinding(writes.events)} conflicts_per_binding=${perBinding(writes.conflicts)} ` +
    `reconcile_seconds: ${pipeline}`;
  return { cpu, apiServerCpu, reconciles, writes: writes.all, eventWrites: writes.events, line };
}

/** The control plane's RSS and heap: the median of three samples a second apart. */
async function memory(url: string): Promise<string> {
  const rss: number[] = [];
  const heap: number[] = [];
  for (let i = 0; i < 3; i++) {
    if (i > 0) await sleep(1_000);
    const text = (await metricsText(url)) ?? '';
    rss.push(metricSum(text, 'process_resident_memory_bytes') ?? 0);
    heap.push(metricSum(text, 'nodejs_heap_size_used_bytes') ?? 0);
  }
  const median = (xs: number[]): number => xs.sort((a, b) => a - b)[1] ?? 0;
  return `controlplane_rss_mib=${mib(median(rss))} controlplane_heap_mib=${mib(median(heap))}`;
}

interface Context {
  readonly fed: FailoverFederation;
  readonly members: SimulatedMembers;
  readonly url: string;
}

interface PhaseFigures {
  readonly seconds: number;
  readonly cost: Cost;
}

/**
 * One template of the kind through the pipeline before anything is timed: the control plane
 * watches the kind and has the customization loaded. Then every queue drains, Events included.
 */
async function warmUp(
  ctx: Context,
  k: KindUnderTest,
  templates: ResourceClient<ResourceTemplate>,
): Promise<void> {
  const name = `warmup-${k.kind.toLowerCase()}`;
  const at = performance.now();
  await templates.create(template(k, name, 0));
  const wanted = pairOf(0)
    .map((c) => `${c}:1`)
    .sort()
    .join(',');
  const placed = async (): Promise<number> => {
    const b = await ctx.fed.bindings.find(`${NAMESPACE}/${name}-${k.kind.toLowerCase()}`);
    return b !== undefined && placementOf(b) === wanted && b.spec.replicaRequirements !== undefined ? 1 : 0;
  };
  await untilPhase(`${name} placed`, placed, 1, { from: at, pauseMs: 200 });
  await waitForIdle(ctx.url, at, { events: true });
  log(`${k.kind}: warm-up placed and queues drained in ${secs(since(at))} s`);
}

async function place(
  ctx: Context,
  k: KindUnderTest,
  templates: ResourceClient<ResourceTemplate>,
): Promise<PhaseFigures> {
  const { fed, url } = ctx;
  const before = await totals(ctx);
  const createdAt = performance.now();
  await inParallel(BINDINGS, (i) => templates.create(template(k, templateName(k, i), i % MEMBERS)));
  const created = since(createdAt);
  const from = { from: createdAt, pauseMs: 1_000 };
  const scheduled = await untilPhase(
    `${k.kind} bindings scheduled`,
    () => countScheduled(fed, k),
    BINDINGS,
    from,
  );
  const works = await untilPhase(
    `${k.kind} Works revised`,
    () => countRevisedWorks(fed, k),
    2 * BINDINGS,
    from,
  );
  const idle = await waitForIdle(url, createdAt);
  const cpuAt = await totals(ctx);
  const eventsIdle = await waitForIdle(url, createdAt, { events: true });
  const cost = costOf(k, { before, cpuAt, after: await totals(ctx) });
  print(
    `place kind=${k.kind} bindings=${BINDINGS} members=${MEMBERS} creates_s=${secs(created)} ` +
      `scheduled_s=${secs(scheduled)} works_s=${secs(works)} bindings_per_s=${(BINDINGS / works).toFixed(1)} ` +
      `idle_s=${secs(idle)} events_idle_s=${secs(eventsIdle)} ${cost.line} ${await memory(url)}`,
  );
  return { seconds: works, cost };
}

/** Every Work of the kind's templates, as `namespace/name` and the status its agent would report. */
async function reportsFor(
  fed: FailoverFederation,
  k: KindUnderTest,
): Promise<{ key: string; patch: object }[]> {
  const reports: { key: string; patch: object }[] = [];
  await forEachListed(fed.works, undefined, (w) => {
    const manifest = manifestOf(w);
    const name = manifest?.metadata.name ?? '';
    if (!(w.metadata.name ?? '').startsWith(k.prefix) || manifest === undefined) return;
    const generation = Number(manifest.metadata.annotations?.[annotations.resourceTemplateGeneration] ?? '1');
    reports.push({
      key: `${w.metadata.namespace ?? ''}/${w.metadata.name ?? ''}`,
      patch: workStatus(k, name, generation),
    });
  });
  return reports;
}

/** What an agent writes for a Work applied whose object reflects 1 ready replica. */
function workStatus(k: KindUnderTest, name: string, templateGeneration: number): object {
  const object = { group: k.group, version: k.version, kind: k.kind, namespace: NAMESPACE, name };
  return {
    status: appliedWorkStatus(object, { health: 'Healthy', status: k.reflected(name, templateGeneration) }),
  };
}

async function aggregate(
  ctx: Context,
  k: KindUnderTest,
  templates: ResourceClient<ResourceTemplate>,
): Promise<PhaseFigures> {
  const { fed, url } = ctx;
  const reports = await reportsFor(fed, k);
  const before = await totals(ctx);
  const reportedAt = performance.now();
  await inParallel(reports.length, (i) => {
    const r = reports[i];
    return r === undefined ? Promise.resolve() : fed.works.patchStatus(r.key, r.patch);
  });
  const reported = since(reportedAt);
  const aggregated = await untilPhase(
    `${k.kind} templates aggregated`,
    () => countAggregated(templates, k),
    BINDINGS,
    { from: reportedAt, pauseMs: 1_000 },
  );
  const idle = await waitForIdle(url, reportedAt);
  const cpuAt = await totals(ctx);
  await waitForIdle(url, reportedAt, { events: true });
  const cost = costOf(k, { before, cpuAt, after: await totals(ctx) });
  print(
    `status kind=${k.kind} works_reported=${reports.length} reported_s=${secs(reported)} ` +
      `aggregated_s=${secs(aggregated)} templates_per_s=${(BINDINGS / aggregated).toFixed(1)} ` +
      `idle_s=${secs(idle)} ${cost.line} ${await memory(url)}`,
  );
  return { seconds: aggregated, cost };
}

async function runKind(
  ctx: Context,
  k: KindUnderTest,
): Promise<{ place: PhaseFigures; status: PhaseFigures }> {
  const templates = new ResourceClient<ResourceTemplate>(ctx.fed.controlPlaneKubeConfig(), k.resource);
  await inParallel(MEMBERS, (p) => ctx.fed.policies.create(pairPolicy(k, p)));
  await warmUp(ctx, k, templates);
  const placed = await place(ctx, k, templates);
  const status = await aggregate(ctx, k, templates);
  return { place: placed, status };
}

/** The CloneSet CRD, Karmada's customization for it, and the members (serving both kinds). */
async function prepare(ctx: Context): Promise<void> {
  const kc = ctx.fed.controlPlaneKubeConfig();
  await installCrd(
    kc,
    servedAs(freeFormCrd(KRUISE_GROUP, 'CloneSet', 'clonesets', 'Namespaced'), KRUISE_VERSION),
  );
  const folder = join(await thirdPartyCustomizationsFolder(), KRUISE_GROUP, KRUISE_VERSION, 'CloneSet');
  const [customization] = parseCustomizations(await readFile(join(folder, 'customizations.yaml'), 'utf8'));
  if (customization === undefined) throw new Error(`no customization in ${folder}`);
  await new ResourceClient<ResourceInterpreterCustomization>(kc, resourceInterpreterCustomizationKind).create(
    customization,
  );
  // Room for every copy whatever the ratio of bindings to members.
  const pods = Math.max(10_000, Math.ceil((8 * BINDINGS) / MEMBERS));
  await inParallel(MEMBERS, async (i) => {
    await ctx.members.register(memberName(i), pods);
    await ctx.members.clusters.patchStatus(memberName(i), {
      status: {
        apiEnablements: [DEPLOYMENT, CLONESET].map((k) => ({
          groupVersion: apiVersionOf(k),
          resources: [{ name: k.resource.plural, kind: k.kind }],
        })),
      },
    });
  });
}

const ratio = (a: number, b: number): string => (b === 0 ? 'n/a' : (a / b).toFixed(2));

function printRatios(
  d: { place: PhaseFigures; status: PhaseFigures },
  c: { place: PhaseFigures; status: PhaseFigures },
): void {
  print(
    `ratio CloneSet/Deployment place_time=${ratio(c.place.seconds, d.place.seconds)} ` +
      `place_cpu=${ratio(c.place.cost.cpu, d.place.cost.cpu)} ` +
      `place_writes_per_binding=${ratio(c.place.cost.writes, d.place.cost.writes)} ` +
      `status_time=${ratio(c.status.seconds, d.status.seconds)} ` +
      `status_cpu=${ratio(c.status.cost.cpu, d.status.cost.cpu)} ` +
      `status_writes_per_binding=${ratio(c.status.cost.writes, d.status.cost.writes)}`,
  );
}

const benchStartedAt = performance.now();
const fed = await startFailoverFederation({
  members: 0,
  agents: false,
  timing: { monitorGraceSeconds: MONITOR_GRACE_SECONDS },
  logLevel: 'warn',
  // This process plays the agents: it should not also carry the control plane's traffic.
  proxies: false,
});
const ctx: Context = {
  fed,
  members: new SimulatedMembers(fed.controlPlaneKubeConfig(), {
    renewIntervalMs: RENEW_INTERVAL_MS,
    leaseDurationSeconds: LEASE_SECONDS,
  }),
  url: fed.controlPlaneUrl,
};
try {
  log(`federation up in ${secs(since(benchStartedAt))} s`);
  await prepare(ctx);
  const deployments = await runKind(ctx, DEPLOYMENT);
  const clonesets = await runKind(ctx, CLONESET);
  printRatios(deployments, clonesets);
  print(
    `bench total_s=${secs(since(benchStartedAt))} bench_peak_rss_mib=${mib(process.resourceUsage().maxRSS * 1024)}`,
  );
} finally {
  ctx.members.stop();
  await fed.destroy();
}
