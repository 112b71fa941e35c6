import { describe, expect, it } from 'vitest';
import type { AggregatedStatusItem, GracefulEvictionTask, ResourceBindingSpec } from '@kf/api';
import { capturePreservedState, labelsToInject, planStateCapture } from './preserved-state.ts';

const rules = [
  { aliasLabelName: 'failover.example.com/job-id', jsonPath: '{.jobStatus.jobID}' },
  { aliasLabelName: 'failover.example.com/ready', jsonPath: '{.readyReplicas}' },
];
const statusOf = (clusterName: string, jobID: string): AggregatedStatusItem => ({
  clusterName,
  applied: true,
  health: 'Healthy',
  status: { jobStatus: { jobID }, readyReplicas: 2 },
});
const aggregated = [
  statusOf('m1', 'job-1'),
  { clusterName: 'm2', applied: false, health: 'Unknown' as const },
];

describe('capturePreservedState', () => {
  it('maps each alias label to its value from the cluster status', () => {
    expect(capturePreservedState(rules, aggregated, 'm1')).toEqual({
      ok: true,
      state: { 'failover.example.com/job-id': 'job-1', 'failover.example.com/ready': '2' },
    });
  });
  it.each([
    ['the cluster has no status', 'm2', rules, /no status collected from cluster m2/],
    ['the cluster is not in the aggregated status', 'm3', rules, /cluster m3/],
    [
      'a rule names a missing key',
      'm1',
      [{ aliasLabelName: 'a', jsonPath: '{.jobStatus.other}' }],
      /rule a .*other is not found/,
    ],
  ])('fails when %s', (_name, cluster, r, problem) => {
    const capture = capturePreservedState(r, aggregated, cluster);
    expect(capture.ok).toBe(false);
    if (!capture.ok) expect(capture.problem).toMatch(problem);
  });
});

const task = (over: Partial<GracefulEvictionTask>): GracefulEvictionTask => ({
  fromCluster: 'm1',
  purgeMode: 'Directly',
  reason: 'TaintUntolerated',
  producer: 'TaintManager',
  ...over,
});
const spec = (over: Partial<ResourceBindingSpec>): ResourceBindingSpec => ({
  resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'flink' },
  clusters: [{ name: 'm2', replicas: 1 }],
  ...over,
});

describe('planStateCapture', () => {
  it('fills the taint manager task from the cluster failover rules', () => {
    const s = spec({
      failover: { cluster: { statePreservation: { rules } } },
      gracefulEvictionTasks: [task({})],
    });
    expect(planStateCapture(s, aggregated)).toEqual({
      tasks: [
        task({
          preservedLabelState: { 'failover.example.com/job-id': 'job-1', 'failover.example.com/ready': '2' },
        }),
      ],
      problems: [],
    });
  });
  it.each<[string, Partial<ResourceBindingSpec>]>([
    ['no rules', { gracefulEvictionTasks: [task({})] }],
    [
      'state already captured',
      {
        failover: { cluster: { statePreservation: { rules } } },
        gracefulEvictionTasks: [task({ preservedLabelState: { a: 'b' } })],
      },
    ],
    [
      'rules only for the other kind of failover',
      {
        failover: { application: { decisionConditions: {}, statePreservation: { rules } } },
        gracefulEvictionTasks: [task({})],
      },
    ],
  ])('changes nothing with %s', (_name, over) => {
    expect(planStateCapture(spec(over), aggregated)).toEqual({ problems: [] });
  });
  it('reports a task whose cluster has no status and leaves it as it is', () => {
    const s = spec({
      failover: { cluster: { statePreservation: { rules } } },
      gracefulEvictionTasks: [task({ fromCluster: 'm2' })],
    });
    expect(planStateCapture(s, aggregated)).toEqual({
      problems: [{ cluster: 'm2', problem: 'no status collected from cluster m2' }],
    });
  });
});

describe('labelsToInject', () => {
  const state = { 'failover.example.com/job-id': 'job-1' };
  it.each<
    [string, Partial<ResourceBindingSpec>, readonly string[], string, Record<string, string> | undefined]
  >([
    [
      'the last Directly task into the one new cluster',
      { gracefulEvictionTasks: [task({ preservedLabelState: state })] },
      ['m2'],
      'm2',
      state,
    ],
    [
      'nothing with two target clusters',
      { gracefulEvictionTasks: [task({ preservedLabelState: state })] },
      ['m2', 'm3'],
      'm2',
      undefined,
    ],
    [
      'nothing for a Gracefully task',
      { gracefulEvictionTasks: [task({ purgeMode: 'Gracefully', preservedLabelState: state })] },
      ['m2'],
      'm2',
      undefined,
    ],
    [
      'the last Immediately task, the deprecated name of Directly, like a Directly one',
      { gracefulEvictionTasks: [task({ purgeMode: 'Immediately', preservedLabelState: state })] },
      ['m2'],
      'm2',
      state,
    ],
    [
      'nothing for a Graciously task, like a Gracefully one',
      { gracefulEvictionTasks: [task({ purgeMode: 'Graciously', preservedLabelState: state })] },
      ['m2'],
      'm2',
      undefined,
    ],
    ['nothing without tasks', {}, ['m2'], 'm2', undefined],
    ['nothing without state', { gracefulEvictionTasks: [task({})] }, ['m2'], 'm2', undefined],
    [
      'only the last task counts',
      {
        gracefulEvictionTasks: [
          task({ preservedLabelState: state }),
          task({ fromCluster: 'm3', purgeMode: 'Gracefully' }),
        ],
      },
      ['m2'],
      'm2',
      undefined,
    ],
    [
      'nothing into a cluster the workload ran on before the failover',
      { gracefulEvictionTasks: [task({ preservedLabelState: state, clustersBeforeFailover: ['m1', 'm2'] })] },
      ['m2'],
      'm2',
      undefined,
    ],
  ])('%s', (...[, over, targets, cluster, expected]) => {
    expect(labelsToInject(spec(over), targets, cluster)).toEqual(expected);
  });
});
