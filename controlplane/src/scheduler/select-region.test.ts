import { describe, expect, it } from 'vitest';
import type { SpreadView } from './binding-view.ts';
import { compareCandidates, type Candidate } from './candidate.ts';
import { chooseRegions, regionScore, selectByRegion, type RegionGroup } from './select-region.ts';
import type { SelectionPolicy } from './select.ts';
import { candidate } from './test-builders.ts';

const spread = (field: 'region' | 'cluster', minGroups: number, maxGroups: number): SpreadView => ({
  field,
  label: undefined,
  minGroups,
  maxGroups,
});
const divided = (replicas: number): SelectionPolicy => ({
  spreadConstraints: [],
  staticWeighting: false,
  needReplicas: replicas,
  replicas,
  duplicated: false,
});
const dup = (replicas: number): SelectionPolicy => ({
  ...divided(replicas),
  needReplicas: -1,
  duplicated: true,
});
const c = (name: string, region: string, available: number, score = 0): Candidate =>
  candidate(name, { region, allocatable: available, score });
const group = (name: string, size: number, score: number): RegionGroup => ({
  name,
  score,
  clusters: Array.from({ length: size }, (_, i) => c(`${name}-${i}`, name, 1)),
});

describe('regionScore', () => {
  it.each<[string, Candidate[], number, number, SelectionPolicy, number]>([
    // Duplicated: 1000 per cluster holding all replicas + mean score of those.
    [
      'duplicated, two clusters fit',
      [c('a', 'r', 10, 100), c('b', 'r', 10, 0), c('x', 'r', 1, 100)],
      1,
      1,
      dup(5),
      2050,
    ],
    ['duplicated, none fits', [c('a', 'r', 1)], 1, 1, dup(5), 0],
    // Divided: target = ceil(10 / 2) = 5, walk until ≥ max(1, 2) clusters and ≥ 5 replicas.
    [
      'divided, enough after two clusters',
      [c('a', 'r', 4, 100), c('b', 'r', 4, 0), c('x', 'r', 9, 100)],
      2,
      1,
      divided(10),
      5050,
    ],
    [
      'divided, short of the target',
      [c('a', 'r', 1, 100), c('b', 'r', 2, 100), c('x', 'r', 1, 0)],
      2,
      1,
      divided(10),
      4066,
    ],
    [
      'divided, cluster minGroups makes it walk further',
      [c('a', 'r', 9, 90), c('b', 'r', 1, 0), c('x', 'r', 1, 30)],
      1,
      3,
      divided(5),
      5040,
    ],
  ])('%s → %d', (...[, clusters, regionMin, clusterMin, policy, score]) => {
    expect(regionScore(clusters, regionMin, clusterMin, policy)).toBe(score);
  });
});

describe('chooseRegions', () => {
  const regions = (out: readonly RegionGroup[] | undefined) => out?.map((g) => g.name);

  it('takes the highest-scoring combination that holds enough clusters', () => {
    const gs = [group('r1', 1, 3000), group('r2', 1, 2000), group('r3', 2, 1000)];
    expect(regions(chooseRegions(gs, { minGroups: 2, maxGroups: 2 }, 2))).toEqual(['r1', 'r2']);
  });

  it('grows the combination until it holds the clusters the cluster constraint needs', () => {
    const gs = [group('r1', 1, 3000), group('r2', 1, 2000), group('r3', 1, 1000)];
    expect(regions(chooseRegions(gs, { minGroups: 1, maxGroups: 3 }, 3))).toEqual(['r1', 'r2', 'r3']);
  });

  it('prefers more clusters on equal score, then the first found', () => {
    const gs = [group('r1', 1, 1000), group('r2', 3, 1000), group('r3', 2, 1000)];
    expect(regions(chooseRegions(gs, { minGroups: 1, maxGroups: 1 }, 1))).toEqual(['r2']);
  });

  it('prefers a shorter combination that the best one starts with', () => {
    // Search order X, Y (fewer clusters first): [X] is too small, so [X,Y] is recorded (as Y,X by
    // score, 3100); then [Y] alone (3000). [Y] ranks lower but is a strict prefix of [Y,X]: it wins.
    const gs = [group('X', 1, 100), group('Y', 3, 3000)];
    expect(regions(chooseRegions(gs, { minGroups: 1, maxGroups: 2 }, 2))).toEqual(['Y']);
  });

  it('records a combination without extending it', () => {
    // [B] already holds a cluster, so [B,A] is never recorded; [A] wins on score.
    const gs = [group('A', 2, 2000), group('B', 1, 1000)];
    expect(regions(chooseRegions(gs, { minGroups: 1, maxGroups: 2 }, 1))).toEqual(['A']);
  });

  it('finds nothing when no combination within maxGroups holds enough clusters', () => {
    const gs = [group('r1', 1, 1), group('r2', 1, 1)];
    expect(chooseRegions(gs, { minGroups: 1, maxGroups: 1 }, 2)).toBeUndefined();
    expect(chooseRegions(gs, { minGroups: 1, maxGroups: 0 }, 1)).toBeUndefined();
  });

  it('bounds the search when single-cluster regions would make it explode', () => {
    const gs = Array.from({ length: 60 }, (_, i) => group(`r${String(i).padStart(2, '0')}`, 1, i));
    const start = performance.now();
    const chosen = chooseRegions(gs, { minGroups: 20, maxGroups: 30 }, 25);
    expect(performance.now() - start).toBeLessThan(2000);
    expect(chosen?.length).toBe(25);
  });

  it('uses the only combination when every region is needed', () => {
    const gs = [group('r1', 1, 5), group('r2', 2, 9)];
    expect(regions(chooseRegions(gs, { minGroups: 2, maxGroups: 2 }, 1))).toEqual(['r2', 'r1']);
  });
});

describe('selectByRegion', () => {
  const cs = [
    c('e1', 'east', 10, 100),
    c('e2', 'east', 8),
    c('w1', 'west', 9),
    c('w2', 'west', 3),
    c('s1', 'south', 1),
  ].sort(compareCandidates);
  const pick = (region: SpreadView, cluster: SpreadView | undefined, p: SelectionPolicy) => {
    const out = selectByRegion(cs, region, cluster, p);
    return out.ok ? out.value.map((x) => x.name) : out.failure.message;
  };

  it('takes the best cluster of each chosen region, then the best of the rest up to cluster maxGroups', () => {
    expect(pick(spread('region', 2, 2), spread('cluster', 3, 3), divided(6))).toEqual(['e1', 'w1', 'e2']);
  });

  it('stops at one cluster per region when cluster maxGroups allows no more', () => {
    expect(pick(spread('region', 2, 2), spread('cluster', 2, 2), divided(6))).toEqual(['e1', 'w1']);
  });

  it('refuses fewer regions than region minGroups', () => {
    expect(pick(spread('region', 4, 4), spread('cluster', 1, 4), divided(6))).toBe(
      'the number of feasible region is less than spreadConstraint.MinGroups',
    );
  });

  it('refuses when the chosen regions cannot hold cluster minGroups', () => {
    expect(pick(spread('region', 1, 1), spread('cluster', 3, 3), divided(6))).toBe(
      'the number of clusters is less than the cluster spreadConstraint.MinGroups',
    );
  });

  it('reads a missing cluster constraint as zeros: one cluster per region', () => {
    expect(pick(spread('region', 2, 2), undefined, dup(1))).toEqual(['e1', 'w1']);
  });
});
