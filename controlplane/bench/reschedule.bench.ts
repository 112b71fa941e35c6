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
 * writes minus the changes a watch saw).
 */
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { AppsV1Api } from '@kubernetes/client-node';
import { resourceBindingKind, workKind, type PropagationPolicy, type ResourceBinding } from '@kf/api';
import { WatchCache, type KubeObject, type ResourceDescriptor } from '@kf/kube';
import { createLogger } from '@kf/runtime';
import {
  SimulatedMembers,
  demoDeployment,
  dividedByStaticWeights,
  startFailoverFederation,
  type FailoverFederation,
} from '@kf/testing';

const execFileAsync = promisify(execFile);

const BINDINGS = Number(process.argv[2] ?? process.env['KF_BENCH_BINDINGS'] ?? 1_000);
const UPSTREAM_BINDINGS_PER_SECOND = 22;
const NAMESPACE = 'default';
const CONCURRENCY = 16;
const LABEL = { bench: 'reschedule' };

function log(msg: string): void {
  process.stderr.write(`[reschedule.bench] ${msg}\n`);
}

async function inParallel(count: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

function placementOf(b: ResourceBinding): string {
  return (b.spec.clusters ?? [])
    .map((c) => `${c.name}:${c.replicas ?? 0}`)
    .sort()
    .join(',');
}

async function countPlaced(
  list: () => Promise<{ items: ResourceBinding[] }>,
  wanted: string,
): Promise<number> {
  const { items } = await list();
  return items.filter((b) => placementOf(b) === wanted).length;
}

/** Per controller: reconciles, their total seconds and retries, from the process's /metrics. */
async function controllerBreakdown(metricsUrl: string): Promise<string[]> {
  const text = await (await fetch(metricsUrl)).text();
  const per = new Map<string, { count: number; seconds: number; retries: number }>();
  const entry = (c: string) => {
    const e = per.get(c) ?? { count: 0, seconds: 0, retries: 0 };
    per.set(c, e);
    return e;
  };
  for (const line of text.split('\n')) {
    const m =
      /^karmada_failover_(reconcile_duration_seconds_(?:sum|count)|workqueue_retries_total)\{[^}]*controller="([^"]+)"[^}]*\} (\S+)$/.exec(
        line,
      );
    if (m === null) continue;
    const [, metric = '', controller = '', value = '0'] = m;
    const e = entry(controller);
    if (metric.endsWith('_sum')) e.seconds += Number(value);
    else if (metric.endsWith('_count')) e.count += Number(value);
    else e.retries += Number(value);
  }
  return [...per]
    .filter(([, e]) => e.count > 0)
    .map(([c, e]) => `${c}: ${e.count} reconciles, ${e.seconds.toFixed(1)} s, ${e.retries} retries`);
}

/** Sums of metric samples by a label set, e.g. `POST works 201`. */
type Samples = Map<string, number>;

/** kube-apiserver's write requests so far, by verb, resource and code (read with kubectl). */
async function apiWrites(fed: FailoverFederation): Promise<Samples> {
  const cp = fed.federation.controlPlane;
  const { stdout } = await execFileAsync(cp.kubectlPath, cp.kubectlArgs('get', '--raw', '/metrics'), {
    maxBuffer: 64 * 1024 * 1024,
  });
  const out: Samples = new Map();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const label = (name: string): string => new RegExp(`${name}="([^"]*)"`).exec(line)?.[1] ?? '';
    const verb = label('verb');
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(verb)) continue;
    const key = `${verb} ${label('resource')}${label('subresource') === '' ? '' : `/${label('subresource')}`} ${label('code')}`;
    out.set(key, (out.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}

/** The control plane's reconciles (all controllers) and CPU seconds so far, from its /metrics. */
async function controlPlaneTotals(metricsUrl: string): Promise<{ reconciles: number; cpuSeconds: number }> {
  const text = await (await fetch(metricsUrl)).text();
  let reconciles = 0;
  let cpuSeconds = 0;
  for (const line of text.split('\n')) {
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith('karmada_failover_reconcile_duration_seconds_count{')) reconciles += value;
    if (/^(karmada_failover_)?process_cpu_seconds_total /.test(line)) cpuSeconds = value;
  }
  return { reconciles, cpuSeconds };
}

function diff(after: Samples, before: Samples): Samples {
  const out: Samples = new Map();
  for (const [k, v] of after) if (v - (before.get(k) ?? 0) > 0) out.set(k, v - (before.get(k) ?? 0));
  return out;
}

/** Works of the bench's bindings per member, with the replicas their Deployment carries. */
async function worksInPlace(fed: FailoverFederation): Promise<{ member1: number; member2Done: number }> {
  const { items } = await fed.works.list();
  let member1 = 0;
  let member2Done = 0;
  for (const w of items) {
    if (!(w.metadata.name ?? '').startsWith('app-')) continue;
    const ns = w.metadata.namespace ?? '';
    if (ns === 'karmada-es-member1') member1++;
    const manifest = w.spec.workload?.manifests?.[0] as { spec?: { replicas?: number } } | undefined;
    if (ns === 'karmada-es-member2' && manifest?.spec?.replicas === 2) member2Done++;
  }
  return { member1, member2Done };
}

/**
 * Counts what the API server reports changed of a resource from now on: a write that changes
 * nothing is answered but reported to no watch, so writes minus changes are the writes that were
 * not needed.
 */
