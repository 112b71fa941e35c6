/**
 * What the scheduler needs of a ResourceBinding (or ClusterResourceBinding): the resource type,
 * replica demand, the current placement result, eviction state and the placement rules with
 * upstream's admission defaults applied. Built once per scheduling pass.
 */
import { annotations, parseMilli, parseTime, wholeSeconds } from '@kf/api';
import type {
  ApplicationFailoverBehavior,
  ClusterAffinity,
  Component,
  EvictionHistoryEntry,
  GracefulEvictionTask,
  Placement,
  ReplicaSchedulingStrategy,
  ResourceBinding,
  ResourceHealth,
  ResourceList,
  SpreadConstraint,
  SpreadFieldValue,
  StaticClusterWeight,
  TargetCluster,
  Time,
  Toleration,
} from '@kf/api';
import { healthByCluster } from '../controllers/graceful-eviction/cause.ts';
import { apiKey } from './cluster-view.ts';
import { evictionHistoryOf } from './eviction-history-annotation.ts';

/**
 * How long an eviction keeps the binding away from the cluster when the binding does not say
 * (the default of `blockPredecessorSeconds` in the application failover proposal).
 */
export const DEFAULT_BLOCK_PREDECESSOR_SECONDS = 600;

/** The replica assignment a placement asks for. */
export type StrategyView =
  | { readonly kind: 'Duplicated' }
  /** `rules` undefined: no weight preference, every cluster weighs 1. */
  | { readonly kind: 'StaticWeight'; readonly rules: readonly StaticClusterWeight[] | undefined }
  | { readonly kind: 'DynamicWeight' }
  | { readonly kind: 'Aggregated' }
  /** Divided without a division preference: upstream refuses to schedule it. */
  | { readonly kind: 'Unsupported' };

/** A spread constraint with admission defaults applied. */
export interface SpreadView {
  /** `cluster` when neither field nor label is given; undefined for label constraints. */
  readonly field: SpreadFieldValue | undefined;
  readonly label: string | undefined;
  /** At least 1. */
  readonly minGroups: number;
  /** 0 when unset. */
  readonly maxGroups: number;
}

/** One `clusterAffinities` term. */
export interface AffinityTermView {
  readonly name: string;
  readonly affinity: ClusterAffinity;
  /** Overflow affinities in order: tiers 1, 2, … */
  readonly overflow: readonly ClusterAffinity[];
}

export interface PlacementView {
  /** `clusterAffinity`; undefined when unset. */
  readonly affinity: ClusterAffinity | undefined;
  /** `clusterAffinities` in order; empty when the placement does not use them. */
  readonly affinityTerms: readonly AffinityTermView[];
  readonly tolerations: readonly Toleration[];
  readonly spreadConstraints: readonly SpreadView[];
  readonly strategy: StrategyView;
}

/** A cluster the binding was evicted from. */
export interface EvictionRecord {
  readonly cluster: string;
  readonly evictedAtMs: number;
}

export interface BindingView {
  /** `<apiVersion>/<kind>` of the resource template, as in {@link ClusterView.apis}. */
  readonly apiKey: string;
  /** `spec.resource.uid`: its FNV-1a parity orders names on apportionment ties. */
  readonly uid: string;
  readonly replicas: number;
  readonly hasReplicaRequirements: boolean;
  /** Per-replica resource requests in milli-units. */
  readonly requestMilli: ReadonlyMap<string, number>;
  /** `spec.components` count (multi-template workloads). */
  readonly componentCount: number;
  /**
   * One set of the workload's pod templates (`spec.components`): the pods and the milli-units of
   * each resource that one whole instance needs.
   */
  readonly componentSet: ComponentSetDemand;
  /**
   * The placement asks for exactly one cluster (a `cluster` spread constraint with minGroups and
   * maxGroups 1) and the binding has components: with gate MultiplePodTemplatesScheduling the
   * workload is then placed whole, as one set, where one set fits.
   */
  readonly singleClusterComponents: boolean;
  /** `spec.clusters`: the current placement. */
  readonly clusters: readonly TargetCluster[];
  /** Replicas per cluster of `spec.clusters`. */
  readonly assigned: ReadonlyMap<string, number>;
  /** Undefined when the binding has no placement (the scheduler reports an error). */
  readonly placement: PlacementView | undefined;
  /** `fromCluster` of every graceful eviction task. */
  readonly evicting: ReadonlySet<string>;
  /** `spec.gracefulEvictionTasks`: whether a task still keeps its cluster out depends on its cause. */
  readonly evictionTasks: readonly GracefulEvictionTask[];
  /** The workload's health on each cluster that reports it (`status.aggregatedStatus`). */
  readonly health: ReadonlyMap<string, ResourceHealth>;
  /** The eviction history annotation's entries and `spec.evictionHistory`'s, each once. */
  readonly evictionHistory: readonly EvictionRecord[];
  /** How long an eviction blocks its cluster; Infinity when it blocks for good. */
  readonly blockPredecessorMs: number;
  /** `spec.rescheduleTriggeredAt` is after `status.lastScheduledTime`: start from scratch. */
  readonly fresh: boolean;
  /** `status.schedulerObservingAffinityName`; empty when unset. */
  readonly observedAffinityName: string;
}

