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
 * new placement, the rate, and the ratio to upstream's figure of about 22 bindings/s.
 */
import { performance } from 'node:perf_hooks';
import { AppsV1Api } from '@kubernetes/client-node';
import type { PropagationPolicy, ResourceBinding } from '@kf/api';
import {
  SimulatedMembers,
  demoDeployment,
  dividedByStaticWeights,
  startFailoverFederation,
} from '@kf/testing';

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
  const rate = BINDINGS / seconds;
  const firstSeconds = ((firstMovedAt ?? failedAt) - failedAt) / 1000;
  process.stdout.write(
    `reschedule bindings=${BINDINGS} seconds=${seconds.toFixed(2)} first_moved_s=${firstSeconds.toFixed(2)} ` +
      `bindings_per_s=${rate.toFixed(1)} upstream_per_s=${UPSTREAM_BINDINGS_PER_SECOND} ` +
      `ratio=${(rate / UPSTREAM_BINDINGS_PER_SECOND).toFixed(2)}\n`,
  );
  for (const line of await controllerBreakdown(`${fed.controlPlaneUrl}/metrics`)) log(line);
} finally {
  members.stop();
  await fed.destroy();
}
