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
