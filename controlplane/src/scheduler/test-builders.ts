/** Short builders for Clusters, bindings and candidates in the scheduler's tests. */
import type {
  Cluster,
  EvictionHistoryEntry,
  GracefulEvictionTask,
  Placement,
  ReplicaSchedulingStrategy,
  ResourceBinding,
  ResourceHealth,
  ResourceList,
  Taint,
  TargetCluster,
} from '@kf/api';
import { toBindingView, toPlacementView, type BindingView } from './binding-view.ts';
import type { Candidate } from './candidate.ts';
import { toClusterView, type ClusterView } from './cluster-view.ts';
import type { Attempt } from './framework.ts';

export interface ClusterOptions {
  readonly labels?: Readonly<Record<string, string>>;
  readonly provider?: string;
  readonly region?: string;
  readonly zones?: readonly string[];
  readonly taints?: readonly Taint[];
  /** `<apiVersion>/<kind>` served; default `apps/v1/Deployment`. */
  readonly apis?: readonly string[];
  /** Whether the agent reported its API list complete (CompleteAPIEnablements True); default true. */
  readonly apiListComplete?: boolean;
  /** Free pod slots (= replicas it can take without requests); default 100. */
  readonly pods?: number;
  /** Replaces the pods-only summary; `null` removes the summary. */
  readonly summary?: {
    readonly allocatable?: ResourceList;
    readonly allocated?: ResourceList;
    readonly allocating?: ResourceList;
  } | null;
  readonly deleting?: boolean;
}

