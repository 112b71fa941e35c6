/**
 * What the scheduler needs of a Cluster, read once per cluster version: identity, topology,
 * taints, served APIs and free capacity. Filters, scorers and the estimator see only this.
 */
import {
  hasCompleteAPIList,
  parseMilli,
  wholeUnits,
  type APIEnablement,
  type Cluster,
  type ClusterSpec,
  type ResourceList,
  type ResourceSummary,
  type Taint,
} from '@kf/api';

/** Free capacity from `status.resourceSummary`. */
export interface ClusterCapacity {
  /** `allocatable.pods − allocated.pods − allocating.pods`, at least 0. */
  readonly allowedPods: number;
  /**
   * `allocatable − allocated − allocating` in milli-units for every resource the cluster lists
   * as allocatable (may be negative when the cluster is overcommitted).
   */
  readonly freeMilli: ReadonlyMap<string, number>;
}

export interface ClusterView {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** `spec.provider`; empty when unset. */
  readonly provider: string;
  /** `spec.region`; empty when unset. */
  readonly region: string;
  /** `spec.zones`, or the deprecated `spec.zone` when `zones` is empty. */
  readonly zones: readonly string[];
  readonly taints: readonly Taint[];
  /** `<groupVersion>/<kind>` of every resource in `status.apiEnablements`. */
  readonly apis: ReadonlySet<string>;
  /**
   * `CompleteAPIEnablements` is True: a type missing from `apis` is not served. Otherwise the
   * list may be partial and a missing type is unknown (see `apiEnablementOf` in @kf/api).
   */
  readonly apiListComplete: boolean;
  /** The cluster has a deletion timestamp: the scheduler skips it and moves workloads away. */
  readonly deleting: boolean;
  /** Undefined when the cluster reports no resource summary (estimated capacity 0). */
  readonly capacity: ClusterCapacity | undefined;
}

/** The key a resource type has in {@link ClusterView.apis}. */
export function apiKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

/** Reduces a Cluster to its {@link ClusterView}. */
export function toClusterView(cluster: Cluster): ClusterView {
  const { spec, status, metadata } = cluster;
  return {
    name: metadata.name ?? '',
    labels: metadata.labels ?? {},
    provider: spec.provider ?? '',
    region: spec.region ?? '',
    zones: zonesOf(spec),
    taints: spec.taints ?? [],
    apis: apisOf(status?.apiEnablements ?? []),
    apiListComplete: hasCompleteAPIList(status),
    deleting: metadata.deletionTimestamp !== undefined,
    capacity: capacityOf(status?.resourceSummary),
  };
}

const viewsOfCached = new WeakMap<Cluster, ClusterView>();

/**
 * The view of a Cluster as a watch cache holds it, made once per object: a cache replaces the
 * object on every change and nobody modifies one in place. The scheduler looks at every cluster
 * for every binding it places; at 1,000 members, making each view afresh (a set of every API the
 * member serves, its quantities parsed) was most of the cost of a placement.
 */
export function cachedClusterView(cluster: Cluster): ClusterView {
  let view = viewsOfCached.get(cluster);
  if (view === undefined) {
    view = toClusterView(cluster);
    viewsOfCached.set(cluster, view);
  }
  return view;
}

function zonesOf(spec: ClusterSpec): readonly string[] {
  if (spec.zones !== undefined && spec.zones.length > 0) return spec.zones;
  return spec.zone === undefined || spec.zone === '' ? [] : [spec.zone];
}

function apisOf(enablements: readonly APIEnablement[]): ReadonlySet<string> {
  const apis = new Set<string>();
  for (const e of enablements) {
    for (const r of e.resources ?? []) apis.add(apiKey(e.groupVersion, r.kind));
  }
  return apis;
}

function capacityOf(summary: ResourceSummary | undefined): ClusterCapacity | undefined {
  if (summary === undefined) return undefined;
  const allocatable = summary.allocatable ?? {};
  const allocated = summary.allocated ?? {};
  const allocating = summary.allocating ?? {};
  const milli = (list: ResourceList, name: string): number => {
    const q = list[name];
    return q === undefined ? 0 : (parseMilli(q) ?? 0);
  };
  const pods = (list: ResourceList): number => wholeUnits(milli(list, 'pods'));
  const freeMilli = new Map<string, number>();
  for (const name of Object.keys(allocatable)) {
    freeMilli.set(name, milli(allocatable, name) - milli(allocated, name) - milli(allocating, name));
  }
  return {
    allowedPods: Math.max(0, pods(allocatable) - pods(allocated) - pods(allocating)),
    freeMilli,
  };
}
