/**
 * Throughput of the scheduler's pure decision: 10,000 bindings scheduled over 100 clusters, with
 * a mix of strategies (Duplicated, static weights, dynamic weights, Aggregated), spread
 * constraints, tolerations, label affinities, resource requests and existing placements.
 *
 *   node controlplane/bench/assign.bench.ts [bindings] [clusters]
 *
 * Prints decisions per second and milliseconds per decision for the whole pass
 * (scheduleBinding: filter, score, estimate, select, assign) and for the assignment stage alone.
 */
import { performance } from 'node:perf_hooks';
import type { Cluster, Placement, ResourceBinding, TargetCluster } from '@kf/api';
import { assignReplicas } from '../src/scheduler/assign/assign.ts';
import { toBindingView, type BindingView } from '../src/scheduler/binding-view.ts';
import { compareCandidates, type Candidate } from '../src/scheduler/candidate.ts';
import { toClusterView, type ClusterView } from '../src/scheduler/cluster-view.ts';
import { allocatableReplicas } from '../src/scheduler/estimate.ts';
import { scheduleBinding } from '../src/scheduler/schedule.ts';

const bindingCount = Number(process.argv[2] ?? 10_000);
const clusterCount = Number(process.argv[3] ?? 100);
const ROUNDS = 5;

/** Deterministic pseudo-random numbers (a fixed-seed LCG), so every run measures the same work. */
function generator(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state % n;
  };
}
const rand = generator(42);

function makeCluster(i: number): Cluster {
  const pods = 50 + rand(450);
  return {
    metadata: {
      name: `member-${String(i).padStart(3, '0')}`,
      labels: { tier: ['gold', 'silver', 'bronze'][i % 3] ?? '', env: i % 5 === 0 ? 'dev' : 'prod' },
    },
    spec: {
      syncMode: i % 2 === 0 ? 'Push' : 'Pull',
      provider: ['aws', 'gcp'][i % 2] ?? '',
      region: `region-${i % 5}`,
      zones: [`zone-${i % 10}`],
      ...(i % 10 === 7
        ? { taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' as const }] }
        : {}),
    },
    status: {
      apiEnablements: [{ groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] }],
      resourceSummary: {
        allocatable: { pods, cpu: String(64 + rand(64)), memory: `${256 + rand(256)}Gi` },
        allocated: { pods: rand(50), cpu: `${rand(30_000)}m`, memory: `${rand(100)}Gi` },
        allocating: { pods: rand(5) },
      },
    },
  };
}

const placements: readonly Placement[] = [
  {
    clusterAffinity: { labelSelector: { matchLabels: { tier: 'gold' } } },
    spreadConstraints: [{ maxGroups: 3, minGroups: 1 }],
    replicaScheduling: { replicaSchedulingType: 'Duplicated' },
  },
  {
    clusterAffinity: {
      labelSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] },
    },
    replicaScheduling: {
      replicaSchedulingType: 'Divided',
      replicaDivisionPreference: 'Weighted',
      weightPreference: {
        staticWeightList: [
          { targetCluster: { labelSelector: { matchLabels: { tier: 'gold' } } }, weight: 3 },
          { targetCluster: { labelSelector: { matchLabels: { tier: 'silver' } } }, weight: 2 },
          { targetCluster: { labelSelector: { matchLabels: { tier: 'bronze' } } }, weight: 1 },
        ],
      },
    },
  },
  {
    clusterTolerations: [{ key: 'cluster.karmada.io/not-ready', operator: 'Exists' }],
    replicaScheduling: {
      replicaSchedulingType: 'Divided',
      replicaDivisionPreference: 'Weighted',
      weightPreference: { dynamicWeight: 'AvailableReplicas' },
    },
  },
  {
    clusterAffinity: {
      fieldSelector: { matchExpressions: [{ key: 'provider', operator: 'In', values: ['aws'] }] },
    },
    spreadConstraints: [{ spreadByField: 'cluster', minGroups: 2, maxGroups: 10 }],
    replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
  },
  {
    spreadConstraints: [
      { spreadByField: 'region', minGroups: 2, maxGroups: 3 },
      { spreadByField: 'cluster', minGroups: 3, maxGroups: 6 },
    ],
    replicaScheduling: {
      replicaSchedulingType: 'Divided',
      replicaDivisionPreference: 'Weighted',
      weightPreference: { dynamicWeight: 'AvailableReplicas' },
    },
  },
];