/** Reduces a binding to its {@link BindingView}. */
export function toBindingView(binding: ResourceBinding): BindingView {
  const { metadata, spec, status } = binding;
  const clusters = spec.clusters ?? [];
  return {
    apiKey: apiKey(spec.resource.apiVersion, spec.resource.kind),
    uid: spec.resource.uid ?? '',
    replicas: spec.replicas ?? 0,
    hasReplicaRequirements: spec.replicaRequirements !== undefined,
    requestMilli: requestsOf(spec.replicaRequirements?.resourceRequest),
    ...componentsView(spec.components, spec.placement),
    clusters,
    assigned: replicasByCluster(clusters),
    placement: spec.placement === undefined ? undefined : toPlacementView(spec.placement),
    evicting: evictingClusters(spec.gracefulEvictionTasks),
    evictionTasks: spec.gracefulEvictionTasks ?? [],
    health: healthByCluster(status?.aggregatedStatus),
    evictionHistory: evictionRecords(evictionHistoryOf(metadata.annotations, spec.evictionHistory)),
    blockPredecessorMs: blockPredecessorMs(metadata.annotations, spec.failover?.application),
    fresh: isAfter(spec.rescheduleTriggeredAt, status?.lastScheduledTime),
    observedAffinityName: status?.schedulerObservingAffinityName ?? '',
  };
}

/** What one whole instance of a multi-template workload needs. */
export interface ComponentSetDemand {
  readonly pods: number;
  readonly requestMilli: ReadonlyMap<string, number>;
}

function componentsView(
  components: readonly Component[] | undefined,
  placement: Placement | undefined,
): Pick<BindingView, 'componentCount' | 'componentSet' | 'singleClusterComponents'> {
  const count = components?.length ?? 0;
  return {
    componentCount: count,
    componentSet: componentSetOf(components),
    singleClusterComponents: count > 0 && isSingleClusterPlacement(placement?.spreadConstraints),
  };
}

/** Sums the components: each one's replicas, and its per-replica requests times its replicas. */
function componentSetOf(components: readonly Component[] | undefined): ComponentSetDemand {
  let pods = 0;
  const requestMilli = new Map<string, number>();
  for (const c of components ?? []) {
    const replicas = Math.max(0, c.replicas);
    pods += replicas;
    for (const [name, milli] of requestsOf(c.replicaRequirements?.resourceRequest)) {
      requestMilli.set(name, (requestMilli.get(name) ?? 0) + milli * replicas);
    }
  }
  return { pods, requestMilli };
}

/**
 * A `cluster` spread constraint asking for exactly one cluster, with admission's defaults (no
 * field and no label mean `cluster`; minGroups 1).
 */
function isSingleClusterPlacement(constraints: readonly SpreadConstraint[] | undefined): boolean {
  return (constraints ?? []).some((c) => {
    const field = c.spreadByField ?? (c.spreadByLabel === undefined ? 'cluster' : undefined);
    return field === 'cluster' && (c.minGroups ?? 1) === 1 && c.maxGroups === 1;
  });
}

function requestsOf(requests: ResourceList | undefined): ReadonlyMap<string, number> {
  const milli = new Map<string, number>();
  for (const [name, q] of Object.entries(requests ?? {})) {
    const m = parseMilli(q);
    if (m !== undefined) milli.set(name, m);
  }
  return milli;
}

