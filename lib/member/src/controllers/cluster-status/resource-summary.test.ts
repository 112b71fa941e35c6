import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResourceModel } from '@kf/api';
import { countModelings, summarizeCluster, type NodeView, type PodView } from './resource-summary.ts';

const node = (name: string, allocatable: Record<string, string>, ready = true): NodeView => ({
  name,
  ready,
  allocatable,
});
const pod = (nodeName: string, requests: Record<string, string>, extra: Partial<PodView> = {}): PodView => ({
  nodeName,
  phase: 'Running',
  containers: [requests],
  initContainers: [],
  ...extra,
});

describe('summarizeCluster', () => {
  it('counts nodes and Ready nodes, omitting zeros', () => {
    expect(summarizeCluster([], []).nodeSummary).toEqual({});
    expect(summarizeCluster([node('a', {}, false)], []).nodeSummary).toEqual({ totalNum: 1 });
    expect(summarizeCluster([node('a', {}), node('b', {}, false)], []).nodeSummary).toEqual({
      totalNum: 2,
      readyNum: 1,
    });
  });

  it('sums allocatable over nodes in the format each resource is written in', () => {
    const nodes = [
      node('a', { cpu: '32', memory: '256Gi', pods: '110', 'example.com/gpu': '2' }),
      node('b', { cpu: '500m', memory: '256Gi', pods: '110' }),
    ];
    expect(summarizeCluster(nodes, []).resourceSummary.allocatable).toEqual({
      cpu: '32500m',
      'example.com/gpu': '2',
      memory: '512Gi',
      pods: '220',
    });
  });

  it.each<[string, PodView[], Record<string, string> | undefined, Record<string, string> | undefined]>([
    ['no pods: both omitted', [], undefined, undefined],
    [
      'pending pods count as allocating, in any phase',
      [pod('', { cpu: '100m', memory: '64Mi' }), pod('', { cpu: '1' }, { phase: 'Failed' })],
      { cpu: '1100m', memory: '64Mi', pods: '2' },
      undefined,
    ],
    [
      'scheduled active pods count as allocated; finished ones do not',
      [
        pod('a', { cpu: '100m', memory: '64Mi' }),
        pod('a', { cpu: '100m' }, { phase: 'Pending' }),
        pod('a', { cpu: '5' }, { phase: 'Succeeded' }),
        pod('b', { cpu: '5' }, { phase: 'Failed' }),
      ],
      undefined,
      { cpu: '200m', memory: '64Mi', pods: '2' },
    ],
    [
      'overhead is added and untracked names are ignored',
      [pod('a', { cpu: '1', 'nvidia-gpu': '1' }, { overhead: { cpu: '250m', memory: '1Ki' } })],
      undefined,
      { cpu: '1250m', memory: '1Ki', pods: '1' },
    ],
    [
      'an init request raises the running total to at least its value',
      [
        pod('a', { cpu: '100m' }, { initContainers: [{ cpu: '2', memory: '1Gi' }] }),
        pod('a', { cpu: '100m' }),
      ],
      undefined,
      { cpu: '2100m', memory: '1Gi', pods: '2' },
    ],
    [
      'extended and huge-page resources are tracked',
      [pod('a', { 'example.com/gpu': '1', 'hugepages-2Mi': '4Mi' })],
      undefined,
      { 'example.com/gpu': '1', 'hugepages-2Mi': '4Mi', pods: '1' },
    ],
    [
      '5,000 pods of 100m print as 500 cores and 5k pods',
      Array.from({ length: 5000 }, () => pod('a', { cpu: '100m' })),
      undefined,
      { cpu: '500', pods: '5k' },
    ],
  ])('%s', (_name, pods, allocating, allocated) => {
    const { resourceSummary } = summarizeCluster([], pods);
    expect(resourceSummary.allocating).toEqual(allocating);
    expect(resourceSummary.allocated).toEqual(allocated);
  });

  it('leaves allocatableModelings out without models', () => {
    expect(summarizeCluster([node('a', { cpu: '1' })], []).resourceSummary).not.toHaveProperty(
      'allocatableModelings',
    );
  });

  it('never reports negative or changing totals for any set of pods (order does not matter)', () => {
    const arbPod = fc.record({
      nodeName: fc.constantFrom('', 'a', 'b'),
      phase: fc.constantFrom('Running', 'Pending', 'Succeeded', 'Failed'),
      containers: fc.array(fc.record({ cpu: fc.integer({ min: 0, max: 4000 }).map((m) => `${m}m`) }), {
        maxLength: 3,
      }),
      initContainers: fc.constant([]),
    });
    fc.assert(
      fc.property(fc.array(arbPod, { maxLength: 40 }), (pods) => {
        const a = summarizeCluster([], pods).resourceSummary;
        const b = summarizeCluster([], [...pods].reverse()).resourceSummary;
        expect(a).toEqual(b);
        for (const q of [...Object.values(a.allocated ?? {}), ...Object.values(a.allocating ?? {})]) {
          expect(String(q)).not.toMatch(/^-/);
        }
      }),
    );
  });
});

describe('countModelings', () => {
  const models: ResourceModel[] = [
    {
      grade: 0,
      ranges: [
        { name: 'cpu', min: '0', max: '1' },
        { name: 'memory', min: '0', max: '4Gi' },
      ],
    },
    {
      grade: 1,
      ranges: [
        { name: 'cpu', min: '1', max: '2' },
        { name: 'memory', min: '4Gi', max: '16Gi' },
      ],
    },
    {
      grade: 2,
      ranges: [
        { name: 'cpu', min: '2', max: '99' },
        { name: 'memory', min: '16Gi', max: '1Ti' },
      ],
    },
  ];

  it.each<[string, NodeView[], PodView[], number[]]>([
    [
      'an idle node lands in the grade its allocatable reaches',
      [node('a', { cpu: '4', memory: '32Gi', pods: '10' })],
      [],
      [0, 0, 1],
    ],
    [
      'the scarcest resource decides the grade',
      [node('a', { cpu: '4', memory: '8Gi', pods: '10' })],
      [],
      [0, 1, 0],
    ],
    [
      'requests of active pods are taken off first',
      [node('a', { cpu: '4', memory: '32Gi', pods: '10' })],
      [pod('a', { cpu: '3500m' }), pod('a', { cpu: '3' }, { phase: 'Succeeded' })],
      [1, 0, 0],
    ],
    [
      'a node with no pod capacity left stops the count for every later node',
      [
        node('a', { cpu: '4', memory: '32Gi', pods: '10' }),
        node('full', { cpu: '4', memory: '32Gi', pods: '1' }),
        node('c', { cpu: '4', memory: '32Gi', pods: '10' }),
      ],
      [pod('full', { cpu: '1' })],
      [0, 0, 1],
    ],
    [
      'a node below every minimum is not counted',
      [node('a', { cpu: '4', memory: '32Gi', pods: '10' })],
      [pod('a', { cpu: '5' })],
      [0, 0, 0],
    ],
  ])('%s', (_name, nodes, pods, counts) => {
    expect(countModelings(nodes, pods, models)).toEqual(counts.map((count, grade) => ({ grade, count })));
  });
});