function makeBinding(i: number, clusters: readonly Cluster[]): ResourceBinding {
  const replicas = 1 + rand(200);
  const current: TargetCluster[] =
    i % 3 === 0
      ? [0, 1, 2].map(() => ({
          name: clusters[rand(clusters.length)]?.metadata.name ?? '',
          replicas: 1 + rand(20),
        }))
      : [];
  const unique = [...new Map(current.map((t) => [t.name, t])).values()];
  return {
    metadata: { name: `app-${i}`, namespace: 'bench', generation: 1 },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: `app-${i}`, uid: `uid-${i}` },
      replicas,
      ...(i % 2 === 0
        ? {
            replicaRequirements: {
              resourceRequest: { cpu: `${100 + rand(900)}m`, memory: `${128 + rand(1024)}Mi` },
            },
          }
        : {}),
      placement: placements[i % placements.length] ?? {},
      ...(unique.length > 0 ? { clusters: unique } : {}),
    },
  };
}

const clusterObjects = Array.from({ length: clusterCount }, (_, i) => makeCluster(i));
const clusters: readonly ClusterView[] = clusterObjects.map(toClusterView);
const bindings: readonly BindingView[] = Array.from({ length: bindingCount }, (_, i) =>
  toBindingView(makeBinding(i, clusterObjects)),
);

/** Runs `decide` over every binding ROUNDS times; returns the median wall time of a round in ms. */
function measure(decide: (b: BindingView) => unknown): { medianMs: number; sink: number } {
  let sink = 0;
  for (const b of bindings.slice(0, 1000)) if (decide(b) !== undefined) sink++; // warm-up
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    for (const b of bindings) if (decide(b) !== undefined) sink++;
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(ROUNDS / 2)] ?? 0, sink };
}

const nowMs = Date.parse('2026-01-01T00:00:00Z');
const outcomes = new Map<string, number>();
for (const b of bindings) {
  const reason = scheduleBinding(b, clusters, nowMs).condition.reason;
  outcomes.set(reason, (outcomes.get(reason) ?? 0) + 1);
}

const full = measure((b) => scheduleBinding(b, clusters, nowMs));

/** The assignment stage on its own: candidates prepared outside the timed loop. */
const prepared = bindings.map((b) => {
  const ranked: Candidate[] = clusters
    .map((c) => {
      const allocatable = allocatableReplicas(b, c);
      return {
        cluster: c,
        name: c.name,
        score: b.assigned.has(c.name) ? 100 : 0,
        overflowOrder: 0,
        allocatable,
        available: allocatable + (b.assigned.get(c.name) ?? 0),
      };
    })
    .sort(compareCandidates);
  return { b, ranked };
});
const byBinding = new Map(prepared.map((p) => [p.b, p.ranked]));
const assignOnly = measure((b) =>
  assignReplicas(b, b.placement?.strategy ?? { kind: 'Duplicated' }, byBinding.get(b) ?? [], {
    emptyWorkloadPropagation: false,
    tiered: false,
  }),
);

function report(label: string, medianMs: number): string {
  const perSecond = Math.round((bindingCount / medianMs) * 1000);
  return `${label}: ${perSecond.toLocaleString('en-US')} decisions/s, ${(medianMs / bindingCount).toFixed(4)} ms/decision (median of ${ROUNDS} rounds, ${medianMs.toFixed(0)} ms per round)\n`;
}

process.stdout.write(
  `${bindingCount} bindings × ${clusterCount} clusters; outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}\n`,
);
process.stdout.write(report('scheduleBinding (filter, score, estimate, select, assign)', full.medianMs));
process.stdout.write(report('assignReplicas only', assignOnly.medianMs));
if (full.sink + assignOnly.sink === 0) process.stdout.write('no decisions were made\n');
