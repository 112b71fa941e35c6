/**
 * Region spread: choose a set of regions that satisfies the region constraint and holds
 * enough clusters for the cluster constraint, then one best cluster per region plus the best
 * of the rest up to the cluster constraint's maximum.
 */
import type { SpreadView } from './binding-view.ts';
import { compareCandidates, type Candidate } from './candidate.ts';
import { compareNames } from './name-order.ts';
import { fail, succeed, type Outcome } from './outcome.ts';
import type { SelectionPolicy } from './select.ts';

/** Score unit per replica (or per fitting cluster) in a region's score. */
const WEIGHT_UNIT = 1000;

/**
 * Bound on the region combinations explored. Upstream's search is unbounded and grows
 * combinatorially with many single-cluster regions; past this bound the best combination
 * found so far is used.
 */
export const MAX_REGION_SEARCH_STEPS = 100_000;

export interface RegionGroup {
  readonly name: string;
  /** In candidate order. */
  readonly clusters: readonly Candidate[];
  readonly score: number;
}

interface RegionPath {
  /** By score descending, then name. */
  readonly regions: readonly RegionGroup[];
  readonly score: number;
  readonly clusterCount: number;
  readonly id: number;
}

/** A spread constraint that is not there reads as all zeros, as upstream reads it. */
const ABSENT: Pick<SpreadView, 'minGroups' | 'maxGroups'> = { minGroups: 0, maxGroups: 0 };

export function selectByRegion(
  ranked: readonly Candidate[],
  region: SpreadView,
  cluster: SpreadView | undefined,
  policy: SelectionPolicy,
): Outcome<readonly Candidate[]> {
  const clusterLimits = cluster ?? ABSENT;
  const groups = groupByRegion(ranked, (cs) =>
    regionScore(cs, region.minGroups, clusterLimits.minGroups, policy),
  );
  if (groups.length < region.minGroups) {
    return fail('SchedulerError', 'the number of feasible region is less than spreadConstraint.MinGroups');
  }
  const chosen = chooseRegions(groups, region, clusterLimits.minGroups);
  if (chosen === undefined) {
    return fail(
      'SchedulerError',
      'the number of clusters is less than the cluster spreadConstraint.MinGroups',
    );
  }
  const firsts = chosen.flatMap((g) => g.clusters.slice(0, 1));
  const rest = chosen.flatMap((g) => g.clusters.slice(1)).sort(compareCandidates);
  const want = Math.min(firsts.length + rest.length, clusterLimits.maxGroups);
  return succeed([...firsts, ...rest.slice(0, Math.max(0, want - firsts.length))]);
}

function groupByRegion(
  ranked: readonly Candidate[],
  scoreOf: (clusters: readonly Candidate[]) => number,
): readonly RegionGroup[] {
  const byRegion = new Map<string, Candidate[]>();
  for (const c of ranked) {
    const list = byRegion.get(c.cluster.region);
    if (list === undefined) byRegion.set(c.cluster.region, [c]);
    else list.push(c);
  }
  return [...byRegion].map(([name, clusters]) => ({ name, clusters, score: scoreOf(clusters) }));
}

/**
 * How well a region suits the binding. Duplicated: 1000 per cluster that can hold all replicas
 * plus their mean score. Divided: the replicas its best clusters can hold towards this region's
 * share (`ceil(replicas / region minGroups)`), ×1000, plus the mean score of the clusters used.
 */
export function regionScore(
  clusters: readonly Candidate[],
  regionMinGroups: number,
  clusterMinGroups: number,
  policy: Pick<SelectionPolicy, 'replicas' | 'duplicated'>,
): number {
  if (policy.duplicated) {
    const valid = clusters.filter((c) => c.available >= policy.replicas);
    if (valid.length === 0) return 0;
    return valid.length * WEIGHT_UNIT + Math.floor(sumScores(valid) / valid.length);
  }
  const target = Math.ceil(policy.replicas / regionMinGroups);
  const enough = Math.max(clusterMinGroups, regionMinGroups);
  let available = 0;
  let score = 0;
  let count = 0;
  for (const c of clusters) {
    available += c.available;
    score += c.score;
    count++;
    if (count >= enough && available >= target) break;
  }
  if (available < target) return available * WEIGHT_UNIT + Math.floor(score / clusters.length);
  return target * WEIGHT_UNIT + Math.floor(score / count);
}

function sumScores(items: readonly { readonly score: number }[]): number {
  let sum = 0;
  for (const x of items) sum += x.score;
  return sum;
}

/**
 * Depth-first over regions ordered by cluster count ascending (score descending, name): a
 * combination is recorded, and not extended, as soon as it holds `minClusters` clusters with a
 * region count within the region constraint. Best = highest total score, then most clusters,
 * then found first; a shorter recorded combination that starts like the best one replaces it.
 */
export function chooseRegions(
  groups: readonly RegionGroup[],
  limits: Pick<SpreadView, 'minGroups' | 'maxGroups'>,
  minClusters: number,
): readonly RegionGroup[] | undefined {
  const order = [...groups].sort(
    (a, b) => a.clusters.length - b.clusters.length || b.score - a.score || compareNames(a.name, b.name),
  );
  const paths: RegionPath[] = [];
  const stack: RegionGroup[] = [];
  let steps = 0;
  const visit = (clusterCount: number, begin: number): void => {
    if (clusterCount >= minClusters && stack.length >= limits.minGroups && stack.length <= limits.maxGroups) {
      paths.push(recordPath(stack, clusterCount, paths.length + 1));
      return;
    }
    if (stack.length >= limits.maxGroups) return;
    for (let i = begin; i < order.length && steps < MAX_REGION_SEARCH_STEPS; i++) {
      const g = order[i] as RegionGroup;
      steps++;
      stack.push(g);
      visit(clusterCount + g.clusters.length, i + 1);
      stack.pop();
    }
  };
  visit(0, 0);
  return bestPath(paths)?.regions;
}

function recordPath(stack: readonly RegionGroup[], clusterCount: number, id: number): RegionPath {
  const regions = [...stack].sort((a, b) => b.score - a.score || compareNames(a.name, b.name));
  return { regions, score: sumScores(regions), clusterCount, id };
}

function bestPath(paths: readonly RegionPath[]): RegionPath | undefined {
  const ranked = [...paths].sort(
    (a, b) => b.score - a.score || b.clusterCount - a.clusterCount || a.id - b.id,
  );
  let best = ranked[0];
  for (const p of ranked.slice(1)) {
    if (best !== undefined && isStrictPrefix(p, best)) best = p;
  }
  return best;
}

function isStrictPrefix(short: RegionPath, long: RegionPath): boolean {
  return (
    short.regions.length < long.regions.length &&
    short.regions.every((g, i) => long.regions[i]?.name === g.name)
  );
}
