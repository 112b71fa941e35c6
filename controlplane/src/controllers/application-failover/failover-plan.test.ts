import { describe, expect, it } from 'vitest';
import {
  annotations,
  type AggregatedStatusItem,
  type ApplicationFailoverBehavior,
  type ResourceBindingSpec,
  type ResourceHealth,
} from '@kf/api';
import { parseEvictionHistory } from '../../scheduler/eviction-history-annotation.ts';
import {
  evictionPatch,
  planApplicationFailover,
  recordPatch,
  type ApplicationFailoverGates,
  type ApplicationFailoverInput,
  type ApplicationFailoverPlan,
} from './failover-plan.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const gates: ApplicationFailoverGates = { gracefulEviction: true, statefulFailoverInjection: false };
const item = (
  clusterName: string,
  health: ResourceHealth,
  jobID = 'j-' + clusterName,
): AggregatedStatusItem => ({
  clusterName,
  applied: true,
  health,
  status: { jobStatus: { jobID }, readyReplicas: 1 },
});

const app = (over: Partial<ApplicationFailoverBehavior> = {}): ApplicationFailoverBehavior => ({
  decisionConditions: { tolerationSeconds: 60 },
  ...over,
});
const spec = (
  application: ApplicationFailoverBehavior | undefined,
  over: Partial<ResourceBindingSpec> = {},
): ResourceBindingSpec => ({
  resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
  replicas: 2,
  clusters: [
    { name: 'm1', replicas: 1 },
    { name: 'm2', replicas: 1 },
  ],
  ...(application === undefined ? {} : { failover: { application } }),
  ...over,
});

const SINCE = annotations.applicationFailoverUnhealthySince;
/** The binding's record: m1 first seen unhealthy at T0. */
const M1_SINCE_T0 = { [SINCE]: `{"m1":"${new Date(T0).toISOString()}"}` };

/**
 * m1 was healthy, has been unhealthy since T0 (recorded on the binding: `unhealthySince`, merged
 * under the other annotations); we look at T0 + 60s.
 */
const due = (
  over: Partial<ApplicationFailoverInput> = {},
  unhealthySince: Readonly<Record<string, string>> = M1_SINCE_T0,
): ApplicationFailoverInput => ({
  spec: spec(app()),
  aggregatedStatus: [item('m1', 'Unhealthy'), item('m2', 'Healthy')],
  memory: { m1: { healthySeen: true }, m2: { healthySeen: true } },
  nowMs: T0 + 60_000,
  clusterScoped: false,
  gates,
  ...over,
  annotations: { ...unhealthySince, ...over.annotations },
});

/** The eviction history the plan writes, read back from its annotation. */
const historyOf = (plan: ApplicationFailoverPlan): ReturnType<typeof parseEvictionHistory> =>
  parseEvictionHistory(plan.change?.annotations[annotations.evictionHistory]);

