import type { Placement } from '@kf/api';
import { describe, expect, it } from 'vitest';
import type { Attempt } from '../framework.ts';
import { attemptFor, binding, cluster } from '../test-builders.ts';
import { clusterAffinityFilter, clusterAffinityScore } from './cluster-affinity.ts';

const reason = 'cluster(s) did not match the placement cluster affinity constraint';
const tiered: Placement = {
  clusterAffinities: [
    {
      affinityName: 'primary',
      clusterNames: ['a'],
      overflowAffinities: [{ affinityName: 'burst', clusterNames: ['b'] }],
    },
  ],
};

describe('ClusterAffinity filter', () => {
  it.each<[string, Placement, number, string, boolean]>([
    ['no affinity passes all', {}, 1, 'x', true],
    ['clusterAffinity matches', { clusterAffinity: { clusterNames: ['a'] } }, 1, 'a', true],
    ['clusterAffinity does not match', { clusterAffinity: { clusterNames: ['a'] } }, 1, 'x', false],
    ['term inline affinity', tiered, 1, 'a', true],
    ['overflow affinity for workloads', tiered, 1, 'b', true],
    ['overflow affinity ignored for non-workloads', tiered, 0, 'b', false],
    ['neither term nor overflow', tiered, 1, 'x', false],
  ])('%s', (...[, placement, replicas, name, ok]) => {
    const fit = clusterAffinityFilter.filter(attemptFor(binding({ replicas, placement })), cluster(name));
    expect(fit).toEqual(ok ? { ok: true } : { ok: false, reason });
  });

  it('uses the term of the attempt, not the first term', () => {
    const b = binding({
      replicas: 1,
      placement: {
        clusterAffinities: [
          { affinityName: 'one', clusterNames: ['a'] },
          { affinityName: 'two', clusterNames: ['b'] },
        ],
      },
    });
    const base = attemptFor(b);
    const second: Attempt = {
      ...base,
      term: { name: 'two', affinity: { clusterNames: ['b'] }, overflow: [] },
    };
    expect(clusterAffinityFilter.filter(second, cluster('b')).ok).toBe(true);
    expect(clusterAffinityFilter.filter(second, cluster('a')).ok).toBe(false);
  });
});

describe('ClusterAffinity score', () => {
  it('scores every cluster 0', () => {
    expect(clusterAffinityScore.score(attemptFor(binding()), cluster('a'))).toBe(0);
  });
});

describe('ClusterAffinity: the only clusters it can accept', () => {
  const only = (placement: Placement, replicas = 1): readonly string[] | undefined => {
    const names = clusterAffinityFilter.onlyClusters?.(attemptFor(binding({ replicas, placement })));
    return names === undefined ? undefined : [...names].sort();
  };

  it.each<[string, Placement, number, readonly string[] | undefined]>([
    ['no affinity: any', {}, 1, undefined],
    ['names listed: those', { clusterAffinity: { clusterNames: ['b', 'a'] } }, 1, ['a', 'b']],
    [
      'a label selector alone: any',
      { clusterAffinity: { labelSelector: { matchLabels: { x: 'y' } } } },
      1,
      undefined,
    ],
    [
      'names with a selector: those names at most',
      { clusterAffinity: { clusterNames: ['a'], labelSelector: { matchLabels: { x: 'y' } } } },
      1,
      ['a'],
    ],
    ['term and overflow for a workload', tiered, 1, ['a', 'b']],
    ['the term alone for a non-workload', tiered, 0, ['a']],
    [
      'an overflow without names: any',
      {
        clusterAffinities: [
          {
            affinityName: 't',
            clusterNames: ['a'],
            overflowAffinities: [{ affinityName: 'o', exclude: ['c'] }],
          },
        ],
      },
      1,
      undefined,
    ],
  ])('%s', (...[, placement, replicas, names]) => {
    expect(only(placement, replicas)).toEqual(names);
  });

  it('never leaves out a cluster the filter accepts', () => {
    const clusters = ['a', 'b', 'c', 'd'].map((n) => cluster(n, { labels: { x: n < 'c' ? 'y' : 'z' } }));
    const placements: Placement[] = [
      { clusterAffinity: { clusterNames: ['a', 'c'], exclude: ['c'] } },
      { clusterAffinity: { clusterNames: ['a', 'd'], labelSelector: { matchLabels: { x: 'y' } } } },
      tiered,
    ];
    const attempts = placements.flatMap((placement) =>
      [0, 1].map((replicas) => attemptFor(binding({ replicas, placement }))),
    );
    for (const a of attempts) {
      const names = clusterAffinityFilter.onlyClusters?.(a);
      const accepted = clusters.filter((c) => clusterAffinityFilter.filter(a, c).ok).map((c) => c.name);
      expect(accepted.length).toBeGreaterThan(0);
      expect(accepted.filter((n) => names?.has(n) !== true)).toEqual([]);
    }
  });
});
