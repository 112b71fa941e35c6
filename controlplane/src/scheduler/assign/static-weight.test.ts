import type { StaticClusterWeight } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { candidate, cluster, replicasOf } from '../test-builders.ts';
import { assignStaticWeight, weightOf } from './static-weight.ts';

const rule = (clusterNames: string[], weight: number): StaticClusterWeight => ({
  targetCluster: { clusterNames },
  weight,
});

describe('weightOf', () => {
  it.each<[string, readonly StaticClusterWeight[], number]>([
    ['no rule', [], 0],
    ['a rule for another cluster', [rule(['b'], 3)], 0],
    ['the matching rule', [rule(['a'], 3)], 3],
    ['the largest matching rule', [rule(['a'], 3), rule([], 5), rule(['a', 'b'], 4)], 5],
  ])('%s → %d', (_name, rules, weight) => {
    expect(weightOf(cluster('a'), rules)).toBe(weight);
  });
});

describe('assignStaticWeight', () => {
  const abc = [candidate('c'), candidate('a'), candidate('b')];
  it.each<[string, number, readonly StaticClusterWeight[] | undefined, Record<string, number>]>([
    ['no weight preference: equal weights', 10, undefined, { a: 4, b: 3, c: 3 }],
    ['weights 1:2 over a and b; c is not weighted', 9, [rule(['a'], 1), rule(['b'], 2)], { a: 3, b: 6 }],
    ['no rule selects a candidate: equal weights', 3, [rule(['x'], 7)], { a: 1, b: 1, c: 1 }],
    ['zero replicas', 0, [rule(['a'], 1)], { a: 0 }],
  ])('%s', (_name, replicas, rules, expected) => {
    expect(replicasOf(assignStaticWeight(replicas, abc, rules, 'ascending'))).toEqual(expected);
  });

  it('lists the result by name', () => {
    expect(assignStaticWeight(3, abc, undefined, 'ascending').map((t) => t.name)).toEqual(['a', 'b', 'c']);
  });

  it('ignores capacity and the previous assignment', () => {
    const tight = [candidate('a', { allocatable: 0 }), candidate('b', { allocatable: 1 })];
    expect(replicasOf(assignStaticWeight(9, tight, [rule(['a'], 1), rule(['b'], 2)], 'ascending'))).toEqual({
      a: 3,
      b: 6,
    });
  });
});