describe('planApplicationFailover', () => {
  it('does nothing and forgets the timers without spec.failover.application', () => {
    expect(planApplicationFailover(due({ spec: spec(undefined) }, {}))).toEqual({ memory: {}, evicted: [] });
  });

  it('does nothing before status is aggregated', () => {
    expect(planApplicationFailover(due({ aggregatedStatus: [] }))).toEqual({ memory: {}, evicted: [] });
  });

  it('waits for the rest of tolerationSeconds', () => {
    const plan = planApplicationFailover(due({ nowMs: T0 + 45_000 }));
    expect(plan).toMatchObject({ evicted: [], recheckInMs: 15_000 });
    expect(plan.change).toBeUndefined();
  });

  it('does not time a cluster where the workload was never healthy', () => {
    const plan = planApplicationFailover(due({ memory: {} }, {}));
    expect(plan).toEqual({ memory: { m2: { healthySeen: true } }, evicted: [], healthyToRecord: ['m2'] });
  });

  describe('clusters recorded as seen Healthy', () => {
    it('survive a restart: an unhealthy cluster recorded healthy is timed from first sight', () => {
      const restarted = due({ memory: {}, healthyRecorded: ['m1', 'm2'] }, {});
      expect(planApplicationFailover(restarted)).toEqual({
        memory: { m1: { healthySeen: true, unhealthySinceMs: T0 + 60_000 }, m2: { healthySeen: true } },
        evicted: [],
        recheckInMs: 60_000,
        unhealthySinceToRecord: `{"m1":"${new Date(T0 + 60_000).toISOString()}"}`,
      });
    });

    it('are recorded when a cluster is first seen Healthy', () => {
      expect(
        planApplicationFailover(due({ nowMs: T0 + 1_000, healthyRecorded: ['m1'] })).healthyToRecord,
      ).toEqual(['m1', 'm2']);
    });

    it('drop a cluster once it is evicted', () => {
      expect(planApplicationFailover(due({ healthyRecorded: ['m1', 'm2'] })).healthyToRecord).toEqual(['m2']);
    });

    it('are removed when the binding has no application failover', () => {
      expect(planApplicationFailover(due({ spec: spec(undefined), healthyRecorded: ['m1'] }, {}))).toEqual({
        memory: {},
        evicted: [],
        healthyToRecord: [],
      });
    });

    it('are left alone while no status is collected', () => {
      expect(
        planApplicationFailover(due({ aggregatedStatus: [], healthyRecorded: ['m1'] })).healthyToRecord,
      ).toBe(undefined);
    });
  });

  describe('first unhealthy sightings recorded on the binding', () => {
    const sinceOf = (...entries: [string, number][]): string =>
      JSON.stringify(Object.fromEntries(entries.map(([c, ms]) => [c, new Date(ms).toISOString()])));

    it('are recorded when a timed cluster is first seen Unhealthy', () => {
      const plan = planApplicationFailover(due({ nowMs: T0 }, {}));
      expect(plan).toMatchObject({
        evicted: [],
        recheckInMs: 60_000,
        unhealthySinceToRecord: sinceOf(['m1', T0]),
      });
    });

    it('time a restarted controller (empty memory) from the recorded sighting, not its own first look', () => {
      const restarted = due({ memory: {}, healthyRecorded: ['m1', 'm2'], nowMs: T0 + 45_000 });
      const plan = planApplicationFailover(restarted);
      expect(plan).toMatchObject({ evicted: [], recheckInMs: 15_000 });
      expect(plan.memory['m1']?.unhealthySinceMs).toBe(T0);
      expect(plan).not.toHaveProperty('unhealthySinceToRecord');
    });

    it('evict tolerationSeconds after the recorded sighting, even on a new leader’s first look', () => {
      const plan = planApplicationFailover(due({ memory: {}, healthyRecorded: ['m1', 'm2'] }));
      expect(plan.evicted.map((e) => e.cluster)).toEqual(['m1']);
    });

    it('win over a later sighting this process remembers (another leader saw it first)', () => {
      const memory = { m1: { healthySeen: true, unhealthySinceMs: T0 + 30_000 }, m2: { healthySeen: true } };
      expect(planApplicationFailover(due({ memory })).evicted.map((e) => e.cluster)).toEqual(['m1']);
    });

    it('are left alone while they hold', () => {
      const plan = planApplicationFailover(due({ nowMs: T0 + 10_000 }));
      expect(plan).not.toHaveProperty('unhealthySinceToRecord');
      expect(plan).not.toHaveProperty('recordProblems');
    });

    it('go when the workload is Healthy again on the cluster', () => {
      const healthy = [item('m1', 'Healthy'), item('m2', 'Healthy')];
      expect(planApplicationFailover(due({ aggregatedStatus: healthy, nowMs: T0 + 10_000 }))).toMatchObject({
        evicted: [],
        unhealthySinceToRecord: null,
      });
    });

    it('go when the health on the cluster turns Unknown (the timer stops, as upstream)', () => {
      const unknown = [item('m1', 'Unknown'), item('m2', 'Healthy')];
      expect(
        planApplicationFailover(due({ aggregatedStatus: unknown, nowMs: T0 + 10_000 }))
          .unhealthySinceToRecord,
      ).toBeNull();
    });

    it('go when the cluster leaves the binding', () => {
      const plan = planApplicationFailover(
        due({ spec: spec(app(), { clusters: [{ name: 'm2', replicas: 2 }] }), nowMs: T0 + 10_000 }),
      );
      expect(plan.unhealthySinceToRecord).toBeNull();
    });

    it('go with the cluster evicted, in the eviction write', () => {
      const plan = planApplicationFailover(due());
      expect(plan.evicted.map((e) => e.cluster)).toEqual(['m1']);
      expect(plan.unhealthySinceToRecord).toBeNull();
    });

    it('keep the other clusters when one goes', () => {
      const both = [item('m1', 'Unhealthy'), item('m2', 'Unhealthy')];
      const plan = planApplicationFailover(
        due({ aggregatedStatus: both }, { [SINCE]: sinceOf(['m1', T0], ['m2', T0 + 20_000]) }),
      );
      expect(plan.evicted.map((e) => e.cluster)).toEqual(['m1']);
      expect(plan.unhealthySinceToRecord).toBe(sinceOf(['m2', T0 + 20_000]));
      expect(plan.recheckInMs).toBe(20_000);
    });

    it('for another cluster start no timer on this one, and go when that cluster is timed no more', () => {
      const plan = planApplicationFailover(due({ nowMs: T0 + 10_000 }, { [SINCE]: sinceOf(['m2', T0]) }));
      expect(plan.memory['m1']?.unhealthySinceMs).toBe(T0 + 10_000);
      expect(plan.memory['m2']?.unhealthySinceMs).toBeUndefined();
      expect(plan.unhealthySinceToRecord).toBe(sinceOf(['m1', T0 + 10_000]));
    });

    it('are removed with application failover', () => {
      expect(planApplicationFailover(due({ spec: spec(undefined) }))).toEqual({
        memory: {},
        evicted: [],
        unhealthySinceToRecord: null,
      });
    });

    it('are left alone while no status is collected', () => {
      expect(planApplicationFailover(due({ aggregatedStatus: [] }))).toEqual({ memory: {}, evicted: [] });
    });

    it('count a sighting recorded in the future (a clock ahead) as now, and record now', () => {
      const plan = planApplicationFailover(due({ nowMs: T0 }, { [SINCE]: sinceOf(['m1', T0 + 3_600_000]) }));
      expect(plan).toMatchObject({
        evicted: [],
        recheckInMs: 60_000,
        unhealthySinceToRecord: sinceOf(['m1', T0]),
      });
    });

    it.each([
      ['not JSON', '{"m1":', /^not JSON/],
      ['an array', '[]', /^not a JSON object/],
      ['a time that is not one', '{"m1":"soon"}', /^entry \{"m1":"soon"\}/],
    ])(
      'are treated as absent when %s: the timer starts now, the problem is named, the value replaced',
      (_case, value, problem) => {
        const plan = planApplicationFailover(due({ nowMs: T0 + 60_000 }, { [SINCE]: value }));
        expect(plan.evicted).toEqual([]);
        expect(plan.recheckInMs).toBe(60_000);
        expect(plan.unhealthySinceToRecord).toBe(sinceOf(['m1', T0 + 60_000]));
        expect(plan.recordProblems).toEqual([expect.stringMatching(problem)]);
      },
    );

    it('replace an unreadable value by none when no cluster is timed', () => {
      const healthy = [item('m1', 'Healthy'), item('m2', 'Healthy')];
      const plan = planApplicationFailover(due({ aggregatedStatus: healthy }, { [SINCE]: 'garbage' }));
      expect(plan.unhealthySinceToRecord).toBeNull();
    });

    it('are written alone in a patch guarded by resourceVersion, with the healthy clusters when they change too', () => {
      expect(recordPatch({ unhealthySinceToRecord: sinceOf(['m1', T0]) }, '9')).toEqual({
        metadata: { resourceVersion: '9', annotations: { [SINCE]: sinceOf(['m1', T0]) } },
      });
      expect(recordPatch({ unhealthySinceToRecord: null, healthyToRecord: ['m2'] }, '9')).toEqual({
        metadata: {
          resourceVersion: '9',
          annotations: { [SINCE]: null, [annotations.applicationFailoverHealthyClusters]: 'm2' },
        },
      });
      expect(recordPatch({}, '9')).toBeUndefined();
    });
  });

  it('defaults tolerationSeconds to 300', () => {
    const plan = planApplicationFailover(due({ spec: spec(app({ decisionConditions: {} })) }));
    expect(plan).toMatchObject({ evicted: [], recheckInMs: 240_000 });
  });

  it('evicts Gracefully by default with gracePeriodSeconds 600 and records the eviction', () => {
    const plan = planApplicationFailover(due());
    const task = {
      fromCluster: 'm1',
      replicas: 1,
      purgeMode: 'Gracefully',
      gracePeriodSeconds: 600,
      reason: 'ApplicationFailure',
      producer: 'resource-binding-application-failover-controller',
      message: 'The application stayed unhealthy for 60s (decisionConditions.tolerationSeconds).',
    };
    expect(plan.evicted).toEqual([{ cluster: 'm1', task }]);
    expect(plan.change?.spec).toEqual({
      clusters: [{ name: 'm2', replicas: 1 }],
      gracefulEvictionTasks: [task],
    });
    expect(Object.keys(plan.change?.annotations ?? {})).toEqual([annotations.evictionHistory]);
    expect(historyOf(plan)).toEqual([
      {
        clusterName: 'm1',
        creationTimestamp: '2026-01-01T00:01:00Z',
        reason: 'ApplicationFailure',
        producer: 'resource-binding-application-failover-controller',
      },
    ]);
  });

  it.each<[string, Partial<ApplicationFailoverBehavior>, Record<string, unknown>]>([
    [
      'Gracefully with its grace period',
      { purgeMode: 'Gracefully', gracePeriodSeconds: 30 },
      { purgeMode: 'Gracefully', gracePeriodSeconds: 30 },
    ],
    [
      'Never keeps the old copy until confirmed',
      { purgeMode: 'Never' },
      { purgeMode: 'Never', suppressDeletion: true },
    ],
    ['Directly adds nothing', { purgeMode: 'Directly' }, { purgeMode: 'Directly' }],
  ])('purge mode %s', (_name, over, expected) => {
    const task = planApplicationFailover(due({ spec: spec(app(over)) })).evicted[0]?.task;
    expect(task).toMatchObject(expected);
    if (over.purgeMode !== 'Gracefully') expect(task?.gracePeriodSeconds).toBeUndefined();
    if (over.purgeMode !== 'Never') expect(task?.suppressDeletion).toBeUndefined();
  });

  it('reads an empty purgeMode as unset: Gracefully with the default grace period', () => {
    const empty = { purgeMode: '' } as unknown as Partial<ApplicationFailoverBehavior>;
    const plan = planApplicationFailover(due({ spec: spec(app(empty)) }));
    expect(plan.problem).toBeUndefined();
    expect(plan.evicted[0]?.task).toMatchObject({ purgeMode: 'Gracefully', gracePeriodSeconds: 600 });
  });

  it.each<[string, Partial<ApplicationFailoverBehavior>, Record<string, unknown>]>([
    [
      'Graciously as Gracefully, with its grace period',
      { purgeMode: 'Graciously', gracePeriodSeconds: 30 },
      { purgeMode: 'Gracefully', gracePeriodSeconds: 30 },
    ],
    ['Immediately as Directly', { purgeMode: 'Immediately' }, { purgeMode: 'Directly' }],
  ])('reads the deprecated purge mode %s and writes the current name', (_name, over, expected) => {
    const task = planApplicationFailover(due({ spec: spec(app(over)) })).evicted[0]?.task;
    expect(task).toMatchObject(expected);
    if (over.purgeMode === 'Immediately') expect(task?.gracePeriodSeconds).toBeUndefined();
    expect(task?.suppressDeletion).toBeUndefined();
  });

  it('holds a Graciously eviction back when gate GracefulEviction is off, as for Gracefully', () => {
    const plan = planApplicationFailover(
      due({ spec: spec(app({ purgeMode: 'Graciously' })), gates: { ...gates, gracefulEviction: false } }),
    );
    expect(plan.change).toBeUndefined();
    expect(plan.problem).toBe('GracefulEviction featureGate must be enabled when purgeMode is Gracefully');
  });

  it('names the cluster-scoped producer for a ClusterResourceBinding', () => {
    const plan = planApplicationFailover(due({ clusterScoped: true }));
    expect(plan.evicted[0]?.task.producer).toBe('cluster-resource-binding-application-failover-controller');
  });

  it('holds a Gracefully eviction back when gate GracefulEviction is off', () => {
    const plan = planApplicationFailover(due({ gates: { ...gates, gracefulEviction: false } }));
    expect(plan.change).toBeUndefined();
    expect(plan.problem).toBe('GracefulEviction featureGate must be enabled when purgeMode is Gracefully');
  });

  it('skips a cluster that already has an eviction task', () => {
    const s = spec(app(), {
      gracefulEvictionTasks: [{ fromCluster: 'm1', reason: 'TaintUntolerated', producer: 'TaintManager' }],
    });
    expect(planApplicationFailover(due({ spec: s })).change).toBeUndefined();
  });

  it('keeps earlier eviction history entries that still block', () => {
    const older = { clusterName: 'm3', creationTimestamp: '2026-01-01T00:00:30Z' };
    const plan = planApplicationFailover(due({ spec: spec(app(), { evictionHistory: [older] }) }));
    expect(historyOf(plan).map((e) => e.clusterName)).toEqual(['m3', 'm1']);
  });

  describe('the eviction history annotation', () => {
    const older = { clusterName: 'm3', creationTimestamp: '2026-01-01T00:00:30Z' };
    const inAnnotation = (value: string, more: Record<string, string> = {}): ApplicationFailoverInput =>
      due({ annotations: { [annotations.evictionHistory]: value, ...more } });

    it('is written in place of spec.evictionHistory, which the write leaves alone when absent', () => {
      const plan = planApplicationFailover(due());
      expect(plan.change?.spec).not.toHaveProperty('evictionHistory');
      expect(historyOf(plan).map((e) => e.clusterName)).toEqual(['m1']);
    });

    it('keeps its entries that still block', () => {
      const plan = planApplicationFailover(inAnnotation(JSON.stringify([older])));
      expect(historyOf(plan).map((e) => e.clusterName)).toEqual(['m3', 'm1']);
      expect(plan.change?.spec).not.toHaveProperty('evictionHistory');
    });

    it("takes over spec.evictionHistory's entries and removes the field in the same write", () => {
      const m4 = { clusterName: 'm4', creationTimestamp: '2026-01-01T00:00:40Z' };
      const plan = planApplicationFailover({
        ...inAnnotation(JSON.stringify([older])),
        spec: spec(app(), { evictionHistory: [older, m4] }),
      });
      expect(plan.change?.spec.evictionHistory).toBeNull();
      expect(historyOf(plan).map((e) => e.clusterName)).toEqual(['m3', 'm4', 'm1']);
    });

    it('removes spec.evictionHistory even when none of its entries blocks any more', () => {
      const expired = { clusterName: 'm3', creationTimestamp: '2025-01-01T00:00:00Z' };
      const plan = planApplicationFailover(due({ spec: spec(app(), { evictionHistory: [expired] }) }));
      expect(plan.change?.spec.evictionHistory).toBeNull();
      expect(historyOf(plan).map((e) => e.clusterName)).toEqual(['m1']);
    });

    it('starts again from an unreadable value', () => {
      const plan = planApplicationFailover(inAnnotation('{not json'));
      expect(historyOf(plan).map((e) => e.clusterName)).toEqual(['m1']);
    });

    it.each<[string, Record<string, string>, Partial<ApplicationFailoverBehavior>, readonly string[]]>([
      // older was written 30 s before the eviction at T0 + 60 s.
      [
        'the block annotation wins over the spec field',
        { [annotations.blockPredecessorSeconds]: '20' },
        { blockPredecessorSeconds: 600 },
        ['m1'],
      ],
      ['the spec field when there is no annotation', {}, { blockPredecessorSeconds: 20 }, ['m1']],
      ['the default 600 s otherwise', {}, {}, ['m3', 'm1']],
      [
        'an unreadable block annotation is ignored',
        { [annotations.blockPredecessorSeconds]: 'soon' },
        { blockPredecessorSeconds: 20 },
        ['m1'],
      ],
      [
        'a block annotation of 0 keeps entries for good',
        { [annotations.blockPredecessorSeconds]: '0' },
        { blockPredecessorSeconds: 20 },
        ['m3', 'm1'],
      ],
    ])('drops entries whose block ran out, by %s', (_name, more, over, expected) => {
      const plan = planApplicationFailover({
        ...inAnnotation(JSON.stringify([older]), more),
        spec: spec(app(over)),
      });
      expect(historyOf(plan).map((e) => e.clusterName)).toEqual(expected);
    });
  });

  describe('evictionPatch', () => {
    it('writes the spec change and the annotations in one patch guarded by resourceVersion', () => {
      const plan = planApplicationFailover(
        due({ spec: spec(app(), { evictionHistory: [] }), healthyRecorded: ['m1', 'm2'] }),
      );
      if (plan.change === undefined) throw new Error('no change');
      expect(evictionPatch(plan.change, plan, '42')).toEqual({
        metadata: {
          resourceVersion: '42',
          annotations: {
            [annotations.evictionHistory]: plan.change.annotations[annotations.evictionHistory],
            [annotations.applicationFailoverHealthyClusters]: 'm2',
            // m1 leaves: its first sighting goes with it.
            [SINCE]: null,
          },
        },
        spec: { ...plan.change.spec, evictionHistory: null },
      });
    });

    it('leaves the records alone when they do not change', () => {
      const plan = planApplicationFailover(due());
      if (plan.change === undefined) throw new Error('no change');
      expect(evictionPatch(plan.change, {}, '7').metadata.annotations).toEqual(plan.change.annotations);
    });
  });

  describe('with StatefulFailoverInjection', () => {
    const rules = [{ aliasLabelName: 'example.com/job-id', jsonPath: '{.jobStatus.jobID}' }];
    const stateful = { ...gates, statefulFailoverInjection: true };

    it('captures the state of the evicted cluster and the clusters before the failover', () => {
      const plan = planApplicationFailover(
        due({ gates: stateful, spec: spec(app({ purgeMode: 'Directly', statePreservation: { rules } })) }),
      );
      expect(plan.evicted[0]?.task).toMatchObject({
        preservedLabelState: { 'example.com/job-id': 'j-m1' },
        clustersBeforeFailover: ['m1', 'm2'],
      });
    });

    it('holds the eviction back while the state cannot be read', () => {
      const plan = planApplicationFailover(
        due({
          gates: stateful,
          spec: spec(
            app({ statePreservation: { rules: [{ aliasLabelName: 'a', jsonPath: '{.missing}' }] } }),
          ),
        }),
      );
      expect(plan.change).toBeUndefined();
      expect(plan.problem).toMatch(/cannot preserve state of cluster m1/);
    });

    it('captures nothing with the gate off', () => {
      const plan = planApplicationFailover(due({ spec: spec(app({ statePreservation: { rules } })) }));
      expect(plan.evicted[0]?.task.preservedLabelState).toBeUndefined();
    });
  });
});
