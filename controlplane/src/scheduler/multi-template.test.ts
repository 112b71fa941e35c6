/**
 * Multi-template workloads (`spec.components`, gate MultiplePodTemplatesScheduling): placed whole,
 * where one set of their components fits, when the placement asks for exactly one cluster.
 */
import type { Component, Placement, ResourceBinding, ResourceList } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { toBindingView } from './binding-view.ts';
import { estimateComponentSets } from './estimate.ts';
import { DEFAULT_SCHEDULER_OPTIONS, scheduleBinding } from './schedule.ts';
import { bindingObject, cluster } from './test-builders.ts';

/** A FlinkDeployment's shape: one job manager (1 CPU, 1Gi) and three task managers (2 CPU, 2Gi). */
const FLINK: readonly Component[] = [
  {
    name: 'jobmanager',
    replicas: 1,
    replicaRequirements: { resourceRequest: { cpu: '1', memory: '1Gi' } },
  },
  {
    name: 'taskmanager',
    replicas: 3,
    replicaRequirements: { resourceRequest: { cpu: '2', memory: '2Gi' } },
  },
];

const ONE_CLUSTER: Placement = {
  spreadConstraints: [{ spreadByField: 'cluster', minGroups: 1, maxGroups: 1 }],
};

function flinkBinding(placement: Placement = ONE_CLUSTER, components = FLINK): ResourceBinding {
  const b = bindingObject({
    replicas: 0,
    placement,
    apiVersion: 'flink.apache.org/v1beta1',
    kind: 'FlinkDeployment',
  });
  return { ...b, spec: { ...b.spec, components } };
}

const FLINK_API = 'flink.apache.org/v1beta1/FlinkDeployment';
const free = (allocatable: ResourceList, allocated: ResourceList = {}) =>
  ({ summary: { allocatable, allocated, allocating: {} }, apis: [FLINK_API] }) as const;

const gateOn = { ...DEFAULT_SCHEDULER_OPTIONS, multiplePodTemplates: true };

describe('one set of components', () => {
  it('sums pods and requests over the components, each request times its replicas', () => {
    const view = toBindingView(flinkBinding());
    expect(view.componentSet.pods).toBe(4);
    expect(view.componentSet.requestMilli.get('cpu')).toBe(7_000);
    expect(view.componentSet.requestMilli.get('memory')).toBe(7 * 2 ** 30 * 1000);
  });

  it.each<[string, Placement, boolean]>([
    ['cluster field, 1..1', ONE_CLUSTER, true],
    [
      'no field and no label mean cluster; minGroups defaults to 1',
      { spreadConstraints: [{ maxGroups: 1 }] },
      true,
    ],
    [
      'more than one cluster allowed',
      { spreadConstraints: [{ spreadByField: 'cluster', minGroups: 1, maxGroups: 2 }] },
      false,
    ],
    [
      'spread by region',
      { spreadConstraints: [{ spreadByField: 'region', minGroups: 1, maxGroups: 1 }] },
      false,
    ],
    [
      'spread by label',
      { spreadConstraints: [{ spreadByLabel: 'zone', minGroups: 1, maxGroups: 1 }] },
      false,
    ],
    ['no spread constraint', {}, false],
  ])('single-cluster placement: %s', (_name, placement, expected) => {
    expect(toBindingView(flinkBinding(placement)).singleClusterComponents).toBe(expected);
  });

  it('is not a single-cluster workload without components', () => {
    expect(toBindingView(flinkBinding(ONE_CLUSTER, [])).singleClusterComponents).toBe(false);
  });
});

describe('estimateComponentSets (general estimator)', () => {
  const set = toBindingView(flinkBinding()).componentSet;
  it.each<[string, Parameters<typeof cluster>[1], number]>([
    ['no resource summary', { summary: null }, 0],
    ['no free pod slot', free({ pods: 10, cpu: '100', memory: '100Gi' }, { pods: 10 }), 0],
    ['pods bound: 9 free slots take two sets of four', free({ pods: 9, cpu: '100', memory: '100Gi' }), 2],
    ['CPU bound: 15 CPUs take two sets of 7', free({ pods: 100, cpu: '15', memory: '100Gi' }), 2],
    ['memory bound: 20Gi take two sets of 7Gi', free({ pods: 100, cpu: '100', memory: '20Gi' }), 2],
    ['less than one set of CPU', free({ pods: 100, cpu: '6', memory: '100Gi' }), 0],
    ['used CPU counts', free({ pods: 100, cpu: '16', memory: '100Gi' }, { cpu: '10' }), 0],
    ['a requested resource not listed', free({ pods: 100, cpu: '100' }), 0],
  ])('%s', (_name, clusterOptions, expected) => {
    expect(estimateComponentSets(set, cluster('c', clusterOptions))).toBe(expected);
  });

  it('gives every free pod slot to components without pods', () => {
    const empty = toBindingView(flinkBinding(ONE_CLUSTER, [{ name: 'idle', replicas: 0 }])).componentSet;
    expect(estimateComponentSets(empty, cluster('c', { pods: 33 }))).toBe(33);
  });
});

describe('scheduling a multi-template workload', () => {
  const small = cluster('small', free({ pods: 100, cpu: '6', memory: '100Gi' }));
  const large = cluster('large', free({ pods: 100, cpu: '8', memory: '100Gi' }));

  it('with the gate, goes whole to the one cluster where a set fits, without replicas', () => {
    const r = scheduleBinding(toBindingView(flinkBinding()), [small, large], 0, gateOn);
    expect(r.condition.status).toBe('True');
    expect(r.clusters).toEqual([{ name: 'large' }]);
  });

  it('with the gate, fails when no cluster takes a whole set', () => {
    const r = scheduleBinding(toBindingView(flinkBinding()), [small], 0, gateOn);
    expect(r.condition.status).toBe('False');
  });

  it('without the gate, is not estimated by sets: the cluster without room for a set is chosen too', () => {
    const r = scheduleBinding(toBindingView(flinkBinding()), [small], 0, DEFAULT_SCHEDULER_OPTIONS);
    expect(r.condition.status).toBe('True');
    expect(r.clusters).toEqual([{ name: 'small' }]);
  });
});
