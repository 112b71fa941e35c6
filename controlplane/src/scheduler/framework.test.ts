import { describe, expect, it } from 'vitest';
import {
  choosePlugins,
  describeNoFit,
  feasibleClusters,
  filterClusters,
  fits,
  unfit,
  type FilterPlugin,
  type Plugins,
  type ScorePlugin,
} from './framework.ts';
import fc from 'fast-check';
import { defaultPlugins } from './plugins/registry.ts';
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

describe('feasibleClusters', () => {
  it('runs no filter on a cluster a filter rules out by name', () => {
    const seen: string[] = [];
    const plugins: Plugins = {
      filters: [
        {
          name: 'Names',
          filter: (_a, c) => (c.name === 'a' || c.name === 'c' ? fits : unfit('not named')),
          onlyClusters: () => new Set(['a', 'c']),
        },
        { name: 'Seen', filter: (_a, c) => (seen.push(c.name), c.name === 'c' ? unfit('c is out') : fits) },
      ],
      scorers: [scoreBy('X', { a: 3 })],
    };
    const clusters = ['d', 'c', 'b', 'a'].map((n) => cluster(n));
    const feasible = feasibleClusters(attemptFor(binding()), clusters, plugins);
    expect(feasible.map((f) => [f.cluster.name, f.score])).toEqual([['a', 3]]);
    expect(seen).toEqual(['c', 'a']);
  });

  it('keeps only the clusters every naming filter names', () => {
    const naming = (names: readonly string[]): FilterPlugin => ({
      name: names.join(''),
      filter: (_a, c) => (names.includes(c.name) ? fits : unfit('no')),
      onlyClusters: () => new Set(names),
    });
    const plugins: Plugins = { filters: [naming(['a', 'b']), naming(['b', 'c'])], scorers: [] };
    const clusters = ['a', 'b', 'c'].map((n) => cluster(n));
    expect(feasibleClusters(attemptFor(binding()), clusters, plugins).map((f) => f.cluster.name)).toEqual([
      'b',
    ]);
  });

  it('finds what filterClusters finds feasible, scores included, with the default plugins', () => {
    const names = ['m1', 'm2', 'm3', 'm4', 'm5'];
    const clusterArb = fc.record({
      cordoned: fc.boolean(),
      deleting: fc.boolean(),
      region: fc.constantFrom('r1', 'r2'),
      apis: fc.boolean(),
    });
    const affinityArb = fc.record(
      {
        clusterNames: fc.subarray(names),
        exclude: fc.subarray(names, { maxLength: 2 }),
        labelSelector: fc.constant({ matchLabels: { region: 'r1' } }),
      },
      { requiredKeys: [] },
    );
    const placementArb = fc.oneof(
      fc.record({ clusterAffinity: affinityArb }, { requiredKeys: [] }),
      fc.record({
        clusterAffinities: fc.constant([]).chain(() =>
          fc.tuple(affinityArb, fc.array(affinityArb, { maxLength: 2 })).map(([term, overflow]) => [
            {
              affinityName: 'term',
              ...term,
              overflowAffinities: overflow.map((o, i) => ({ affinityName: `o${i}`, ...o })),
            },
          ]),
        ),
      }),
    );
    fc.assert(
      fc.property(
        fc.tuple(...names.map(() => clusterArb)),
        placementArb,
        fc.integer({ min: 0, max: 4 }),
        (cs, placement, replicas) => {
          const clusters = cs.map((c, i) =>
            cluster(names[i]!, {
              deleting: c.deleting,
              region: c.region,
              labels: { region: c.region },
              ...(c.apis ? {} : { apis: [] }),
              ...(c.cordoned ? { taints: [{ key: 'k', effect: 'NoSchedule' }] } : {}),
            }),
          );
          const a = attemptFor(binding({ replicas, placement }));
          const full = filterClusters(a, clusters, defaultPlugins).feasible;
          const fast = feasibleClusters(a, clusters, defaultPlugins);
          expect(fast.map((f) => [f.cluster.name, f.score])).toEqual(
            full.map((f) => [f.cluster.name, f.score]),
          );
        },
      ),
      { numRuns: 300 },
    );
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
