/**
 * The plugin contract: filters answer fit or unfit-with-reason, scorers return 0–100, and both
 * see one scheduling attempt (a binding tried against one affinity term) and one cluster.
 */
import type { ClusterAffinity } from '@kf/api';
import type { BindingView, PlacementView } from './binding-view.ts';
import type { ClusterView } from './cluster-view.ts';
import { compareNames } from './name-order.ts';

export type Fit = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export const fits: Fit = Object.freeze({ ok: true });

export function unfit(reason: string): Fit {
  return { ok: false, reason };
}

/** The affinity an attempt is bound to. */
export interface AttemptTerm {
  /** `affinityName` of the `clusterAffinities` term; empty for `clusterAffinity`. */
  readonly name: string;
  /** The inline affinity (tier 0); undefined when the placement sets none. */
  readonly affinity: ClusterAffinity | undefined;
  /** Overflow affinities (tiers 1, 2, …). */
  readonly overflow: readonly ClusterAffinity[];
}

/** One scheduling attempt. */
export interface Attempt {
  readonly binding: BindingView;
  readonly placement: PlacementView;
  readonly term: AttemptTerm;
  readonly nowMs: number;
}

export interface FilterPlugin {
  readonly name: string;
  filter(a: Attempt, c: ClusterView): Fit;
  /**
   * The names of the only clusters this filter can accept for `a`, when it can tell without
   * looking at each (undefined: any may pass). Lets {@link feasibleClusters} skip the rest: with a
   * thousand members and a placement naming two, the other 998 need no filter at all.
   */
  onlyClusters?(a: Attempt): ReadonlySet<string> | undefined;
}

export interface ScorePlugin {
  readonly name: string;
  /** 0–100. */
  score(a: Attempt, c: ClusterView): number;
}

export interface Plugins {
  readonly filters: readonly FilterPlugin[];
  readonly scorers: readonly ScorePlugin[];
}

/** Why a cluster was left out: the first filter it failed. */
export interface Rejection {
  readonly cluster: string;
  readonly plugin: string;
  readonly reason: string;
}

export interface ScoredCluster {
  readonly cluster: ClusterView;
  /** Sum over the score plugins (unweighted). */
  readonly score: number;
}

export interface Feasibility {
  /** Clusters every filter accepted, in input order. */
  readonly feasible: readonly ScoredCluster[];
  /** Clusters some filter refused, sorted by name. */
  readonly rejected: readonly Rejection[];
}

/**
 * Runs every filter on every cluster that is not being deleted (those are skipped silently,
 * as upstream does) and scores the feasible ones.
 */
export function filterClusters(a: Attempt, clusters: readonly ClusterView[], plugins: Plugins): Feasibility {
  const rejected: Rejection[] = [];
  const feasible = walkClusters(a, clusters, plugins, { rejected });
  rejected.sort((x, y) => compareNames(x.cluster, y.cluster));
  return { feasible, rejected };
}

/**
 * The clusters every filter accepts, scored, in input order: what {@link filterClusters} finds
 * feasible, without looking at the clusters a filter rules out by name ({@link
 * FilterPlugin.onlyClusters}) and without saying why the others were refused.
 */
export function feasibleClusters(
  a: Attempt,
  clusters: readonly ClusterView[],
  plugins: Plugins,
): readonly ScoredCluster[] {
  return walkClusters(a, clusters, plugins, { only: onlyClustersOf(plugins.filters, a) });
}

interface Walk {
  /** Look only at these clusters (by name); undefined: at all of them. */
  readonly only?: ReadonlySet<string> | undefined;
  /** Where to record why each refused cluster was refused; undefined: do not record. */
  readonly rejected?: Rejection[];
}

/** The one pass over the clusters both {@link filterClusters} and {@link feasibleClusters} make. */
function walkClusters(
  a: Attempt,
  clusters: readonly ClusterView[],
  plugins: Plugins,
  walk: Walk,
): ScoredCluster[] {
  const { only, rejected } = walk;
  const feasible: ScoredCluster[] = [];
  for (const c of clusters) {
    if (c.deleting || (only !== undefined && !only.has(c.name))) continue;
    const miss = firstMiss(plugins.filters, a, c);
    if (miss === undefined) feasible.push({ cluster: c, score: totalScore(plugins.scorers, a, c) });
    else rejected?.push({ cluster: c.name, ...miss });
  }
  return feasible;
}

/** The clusters every filter that names its only clusters accepts; undefined when none names them. */
function onlyClustersOf(filters: readonly FilterPlugin[], a: Attempt): ReadonlySet<string> | undefined {
  let only: ReadonlySet<string> | undefined;
  for (const f of filters) {
    const names = f.onlyClusters?.(a);
    if (names === undefined) continue;
    only = only === undefined ? names : new Set([...only].filter((n) => names.has(n)));
  }
  return only;
}

function firstMiss(
  filters: readonly FilterPlugin[],
  a: Attempt,
  c: ClusterView,
): { plugin: string; reason: string } | undefined {
  for (const f of filters) {
    const fit = f.filter(a, c);
    if (!fit.ok) return { plugin: f.name, reason: fit.reason };
  }
  return undefined;
}

function totalScore(scorers: readonly ScorePlugin[], a: Attempt, c: ClusterView): number {
  let sum = 0;
  for (const s of scorers) sum += s.score(a, c);
  return sum;
}

/**
 * Upstream's FitError text: `0/<total> clusters are available: <count> <reason>, ….` with the
 * entries sorted as strings, or `no cluster exists` when nothing was filtered.
 */
export function describeNoFit(total: number, rejected: readonly Rejection[]): string {
  const counts = new Map<string, number>();
  for (const r of rejected) counts.set(r.reason, (counts.get(r.reason) ?? 0) + 1);
  const entries = [...counts].map(([reason, n]) => `${n} ${reason}`).sort(compareNames);
  return `0/${total} clusters are available: ${entries.length === 0 ? 'no cluster exists' : entries.join(', ')}.`;
}

/**
 * Applies a `--plugins` list to a registry: `*` enables every plugin, `Name` enables one, `-Name`
 * disables one (disabling wins). Registry order is kept.
 */
export function choosePlugins(registry: Plugins, names: readonly string[]): Plugins {
  const all = names.includes('*');
  const enabled = new Set(names.filter((n) => !n.startsWith('-')));
  const disabled = new Set(names.filter((n) => n.startsWith('-')).map((n) => n.slice(1)));
  const keep = (name: string): boolean => !disabled.has(name) && (all || enabled.has(name));
  return {
    filters: registry.filters.filter((p) => keep(p.name)),
    scorers: registry.scorers.filter((p) => keep(p.name)),
  };
}