export function clusterObject(name: string, o: ClusterOptions = {}): Cluster {
  const summary = o.summary === null ? undefined : (o.summary ?? { allocatable: { pods: o.pods ?? 100 } });
  return {
    metadata: {
      name,
      ...optional('labels', o.labels),
      ...(o.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      syncMode: 'Push',
      ...optional('provider', o.provider),
      ...optional('region', o.region),
      ...optional('zones', o.zones),
      ...optional('taints', o.taints),
    },
    status: {
      apiEnablements: enablements(o.apis ?? ['apps/v1/Deployment']),
      conditions: [
        {
          type: 'CompleteAPIEnablements',
          status: o.apiListComplete === false ? 'False' : 'True',
          reason: o.apiListComplete === false ? 'Partial' : 'Complete',
          message: '',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
      ...optional('resourceSummary', summary),
    },
  };
}

function enablements(keys: readonly string[]): NonNullable<NonNullable<Cluster['status']>['apiEnablements']> {
  return keys.map((key) => {
    const slash = key.lastIndexOf('/');
    const kind = key.slice(slash + 1);
    return { groupVersion: key.slice(0, slash), resources: [{ name: kind.toLowerCase(), kind }] };
  });
}

/** `{ [key]: value }`, or nothing when the value is undefined (for exact optional properties). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

export function cluster(name: string, o: ClusterOptions = {}): ClusterView {
  return toClusterView(clusterObject(name, o));
}

export interface BindingOptions {
  readonly replicas?: number;
  readonly placement?: Placement | null;
  /** Current `spec.clusters` as `{ name: replicas }` or a list. */
  readonly clusters?: Readonly<Record<string, number>> | readonly TargetCluster[];
  readonly uid?: string;
  readonly requests?: ResourceList;
  /** Clusters with a graceful eviction task of the taint manager's. */
  readonly evicting?: readonly string[];
  /** More graceful eviction tasks, as given (after those of `evicting`). */
  readonly tasks?: readonly GracefulEvictionTask[];
  /** `status.aggregatedStatus`: the workload's health by cluster. */
  readonly health?: Readonly<Record<string, ResourceHealth>>;
  /** `spec.evictionHistory`. */
  readonly history?: readonly EvictionHistoryEntry[];
  /** `spec.failover.application.blockPredecessorSeconds`. */
  readonly blockPredecessorSeconds?: number;
  /** The binding's annotations (eviction history, block time). */
  readonly annotations?: Readonly<Record<string, string>>;
  readonly observedAffinityName?: string;
  readonly rescheduleTriggeredAt?: string;
  readonly lastScheduledTime?: string;
  readonly components?: number;
  readonly apiVersion?: string;
  readonly kind?: string;
}

export function bindingObject(o: BindingOptions = {}): ResourceBinding {
  const tasks: GracefulEvictionTask[] = [
    ...(o.evicting ?? []).map((fromCluster) => ({
      fromCluster,
      reason: 'TaintUntolerated',
      producer: 'TaintManager',
    })),
    ...(o.tasks ?? []),
  ];
  return {
    metadata: { name: 'web', namespace: 'default', generation: 1, ...optional('annotations', o.annotations) },
    spec: {
      resource: {
        apiVersion: o.apiVersion ?? 'apps/v1',
        kind: o.kind ?? 'Deployment',
        name: 'web',
        ...optional('uid', o.uid),
      },
      replicas: o.replicas ?? 0,
      ...optional(
        'replicaRequirements',
        o.requests === undefined ? undefined : { resourceRequest: o.requests },
      ),
      ...optional('components', componentsOf(o.components)),
      ...optional('placement', o.placement === null ? undefined : (o.placement ?? {})),
      ...optional('clusters', targetsOf(o.clusters)),
      ...optional('gracefulEvictionTasks', tasks.length === 0 ? undefined : tasks),
      ...optional('evictionHistory', o.history),
      ...optional('rescheduleTriggeredAt', o.rescheduleTriggeredAt),
      ...optional('failover', failoverOf(o.blockPredecessorSeconds)),
    },
    status: {
      ...optional('schedulerObservingAffinityName', o.observedAffinityName),
      ...optional('lastScheduledTime', o.lastScheduledTime),
      ...optional(
        'aggregatedStatus',
        o.health === undefined
          ? undefined
          : Object.entries(o.health).map(([clusterName, health]) => ({ clusterName, health })),
      ),
    },
  };
}

function targetsOf(clusters: BindingOptions['clusters']): readonly TargetCluster[] | undefined {
  if (clusters === undefined) return undefined;
  if (isTargetList(clusters)) return clusters;
  return Object.entries(clusters).map(([name, replicas]) => ({ name, replicas }));
}

function isTargetList(c: NonNullable<BindingOptions['clusters']>): c is readonly TargetCluster[] {
  return Array.isArray(c);
}

function componentsOf(count: number | undefined): ResourceBinding['spec']['components'] {
  return count === undefined
    ? undefined
    : Array.from({ length: count }, (_, i) => ({ name: `c${i}`, replicas: 1 }));
}

/** Carries the proposal's `blockPredecessorSeconds`, which @kf/api does not declare. */
function failoverOf(blockPredecessorSeconds: number | undefined): ResourceBinding['spec']['failover'] {
  if (blockPredecessorSeconds === undefined) return undefined;
  const application = { decisionConditions: {}, blockPredecessorSeconds };
  return { application };
}

export function binding(o: BindingOptions = {}): BindingView {
  return toBindingView(bindingObject(o));
}

/** A candidate with the given capacity; `available` defaults to `allocatable`. */
export function candidate(
  name: string,
  o: {
    score?: number;
    overflowOrder?: number;
    allocatable?: number;
    available?: number;
    region?: string;
  } = {},
): Candidate {
  const allocatable = o.allocatable ?? 0;
  return {
    cluster: cluster(name, o.region === undefined ? {} : { region: o.region }),
    name,
    score: o.score ?? 0,
    overflowOrder: o.overflowOrder ?? 0,
    allocatable,
    available: o.available ?? allocatable,
  };
}

/** `{ name: replicas }` of a placement, for compact expectations. */
export function replicasOf(clusters: readonly TargetCluster[]): Record<string, number | undefined> {
  return Object.fromEntries(clusters.map((c) => [c.name, c.replicas]));
}

/** Divided with dynamic weights by available replicas. */
export const dynamicWeight: ReplicaSchedulingStrategy = {
  replicaSchedulingType: 'Divided',
  replicaDivisionPreference: 'Weighted',
  weightPreference: { dynamicWeight: 'AvailableReplicas' },
};

export const aggregated: ReplicaSchedulingStrategy = {
  replicaSchedulingType: 'Divided',
  replicaDivisionPreference: 'Aggregated',
};

export const duplicated: ReplicaSchedulingStrategy = { replicaSchedulingType: 'Duplicated' };

/** Divided by static weights, `{ cluster: weight }`. */
export function staticWeights(weights: Readonly<Record<string, number>>): ReplicaSchedulingStrategy {
  return {
    replicaSchedulingType: 'Divided',
    replicaDivisionPreference: 'Weighted',
    weightPreference: {
      staticWeightList: Object.entries(weights).map(([name, weight]) => ({
        targetCluster: { clusterNames: [name] },
        weight,
      })),
    },
  };
}

/** An attempt with the binding's first affinity term (or its `clusterAffinity`). */
export function attemptFor(b: BindingView, nowMs = 0): Attempt {
  const placement = b.placement ?? toPlacementView({});
  const t = placement.affinityTerms[0];
  const term =
    t === undefined
      ? { name: '', affinity: placement.affinity, overflow: [] }
      : { name: t.name, affinity: t.affinity, overflow: t.overflow };
  return { binding: b, placement, term, nowMs };
}