function replicasByCluster(clusters: readonly TargetCluster[]): ReadonlyMap<string, number> {
  const assigned = new Map<string, number>();
  for (const c of clusters) assigned.set(c.name, (assigned.get(c.name) ?? 0) + (c.replicas ?? 0));
  return assigned;
}

/** Both times are set and `a` is later than `b`. */
function isAfter(a: Time | undefined, b: Time | undefined): boolean {
  const aMs = parseTime(a);
  const bMs = parseTime(b);
  return aMs !== undefined && bMs !== undefined && aMs > bMs;
}

/** Applies upstream's admission defaults to a placement. */
export function toPlacementView(placement: Placement): PlacementView {
  return {
    affinity: placement.clusterAffinity,
    affinityTerms: (placement.clusterAffinities ?? []).map((t) => ({
      name: t.affinityName,
      affinity: t,
      overflow: t.overflowAffinities ?? [],
    })),
    tolerations: placement.clusterTolerations ?? [],
    spreadConstraints: (placement.spreadConstraints ?? []).map(toSpreadView),
    strategy: strategyOf(placement.replicaScheduling),
  };
}

/** Upstream's admission: no field and no label means `cluster`; `minGroups` 0 means 1. */
function toSpreadView(c: SpreadConstraint): SpreadView {
  const label = c.spreadByLabel === undefined || c.spreadByLabel === '' ? undefined : c.spreadByLabel;
  return {
    field: c.spreadByField ?? (label === undefined ? 'cluster' : undefined),
    label,
    minGroups: c.minGroups === undefined || c.minGroups === 0 ? 1 : c.minGroups,
    maxGroups: c.maxGroups ?? 0,
  };
}

/** No `replicaScheduling` means Duplicated; no `replicaSchedulingType` means Divided. */
export function strategyOf(s: ReplicaSchedulingStrategy | undefined): StrategyView {
  if (s === undefined || s.replicaSchedulingType === 'Duplicated') return { kind: 'Duplicated' };
  const preference = s.replicaDivisionPreference;
  if (preference === 'Aggregated') return { kind: 'Aggregated' };
  if (preference !== 'Weighted') return { kind: 'Unsupported' };
  const w = s.weightPreference;
  if (w?.dynamicWeight !== undefined) return { kind: 'DynamicWeight' };
  return { kind: 'StaticWeight', rules: w === undefined ? undefined : (w.staticWeightList ?? []) };
}

function evictingClusters(tasks: readonly GracefulEvictionTask[] | undefined): ReadonlySet<string> {
  return new Set((tasks ?? []).map((t) => t.fromCluster));
}

/** Entries without a readable time are ignored. */
function evictionRecords(history: readonly EvictionHistoryEntry[]): readonly EvictionRecord[] {
  const records: EvictionRecord[] = [];
  for (const e of history) {
    const evictedAtMs = parseTime(e.creationTimestamp);
    if (evictedAtMs !== undefined) records.push({ cluster: e.clusterName, evictedAtMs });
  }
  return records;
}

/**
 * How long an eviction keeps the binding off its cluster, in seconds from the binding's annotation
 * `failover.karmada-failover.io/block-predecessor-seconds` (copied from its policy; the form
 * Karmada's own CRDs keep), else `spec.failover.application.blockPredecessorSeconds` (only the
 * project's CRD has it), else the default. Zero (or less) blocks for good (Infinity), as the
 * proposal defines zero. An annotation that is not a whole number of seconds is ignored.
 */
export function blockPredecessorMs(
  bindingAnnotations: Readonly<Record<string, string>> | undefined,
  application: ApplicationFailoverBehavior | undefined,
): number {
  const fromAnnotation = wholeSeconds(bindingAnnotations?.[annotations.blockPredecessorSeconds]);
  const seconds = fromAnnotation ?? application?.blockPredecessorSeconds ?? DEFAULT_BLOCK_PREDECESSOR_SECONDS;
  return seconds <= 0 ? Number.POSITIVE_INFINITY : seconds * 1000;
}

/** The binding places replicas (a workload), as opposed to a configuration object. */
export function isWorkload(b: BindingView): boolean {
  return b.replicas > 0 || b.hasReplicaRequirements || b.componentCount > 0;
}
