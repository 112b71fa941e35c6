import { describe, expect, it } from 'vitest';
import {
  choosePlugins,
  describeNoFit,
  filterClusters,
  fits,
  unfit,
  type FilterPlugin,
  type Plugins,
  type ScorePlugin,
} from './framework.ts';
import { attemptFor, binding, cluster } from './test-builders.ts';

const refuse = (name: string, cluster: string, reason: string): FilterPlugin => ({
  name,
  filter: (_a, c) => (c.name === cluster ? unfit(reason) : fits),
});
const scoreBy = (name: string, points: Readonly<Record<string, number>>): ScorePlugin => ({
  name,
  score: (_a, c) => points[c.name] ?? 0,
});

describe('filterClusters', () => {
  const plugins: Plugins = {
    filters: [
      refuse('First', 'b', 'b is out'),
      refuse('Second', 'b', 'never seen'),
      refuse('Third', 'a', 'a is out'),
    ],
    scorers: [scoreBy('X', { c: 10, d: 5 }), scoreBy('Y', { c: 1 })],
  };
  const clusters = [
    cluster('d'),
    cluster('b'),
    cluster('a'),
    cluster('c'),
    cluster('gone', { deleting: true }),
  ];

  it('keeps clusters every filter accepts, scored by the sum of the scorers', () => {
    const { feasible } = filterClusters(attemptFor(binding()), clusters, plugins);
    expect(feasible.map((f) => [f.cluster.name, f.score])).toEqual([
      ['d', 5],
      ['c', 11],
    ]);
  });

  it('reports the first filter that refused each cluster, sorted by cluster', () => {
    const { rejected } = filterClusters(attemptFor(binding()), clusters, plugins);
    expect(rejected).toEqual([
      { cluster: 'a', plugin: 'Third', reason: 'a is out' },
      { cluster: 'b', plugin: 'First', reason: 'b is out' },
    ]);
  });

  it('skips clusters being deleted without reporting them', () => {
    const { feasible, rejected } = filterClusters(attemptFor(binding()), clusters, plugins);
    expect([...feasible.map((f) => f.cluster.name), ...rejected.map((r) => r.cluster)]).not.toContain('gone');
  });
});

describe('describeNoFit', () => {
  it('counts reasons and sorts the entries as strings', () => {
    const rejected = [
      { cluster: 'a', plugin: 'P', reason: 'cluster(s) had untolerated taint {k:NoSchedule}' },
      {
        cluster: 'b',
        plugin: 'P',
        reason: 'cluster(s) did not match the placement cluster affinity constraint',
      },
      {
        cluster: 'c',
        plugin: 'P',
        reason: 'cluster(s) did not match the placement cluster affinity constraint',
      },
      { cluster: 'd', plugin: 'P', reason: 'cluster(s) is in the process of eviction' },
    ];
    expect(describeNoFit(5, rejected)).toBe(
      '0/5 clusters are available: 1 cluster(s) had untolerated taint {k:NoSchedule}, ' +
        '1 cluster(s) is in the process of eviction, ' +
        '2 cluster(s) did not match the placement cluster affinity constraint.',
    );
  });

  it('says so when there is no cluster', () => {
    expect(describeNoFit(0, [])).toBe('0/0 clusters are available: no cluster exists.');
  });
});

describe('choosePlugins', () => {
  const registry: Plugins = {
    filters: [refuse('A', '', ''), refuse('B', '', ''), refuse('Both', '', '')],
    scorers: [scoreBy('S', {}), scoreBy('Both', {})],
  };
  const names = (p: Plugins) => [p.filters.map((f) => f.name), p.scorers.map((s) => s.name)];

  it.each<[string, readonly string[], string[][]]>([
    [
      '* enables all',
      ['*'],
      [
        ['A', 'B', 'Both'],
        ['S', 'Both'],
      ],
    ],
    [
      '-Name disables one',
      ['*', '-B'],
      [
        ['A', 'Both'],
        ['S', 'Both'],
      ],
    ],
    ['a name disables filter and scorer of that name', ['*', '-Both'], [['A', 'B'], ['S']]],
    ['only the listed ones without *', ['A', 'S'], [['A'], ['S']]],
    ['disabling wins over enabling', ['A', '-A'], [[], []]],
    ['nothing listed, nothing enabled', [], [[], []]],
  ])('%s', (_name, list, expected) => {
    expect(names(choosePlugins(registry, list))).toEqual(expected);
  });
});