async function changeCounter(
  fed: FailoverFederation,
  resource: ResourceDescriptor,
): Promise<{ readonly changes: () => number; readonly stop: () => void }> {
  const cache = new WatchCache<KubeObject>({
    kubeConfig: fed.controlPlaneKubeConfig(),
    resource,
    log: createLogger({ component: 'bench', level: 'silent' }),
  });
  const stop = new AbortController();
  void cache.run(stop.signal);
  await cache.synced();
  let changes = 0;
  cache.onEvent(() => {
    changes++;
  });
  return {
    changes: () => changes,
    stop: () => {
      stop.abort();
    },
  };
}

/** Waits until every work queue of the process has stayed empty for 2 s (the placement settled). */
async function waitForIdle(metricsUrl: string): Promise<void> {
  const startedAt = performance.now();
  let idleSince: number | undefined;
  for (;;) {
    const text = await (await fetch(metricsUrl)).text();
    const depth = text
      .split('\n')
      .filter((l) => l.startsWith('karmada_failover_workqueue_depth{'))
      .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
    const now = performance.now();
    if (depth > 0) idleSince = undefined;
    else idleSince ??= now;
    if (idleSince !== undefined && now - idleSince >= 2_000) return;
    if (now - startedAt > 10 * 60_000) throw new Error(`work queues still hold ${depth} keys`);
    await new Promise((r) => setTimeout(r, 250));
  }
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
  const list = () => fed.bindings.list({ namespace: NAMESPACE });
  for (;;) {
    const placed = await countPlaced(list, 'member1:1,member2:1');
    if (placed === BINDINGS) break;
    if (performance.now() - createdAt > 15 * 60_000) throw new Error(`only ${placed} bindings placed`);
    await new Promise((r) => setTimeout(r, 500));
  }
  log(
    `${BINDINGS} bindings placed member1:1,member2:1 in ${((performance.now() - createdAt) / 1000).toFixed(1)} s`,
  );

  await waitForIdle(`${fed.controlPlaneUrl}/metrics`);
  log(
    `control plane idle ${((performance.now() - createdAt) / 1000).toFixed(1)} s after the first Deployment`,
  );

  const bindingChanges = await changeCounter(fed, resourceBindingKind);
  const workChanges = await changeCounter(fed, workKind);
  const writesBefore = await apiWrites(fed);
  const totalsBefore = await controlPlaneTotals(`${fed.controlPlaneUrl}/metrics`);
  // The failure: member1's agent reports it not ready.
  const failedAt = performance.now();
  await members.setCondition('member1', {
    type: 'Ready',
    status: 'False',
    reason: 'ClusterNotReachable',
    message: 'cluster is not reachable',
  });
  let firstMovedAt: number | undefined;
  let moved = 0;
  for (;;) {
    moved = await countPlaced(list, 'member2:2');
    if (moved > 0 && firstMovedAt === undefined) firstMovedAt = performance.now();
    if (moved === BINDINGS) break;
    if (performance.now() - failedAt > 15 * 60_000) throw new Error(`only ${moved} bindings rescheduled`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - failedAt) / 1000;
  // member1's Works stay while their graceful eviction tasks wait for health reports, which
  // simulated members do not send: in place means member2's Works all carry the new replicas.
  for (;;) {
    const works = await worksInPlace(fed);
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
      `first_moved_s=${firstSeconds.toFixed(2)} ` +
      `bindings_per_s=${rate.toFixed(1)} upstream_per_s=${UPSTREAM_BINDINGS_PER_SECOND} ` +
      `ratio=${(rate / UPSTREAM_BINDINGS_PER_SECOND).toFixed(2)}\n`,
  );
  await waitForIdle(`${fed.controlPlaneUrl}/metrics`);
  const totals = await controlPlaneTotals(`${fed.controlPlaneUrl}/metrics`);
  const writes = diff(await apiWrites(fed), writesBefore);
  const sum = (pick: (key: string) => boolean): number =>
    [...writes].filter(([k]) => pick(k)).reduce((n, [, v]) => n + v, 0);
  const perBinding = (n: number): string => (n / BINDINGS).toFixed(2);
  process.stdout.write(
    `per binding over the failover: reconciles=${perBinding(totals.reconciles - totalsBefore.reconciles)} ` +
      `writes=${perBinding(sum(() => true))} conflicts=${perBinding(sum((k) => k.endsWith(' 409')))} ` +
      `work_conflicts=${String(sum((k) => k.endsWith(' 409') && k.includes(' works')))} ` +
      `controlplane_cpu_s=${(totals.cpuSeconds - totalsBefore.cpuSeconds).toFixed(1)}\n`,
  );
  // Successful writes of bindings (spec and status) and Works against the changes watches saw.
  const succeeded = (resource: string) => (k: string) => k.includes(` ${resource}`) && / 20\d$/.test(k);
  bindingChanges.stop();
  workChanges.stop();
  process.stdout.write(
    `writes that changed nothing: bindings=${String(sum(succeeded('resourcebindings')) - bindingChanges.changes())} ` +
      `works=${String(sum(succeeded('works')) - workChanges.changes())}\n`,
  );
  for (const [k, v] of [...writes].sort((a, b) => b[1] - a[1])) log(`api writes ${k}: ${String(v)}`);
  for (const line of await controllerBreakdown(`${fed.controlPlaneUrl}/metrics`)) log(line);
} finally {
  members.stop();
  await fed.destroy();
}
