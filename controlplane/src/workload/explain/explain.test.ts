import { describe, expect, it } from 'vitest';
import {
  annotations,
  type Cluster,
  type ResourceBinding,
  type WorkloadRebalancer,
  type WorkloadReference,
} from '@kf/api';
import { KubeError, type CoreEvent } from '@kf/kube';
import { formatPlacementRecord } from '../../controllers/fail-back/record.ts';
import { formatEvictionHistory } from '../../scheduler/eviction-history-annotation.ts';
import { clusterObject } from '../../scheduler/test-builders.ts';
import { explainBinding, type ExplainInput, type ExplainSettings } from './explain.ts';
import { renderExplanation, span, table, when } from './render.ts';
import { readRebalancers } from './run.ts';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const settings: ExplainSettings = {
  failoverGate: true,
  gracefulEvictionGate: true,
  statefulFailoverInjectionGate: false,
  enableTaintManager: true,
  enableNoExecuteTaintEviction: true,
  noExecuteTaintEvictionPurgeMode: 'Gracefully',
  gracefulEvictionTimeoutMs: 600_000,
};
const placement = {
  clusterAffinity: { clusterNames: ['m1', 'm2', 'm3', 'm4', 'm5', 'm6'] },
  replicaScheduling: { replicaSchedulingType: 'Duplicated' as const },
};

/** On m2 (healthy) and m5 (unhealthy); evicted from m1 at 00:05 by application failover. */
const binding: ResourceBinding = {
  metadata: {
    name: 'web-deployment',
    namespace: 'default',
    generation: 4,
    annotations: {
      'policy.karmada.io/applied-placement': JSON.stringify(placement),
      'failover.karmada-failover.io/healthy-clusters': 'm2,m5',
    },
  },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
    replicas: 2,
    placement,
    clusters: [
      { name: 'm2', replicas: 2 },
      { name: 'm5', replicas: 2 },
    ],
    gracefulEvictionTasks: [
      {
        fromCluster: 'm1',
        purgeMode: 'Gracefully',
        replicas: 2,
        reason: 'ApplicationFailure',
        producer: 'resource-binding-application-failover-controller',
        gracePeriodSeconds: 600,
        creationTimestamp: '2026-01-01T00:05:00Z',
        preservedLabelState: { 'example.com/job': 'j1' },
      },
    ],
    evictionHistory: [
      { clusterName: 'm1', creationTimestamp: '2026-01-01T00:05:00Z', reason: 'ApplicationFailure' },
      { clusterName: 'm6', creationTimestamp: '2025-12-31T00:00:00Z', reason: 'ApplicationFailure' },
    ],
    failover: {
      application: { decisionConditions: { tolerationSeconds: 60 }, blockPredecessorSeconds: 900 },
    },
  },
  status: {
    conditions: [
      {
        type: 'Scheduled',
        status: 'True',
        reason: 'Success',
        message: 'Binding has been scheduled successfully.',
        lastTransitionTime: '2026-01-01T00:05:01Z',
      },
    ],
    aggregatedStatus: [
      { clusterName: 'm1', applied: true, health: 'Unhealthy' },
      { clusterName: 'm2', applied: true, health: 'Healthy' },
      { clusterName: 'm5', applied: true, health: 'Unhealthy' },
    ],
  },
};
const input = (over: Partial<ExplainInput> = {}): ExplainInput => ({
  binding,
  clusterScoped: false,
  clusters: [
    clusterObject('m1'),
    clusterObject('m2', {
      taints: [
        { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: '2026-01-01T00:09:00Z' },
      ],
    }),
    clusterObject('m3', { apis: ['v1/ConfigMap'] }),
    clusterObject('m4', { taints: [{ key: 'maintenance', effect: 'NoSchedule' }] }),
    clusterObject('m5'),
    clusterObject('m6'),
    clusterObject('m7'),
  ],
  nowMs: NOW,
  settings,
  events: [
    event('EvictionStarted', '2026-01-01T00:05:00Z', 'Evicting from cluster m1 (purge mode Gracefully)'),
    event('ScheduleBindingSucceed', '2026-01-01T00:05:01Z', 'Binding has been scheduled successfully.'),
    {
      ...event('SyncWorkSucceed', '2026-01-01T00:06:00Z', 'other'),
      involvedObject: { kind: 'Deployment', name: 'web-deployment' },
    },
    {
      ...event('SyncWorkSucceed', '2026-01-01T00:07:00Z', 'other'),
      involvedObject: { kind: 'ResourceBinding', name: 'api' },
    },
  ],
  ...over,
});

function event(reason: string, at: string, message: string): CoreEvent {
  return {
    involvedObject: {
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      namespace: 'default',
      name: 'web-deployment',
    },
    reason,
    message,
    type: 'Normal',
    lastTimestamp: at,
  };
}

describe('explainBinding', () => {
  const e = explainBinding(input());

  it('says where the binding runs, with health', () => {
    expect(e).toMatchObject({
      kind: 'ResourceBinding',
      name: 'web-deployment',
      namespace: 'default',
      resource: 'Deployment default/web',
      replicas: 2,
      scheduled: { status: 'True', reason: 'Success' },
    });
    expect(e.placed).toEqual([
      { cluster: 'm2', replicas: 2, health: 'Healthy', applied: true },
      { cluster: 'm5', replicas: 2, health: 'Unhealthy', applied: true },
    ]);
  });

  it('re-runs the scheduler filters for every other cluster', () => {
    expect(e.clusters).toEqual([
      {
        cluster: 'm1',
        verdict: 'rejected',
        plugin: 'ClusterEviction',
        reason: expect.stringMatching(/evict/i) as unknown,
      },
      { cluster: 'm2', verdict: 'placed' },
      {
        cluster: 'm3',
        verdict: 'rejected',
        plugin: 'APIEnablement',
        reason: expect.stringMatching(/API/) as unknown,
      },
      {
        cluster: 'm4',
        verdict: 'rejected',
        plugin: 'TaintToleration',
        reason: expect.stringMatching(/taint/i) as unknown,
      },
      { cluster: 'm5', verdict: 'placed' },
      { cluster: 'm6', verdict: 'fits' },
      {
        cluster: 'm7',
        verdict: 'rejected',
        plugin: 'ClusterAffinity',
        reason: expect.stringMatching(/affinity/i) as unknown,
      },
    ]);
  });

  it('reports eviction tasks with their deadline and preserved state', () => {
    expect(e.tasks).toEqual([
      {
        fromCluster: 'm1',
        purgeMode: 'Gracefully',
        replicas: 2,
        reason: 'ApplicationFailure',
        producer: 'resource-binding-application-failover-controller',
        createdAtMs: Date.parse('2026-01-01T00:05:00Z'),
        endsAtMs: Date.parse('2026-01-01T00:15:00Z'),
        ends: 'when healthy on every placed cluster, or at the deadline if another cluster runs a healthy copy',
        cause: { holds: true, why: 'the workload is Unhealthy on m1' },
        takeBack: { mayReturn: false, why: 'the cause holds: the workload is Unhealthy on m1' },
        lastCopyKept: false,
        preservedLabelState: { 'example.com/job': 'j1' },
      },
    ]);
  });

  it('reports the eviction history with blockPredecessorSeconds', () => {
    expect(e.history).toEqual([
      {
        cluster: 'm1',
        evictedAtMs: Date.parse('2026-01-01T00:05:00Z'),
        blockedUntilMs: Date.parse('2026-01-01T00:20:00Z'),
        active: true,
        reason: 'ApplicationFailure',
      },
      {
        cluster: 'm6',
        evictedAtMs: Date.parse('2025-12-31T00:00:00Z'),
        blockedUntilMs: Date.parse('2025-12-31T00:15:00Z'),
        active: false,
        reason: 'ApplicationFailure',
      },
    ]);
  });

  describe('with the annotations Karmada keeps', () => {
    const annotated = (more: Record<string, string>): ResourceBinding => ({
      ...binding,
      metadata: { ...binding.metadata, annotations: { ...binding.metadata.annotations, ...more } },
    });
    const m3 = { clusterName: 'm3', creationTimestamp: '2026-01-01T00:08:00Z', reason: 'ApplicationFailure' };

    it("reports the eviction history annotation's entries, then spec.evictionHistory's, each once", () => {
      const x = explainBinding(
        input({
          binding: annotated({
            [annotations.evictionHistory]: formatEvictionHistory([
              m3,
              { clusterName: 'm1', creationTimestamp: '2026-01-01T00:05:00Z', reason: 'ApplicationFailure' },
            ]),
            [annotations.blockPredecessorSeconds]: '300',
          }),
        }),
      );
      expect(x.history).toEqual([
        {
          cluster: 'm3',
          evictedAtMs: Date.parse('2026-01-01T00:08:00Z'),
          blockedUntilMs: Date.parse('2026-01-01T00:13:00Z'),
          active: true,
          reason: 'ApplicationFailure',
        },
        {
          cluster: 'm1',
          evictedAtMs: Date.parse('2026-01-01T00:05:00Z'),
          blockedUntilMs: Date.parse('2026-01-01T00:10:00Z'),
          active: false,
          reason: 'ApplicationFailure',
        },
        {
          cluster: 'm6',
          evictedAtMs: Date.parse('2025-12-31T00:00:00Z'),
          blockedUntilMs: Date.parse('2025-12-31T00:05:00Z'),
          active: false,
          reason: 'ApplicationFailure',
        },
      ]);
      expect(x.applicationFailover.settings).toContain('blockPredecessorSeconds 300');
    });

    it('says an annotated 0 blocks for good', () => {
      const x = explainBinding(input({ binding: annotated({ [annotations.blockPredecessorSeconds]: '0' }) }));
      expect(x.applicationFailover.settings).toContain('blockPredecessorSeconds 0 (blocks for good)');
      expect(x.history.every((h) => h.active && h.blockedUntilMs === Number.POSITIVE_INFINITY)).toBe(true);
    });

    it('falls back to the spec fields when the annotations are unreadable', () => {
      const x = explainBinding(
        input({
          binding: annotated({
            [annotations.evictionHistory]: 'not json',
            [annotations.blockPredecessorSeconds]: 'soon',
          }),
        }),
      );
      expect(x.history).toEqual(e.history);
      expect(x.applicationFailover.settings).toContain('blockPredecessorSeconds 900');
    });
  });

  it('judges cluster failover from taints against the applied tolerations', () => {
    expect(e.clusterFailover).toEqual({
      active: true,
      off: [],
      settings: ['purge mode Gracefully (--no-execute-taint-eviction-purge-mode)'],
      clusters: [
        {
          cluster: 'm2',
          verdict: 'due for eviction: cluster.karmada.io/not-ready:NoExecute is not tolerated',
        },
        { cluster: 'm5', verdict: 'stays: no NoExecute taint' },
      ],
    });
  });

  it('says when a Ready=Unknown is stale because the Lease is fresh', () => {
    const m5 = clusterObject('m5');
    const stale = {
      ...m5,
      spec: { ...m5.spec, syncMode: 'Pull' as const },
      status: { ...m5.status, conditions: [{ type: 'Ready', status: 'Unknown' as const }] },
    };
    const clusters = input().clusters.map((c) => (c.metadata.name === 'm5' ? stale : c));
    const renewed = new Map([['m5', NOW - 2_000]]);
    const verdictOf = (over: Partial<ExplainInput>): string | undefined =>
      explainBinding(input({ clusters, ...over })).clusterFailover.clusters.find((c) => c.cluster === 'm5')
        ?.verdict;
    expect(verdictOf({ leaseRenewedAtMs: renewed })).toBe(
      'stays: Ready is Unknown but its Lease was renewed 2.0s ago, so the condition is stale, not a ' +
        'failure: no NoExecute taint is added while the Lease stays fresh (38.0s more)',
    );
    expect(verdictOf({ leaseRenewedAtMs: new Map([['m5', NOW - 40_000]]) })).toBe(
      'stays: no NoExecute taint',
    );
    expect(verdictOf({})).toBe('stays: no NoExecute taint');
    expect(
      verdictOf({ leaseRenewedAtMs: renewed, settings: { ...settings, monitorGracePeriodMs: 5_000 } }),
    ).toMatch(/\(3\.0s more\)$/);
  });

  it("shows a member clock offset the control plane recorded, and reads the member's Lease through it", () => {
    const m5 = clusterObject('m5');
    const skewed = (offset: string | undefined, ready: 'True' | 'Unknown') => ({
      ...m5,
      metadata: {
        ...m5.metadata,
        ...(offset === undefined ? {} : { annotations: { [annotations.clockOffsetSeconds]: offset } }),
      },
      spec: { ...m5.spec, syncMode: 'Pull' as const },
      status: { ...m5.status, conditions: [{ type: 'Ready', status: ready }] },
    });
    const verdictOf = (cluster: Cluster, renewedAtMs: number): string | undefined =>
      explainBinding(
        input({
          clusters: input().clusters.map((c) => (c.metadata.name === 'm5' ? cluster : c)),
          leaseRenewedAtMs: new Map([['m5', renewedAtMs]]),
        }),
      ).clusterFailover.clusters.find((c) => c.cluster === 'm5')?.verdict;
    expect(verdictOf(skewed('62.0', 'True'), NOW)).toBe(
      "stays: no NoExecute taint The cluster's clock runs 62.0 s ahead of the control plane's (estimated " +
        "from its Lease renewals); liveness is judged on the control plane's clock, but times the member " +
        'writes are off by as much.',
    );
    // Renewed 2 s ago by a clock 62 s ahead: stamped 60 s in the future.
    expect(verdictOf(skewed('62.0', 'Unknown'), NOW + 60_000)).toMatch(
      /^stays: Ready is Unknown but its Lease was renewed 2\.0s ago, .*\(38\.0s more\) The cluster's clock runs 62\.0 s ahead/,
    );
    // Renewed 2 s ago by a clock 20 s behind: without the record it would look 22 s old.
    expect(verdictOf(skewed('-20.0', 'Unknown'), NOW - 22_000)).toMatch(/renewed 2\.0s ago/);
    expect(verdictOf(skewed(undefined, 'Unknown'), NOW - 22_000)).toMatch(/renewed 22\.0s ago/);
  });

  it('judges application failover from health', () => {
    expect(e.applicationFailover).toMatchObject({
      active: true,
      off: [],
      settings: [
        'tolerationSeconds 60',
        'purge mode Gracefully, gracePeriodSeconds 600',
        'blockPredecessorSeconds 900',
      ],
      clusters: [
        { cluster: 'm2', verdict: 'stays: Healthy' },
        {
          cluster: 'm5',
          verdict: expect.stringMatching(
            /^Unhealthy after having been Healthy: moved once unhealthy for 60s/,
          ) as unknown,
        },
      ],
    });
  });

  it('explains a ClusterResourceBinding with its own events', () => {
    const crb: ResourceBinding = { ...binding, metadata: { name: 'reader-clusterrole' } };
    const cluster = explainBinding(
      input({
        binding: crb,
        clusterScoped: true,
        events: [
          {
            ...event('EvictionStarted', '2026-01-01T00:05:00Z', 'x'),
            involvedObject: { kind: 'ClusterResourceBinding', name: 'reader-clusterrole' },
          },
          {
            ...event('EvictionStarted', '2026-01-01T00:05:00Z', 'y'),
            involvedObject: { kind: 'ResourceBinding', name: 'reader-clusterrole' },
          },
        ],
      }),
    );
    expect(cluster).toMatchObject({ kind: 'ClusterResourceBinding', name: 'reader-clusterrole' });
    expect(cluster.events.map((v) => v.message)).toEqual(['x']);
    expect(renderExplanation(cluster, NOW)).toMatch(/^ClusterResourceBinding reader-clusterrole \(/);
  });

  it('says when an unhealthy workload moves, from the first sighting recorded on the binding', () => {
    const recorded = {
      ...binding,
      metadata: {
        ...binding.metadata,
        annotations: {
          ...binding.metadata.annotations,
          'failover.karmada-failover.io/unhealthy-since': '{"m5":"2026-01-01T00:06:00.500Z"}',
        },
      },
    };
    expect(explainBinding(input({ binding: recorded })).applicationFailover.clusters[1]).toEqual({
      cluster: 'm5',
      verdict:
        'Unhealthy after having been Healthy: moved once unhealthy for 60s ' +
        '(first seen Unhealthy 2026-01-01T00:06:00Z: due 2026-01-01T00:07:01Z)',
    });
    // Not recorded yet (or unreadable): the controller's next look starts the timer.
    expect(e.applicationFailover.clusters[1]?.verdict).toMatch(/not recorded yet\)$/);
  });

  it('says an unhealthy workload never seen Healthy on its cluster stays', () => {
    const fresh = { ...binding, metadata: { ...binding.metadata, annotations: {} } };
    expect(explainBinding(input({ binding: fresh })).applicationFailover.clusters[1]).toEqual({
      cluster: 'm5',
      verdict: 'stays: Unhealthy, but never seen Healthy here (a workload that never came up is left to fix)',
    });
  });

  it.each<[string, Partial<ExplainSettings>, readonly string[]]>([
    ['the Failover gate', { failoverGate: false }, ['feature gate Failover is off']],
    [
      'NoExecute eviction',
      { enableNoExecuteTaintEviction: false },
      ['--enable-no-execute-taint-eviction=false'],
    ],
    ['the taint manager', { enableTaintManager: false }, ['--enable-taint-manager=false']],
  ])('says cluster failover is off without %s', (_name, over, off) => {
    const f = explainBinding(input({ settings: { ...settings, ...over } })).clusterFailover;
    expect(f).toMatchObject({ active: false, off });
  });

  it('says application failover is off without the policy or, for Gracefully, the GracefulEviction gate', () => {
    const without = { ...binding, spec: { ...binding.spec, failover: {} } };
    expect(explainBinding(input({ binding: without })).applicationFailover).toEqual({
      active: false,
      off: ['spec.failover.application is not set'],
      settings: [],
      clusters: [],
    });
    const gate = explainBinding(input({ settings: { ...settings, gracefulEvictionGate: false } }));
    expect(gate.applicationFailover.off).toEqual([
      'feature gate GracefulEviction is off (needed by purgeMode Gracefully)',
    ]);
  });

  describe('with the deprecated purge mode names', () => {
    const evicting = (fromCluster: string, purgeMode: 'Immediately' | 'Graciously') => ({
      fromCluster,
      purgeMode,
      replicas: 2,
      reason: 'ApplicationFailure',
      producer: 'resource-binding-application-failover-controller',
      creationTimestamp: '2026-01-01T00:05:00Z',
    });
    const old: ResourceBinding = {
      ...binding,
      spec: {
        ...binding.spec,
        gracefulEvictionTasks: [evicting('m1', 'Graciously'), evicting('m3', 'Immediately')],
        failover: {
          application: {
            decisionConditions: { tolerationSeconds: 60 },
            purgeMode: 'Graciously',
            gracePeriodSeconds: 30,
          },
          cluster: { purgeMode: 'Immediately' },
        },
      },
    };
    const explained = explainBinding(input({ binding: old }));

    it('reports eviction tasks under the current names, with the same deadlines', () => {
      expect(explained.tasks.map((t) => [t.fromCluster, t.purgeMode, t.endsAtMs])).toEqual([
        ['m1', 'Gracefully', Date.parse('2026-01-01T00:15:00Z')],
        ['m3', 'Directly', Date.parse('2026-01-01T00:15:00Z')],
      ]);
      expect(renderExplanation(explained, NOW)).toMatch(/m3 +Directly +2 +ApplicationFailure/);
    });

    it('reads the policy purge modes as the current ones', () => {
      expect(explained.clusterFailover.settings[0]).toBe('purge mode Directly (spec.failover.cluster)');
      expect(explained.applicationFailover.settings[1]).toBe('purge mode Gracefully, gracePeriodSeconds 30');
      const gate = explainBinding(
        input({ binding: old, settings: { ...settings, gracefulEvictionGate: false } }),
      );
      expect(gate.applicationFailover.off).toEqual([
        'feature gate GracefulEviction is off (needed by purgeMode Gracefully)',
      ]);
    });
  });

  it('keeps the binding own events, newest first', () => {
    expect(e.events).toEqual([
      {
        atMs: Date.parse('2026-01-01T00:05:01Z'),
        type: 'Normal',
        reason: 'ScheduleBindingSucceed',
        message: 'Binding has been scheduled successfully.',
        count: 1,
      },
      {
        atMs: Date.parse('2026-01-01T00:05:00Z'),
        type: 'Normal',
        reason: 'EvictionStarted',
        message: 'Evicting from cluster m1 (purge mode Gracefully)',
        count: 1,
      },
    ]);
  });

  it('renders every section as text', () => {
    const text = renderExplanation(e, NOW);
    expect(text).toContain('ResourceBinding default/web-deployment (Deployment default/web, 2 replica(s))');
    expect(text).toMatch(/Runs on:\n {2}CLUSTER +REPLICAS +HEALTH +APPLIED\n {2}m2 +2 +Healthy +true/);
    expect(text).toMatch(/m4 +rejected +TaintToleration/);
    expect(text).toContain('preserved from m1: example.com/job=j1');
    expect(text).toContain('blocked until 2026-01-01T00:20:00Z (in 10m)');
    expect(text).toContain('Cluster failover: active');
    expect(text).toContain('  m5: Unhealthy after having been Healthy: moved once');
    expect(text).toMatch(
      /Recent events:\n +LAST SEEN .*\n +2026-01-01T00:05:01Z \(4m59s ago\) +Normal +ScheduleBindingSucceed/,
    );
    expect(text).toContain('  m1: kept out: the cause holds: the workload is Unhealthy on m1');
  });

  describe('a workload evicted from its only cluster by a taint', () => {
    const only = {
      clusterAffinity: { clusterNames: ['m1'] },
      replicaScheduling: { replicaSchedulingType: 'Duplicated' as const },
    };
    const evicted = (createdAt: string): ResourceBinding => ({
      metadata: {
        name: 'web-deployment',
        namespace: 'default',
        generation: 3,
        annotations: { 'policy.karmada.io/applied-placement': JSON.stringify(only) },
      },
      spec: {
        resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
        replicas: 1,
        placement: only,
        clusters: [],
        gracefulEvictionTasks: [
          {
            fromCluster: 'm1',
            purgeMode: 'Gracefully',
            replicas: 1,
            reason: 'TaintUntolerated',
            producer: 'TaintManager',
            creationTimestamp: createdAt,
          },
        ],
      },
      status: { aggregatedStatus: [{ clusterName: 'm1', applied: true, health: 'Healthy' }] },
    });
    const notReady = {
      key: 'cluster.karmada.io/not-ready',
      effect: 'NoExecute' as const,
      timeAdded: '2026-01-01T00:04:00Z',
    };
    const explainWith = (createdAt: string, taints: readonly (typeof notReady)[]) =>
      explainBinding(input({ binding: evicted(createdAt), clusters: [clusterObject('m1', { taints })] }));

    it('keeps m1 out while its taint holds', () => {
      const x = explainWith('2026-01-01T00:05:00Z', [notReady]);
      expect(x.tasks[0]).toMatchObject({
        cause: { holds: true, why: 'm1 has the untolerated taint cluster.karmada.io/not-ready:NoExecute' },
        takeBack: { mayReturn: false },
        lastCopyKept: false,
      });
      expect(x.clusters).toEqual([
        {
          cluster: 'm1',
          verdict: 'rejected',
          plugin: 'TaintToleration',
          reason: expect.any(String) as unknown,
        },
      ]);
    });

    it('lets m1 take the workload back once the taint is gone: the copy there is the only one', () => {
      const x = explainWith('2026-01-01T00:05:00Z', []);
      expect(x.tasks[0]).toMatchObject({
        cause: { holds: false, why: 'm1 has no NoExecute taint any more' },
        takeBack: { mayReturn: true },
      });
      expect(x.clusters).toEqual([{ cluster: 'm1', verdict: 'fits' }]);
    });

    it('says a task past its deadline keeps the last copy', () => {
      const x = explainWith('2025-12-31T23:59:00Z', [notReady]);
      expect(x.tasks[0]).toMatchObject({
        endsAtMs: Date.parse('2026-01-01T00:09:00Z'),
        lastCopyKept: true,
        ends:
          'past its deadline, kept: no other cluster runs a healthy copy; ends when one does, ' +
          'or when the scheduler places the binding on its cluster again',
      });
      expect(renderExplanation(x, NOW)).toContain(
        '  m1: past its deadline; its copy is the last one and is kept',
      );
    });
  });
});

describe('rebalances', () => {
  const web: WorkloadReference = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    namespace: 'default',
    name: 'web',
  };
  const rebalancer = (
    name: string,
    workloads: readonly WorkloadReference[],
    status?: WorkloadRebalancer['status'],
    ttlSecondsAfterFinished?: number,
  ): WorkloadRebalancer => ({
    metadata: { name, creationTimestamp: '2026-01-01T00:08:00Z' },
    spec: { workloads, ...(ttlSecondsAfterFinished === undefined ? {} : { ttlSecondsAfterFinished }) },
    ...(status === undefined ? {} : { status }),
  });
  const other: WorkloadReference = { ...web, name: 'api' };
  const rebalancesOf = (over: Partial<ExplainInput>) => explainBinding(input(over)).rebalances;

  it('is empty without rebalancers', () => {
    expect(explainBinding(input()).rebalances).toEqual({
      unreadable: undefined,
      rebalancers: [],
      reschedule: undefined,
    });
  });

  it('says a rebalancer without a result for the workload is pending', () => {
    const pending = [
      rebalancer('fresh', [other, web]),
      rebalancer('half-done', [other, web], {
        observedWorkloads: [{ workload: other, result: 'Successful' }, { workload: web }],
      }),
    ];
    expect(rebalancesOf({ rebalancers: pending }).rebalancers).toEqual([
      {
        rebalancer: 'fresh',
        state: 'pending',
        reason: undefined,
        createdAtMs: Date.parse('2026-01-01T00:08:00Z'),
        finishedAtMs: undefined,
        deletedAtMs: undefined,
      },
      expect.objectContaining({ rebalancer: 'half-done', state: 'pending' }) as unknown,
    ]);
  });

  it('reports a succeeded and a failed rebalance, the reason with the failure', () => {
    const done = [
      rebalancer('ok', [web], { observedWorkloads: [{ workload: web, result: 'Successful' }] }),
      rebalancer('lost', [web], {
        observedWorkloads: [{ workload: web, result: 'Failed', reason: 'ReferencedBindingNotFound' }],
      }),
    ];
    expect(
      rebalancesOf({ rebalancers: done }).rebalancers.map((r) => [r.rebalancer, r.state, r.reason]),
    ).toEqual([
      ['lost', 'failed', 'ReferencedBindingNotFound'],
      ['ok', 'succeeded', undefined],
    ]);
  });

  it('ignores rebalancers naming another workload, by any of the four fields', () => {
    const others = [
      rebalancer('name', [other]),
      rebalancer('kind', [{ ...web, kind: 'StatefulSet' }]),
      rebalancer('version', [{ ...web, apiVersion: 'apps/v1beta1' }]),
      rebalancer('namespace', [{ ...web, namespace: 'prod' }]),
      rebalancer('cluster-scoped', [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }]),
      // A result for the workload in the status alone does not name it.
      rebalancer('status-only', [other], { observedWorkloads: [{ workload: web, result: 'Successful' }] }),
    ];
    expect(rebalancesOf({ rebalancers: [...others, rebalancer('this', [web])] }).rebalancers).toEqual([
      expect.objectContaining({ rebalancer: 'this' }) as unknown,
    ]);
  });

  it('matches a cluster-scoped template with an unset or empty namespace only', () => {
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'reader' };
    const crb: ResourceBinding = {
      ...binding,
      metadata: { name: 'reader-clusterrole' },
      spec: { ...binding.spec, resource: role },
    };
    const rebalancers = [
      rebalancer('unset', [role]),
      rebalancer('empty', [{ ...role, namespace: '' }]),
      rebalancer('namespaced', [{ ...role, namespace: 'default' }]),
    ];
    const found = rebalancesOf({ binding: crb, clusterScoped: true, rebalancers }).rebalancers;
    expect(found.map((r) => r.rebalancer)).toEqual(['empty', 'unset']);
  });

  it('says a reschedule asked after the last placement waits for the scheduler', () => {
    const asked = (rescheduleTriggeredAt: string, lastScheduledTime?: string): ResourceBinding => ({
      ...binding,
      spec: { ...binding.spec, rescheduleTriggeredAt },
      status: { ...binding.status, ...(lastScheduledTime === undefined ? {} : { lastScheduledTime }) },
    });
    expect(
      rebalancesOf({ binding: asked('2026-01-01T00:08:00Z', '2026-01-01T00:05:01Z') }).reschedule,
    ).toEqual({
      requestedAtMs: Date.parse('2026-01-01T00:08:00Z'),
      lastScheduledAtMs: Date.parse('2026-01-01T00:05:01Z'),
      waitingForScheduler: true,
    });
    expect(
      rebalancesOf({ binding: asked('2026-01-01T00:08:00Z', '2026-01-01T00:08:00Z') }).reschedule
        ?.waitingForScheduler,
    ).toBe(false);
    expect(
      rebalancesOf({ binding: asked('2026-01-01T00:08:00Z', '2026-01-01T00:09:00Z') }).reschedule
        ?.waitingForScheduler,
    ).toBe(false);
    expect(rebalancesOf({ binding: asked('2026-01-01T00:08:00Z') }).reschedule).toEqual({
      requestedAtMs: Date.parse('2026-01-01T00:08:00Z'),
      lastScheduledAtMs: undefined,
      waitingForScheduler: false,
    });
  });

  it('gives the TTL deadline of a finished rebalancer that has one', () => {
    const finished = {
      observedWorkloads: [{ workload: web, result: 'Successful' as const }],
      finishTime: '2026-01-01T00:09:00Z',
    };
    const [withTtl, withoutTtl, unfinished] = rebalancesOf({
      rebalancers: [
        rebalancer('a-ttl', [web], finished, 300),
        rebalancer('b-kept', [web], finished),
        rebalancer(
          'c-running',
          [web, other],
          { observedWorkloads: [{ workload: web, result: 'Successful' }] },
          300,
        ),
      ],
    }).rebalancers;
    expect(withTtl).toMatchObject({
      finishedAtMs: Date.parse('2026-01-01T00:09:00Z'),
      deletedAtMs: Date.parse('2026-01-01T00:14:00Z'),
    });
    expect(withoutTtl).toMatchObject({
      finishedAtMs: Date.parse('2026-01-01T00:09:00Z'),
      deletedAtMs: undefined,
    });
    expect(unfinished).toMatchObject({ state: 'succeeded', finishedAtMs: undefined, deletedAtMs: undefined });
  });

  it('says why rebalancers could not be read', () => {
    expect(rebalancesOf({ rebalancersUnreadable: 'forbidden (403): no' }).unreadable).toBe(
      'forbidden (403): no',
    );
  });

  it('renders the section as text and keeps it in the JSON', () => {
    expect(renderExplanation(explainBinding(input()), NOW)).toMatch(/\nRebalances:\n {2}\(none\)\n$/);
    const e = explainBinding(
      input({
        binding: {
          ...binding,
          spec: { ...binding.spec, rescheduleTriggeredAt: '2026-01-01T00:08:00Z' },
          status: { ...binding.status, lastScheduledTime: '2026-01-01T00:05:01Z' },
        },
        rebalancers: [
          rebalancer(
            'move-back',
            [web],
            {
              observedWorkloads: [{ workload: web, result: 'Successful' }],
              finishTime: '2026-01-01T00:09:00Z',
            },
            600,
          ),
          {
            ...rebalancer('lost', [web], {
              observedWorkloads: [{ workload: web, result: 'Failed', reason: 'ReferencedBindingNotFound' }],
            }),
            metadata: { name: 'lost', creationTimestamp: '2026-01-01T00:09:30Z' },
          },
        ],
      }),
    );
    const text = renderExplanation(e, NOW);
    expect(text).toMatch(
      /Rebalances:\n {2}REBALANCER +STATE +CREATED +FINISHED +DELETED \(TTL\)\n {2}move-back +succeeded +2026-01-01T00:08:00Z \(2m ago\) +2026-01-01T00:09:00Z \(1m ago\) +2026-01-01T00:19:00Z \(in 9m\)\n {2}lost +failed \(ReferencedBindingNotFound\) +2026-01-01T00:09:30Z \(30s ago\) +- +-\n/,
    );
    expect(text).toContain(
      '  reschedule requested 2026-01-01T00:08:00Z (2m ago): waiting for the scheduler ' +
        '(last scheduled 2026-01-01T00:05:01Z (4m59s ago))\n',
    );
    const json = JSON.parse(JSON.stringify(e)) as { rebalances: unknown };
    expect(json.rebalances).toMatchObject({
      rebalancers: [
        { rebalancer: 'move-back', state: 'succeeded' },
        { rebalancer: 'lost', state: 'failed' },
      ],
      reschedule: { waitingForScheduler: true },
    });
    const unreadable = explainBinding(input({ rebalancersUnreadable: 'forbidden (403): no' }));
    expect(renderExplanation(unreadable, NOW)).toMatch(
      /\nRebalances:\n {2}WorkloadRebalancers could not be read: forbidden \(403\): no\n$/,
    );
  });
});

describe('fail-back', () => {
  const WINDOW = 'failover.karmada-failover.io/fail-back-after-seconds';
  const RECORD = 'failover.karmada-failover.io/placement-before-failover';
  const EVICTED = Date.parse('2026-01-01T00:02:00Z');
  /** Ready True since `since`, or Ready `status` then. */
  const ready = (name: string, since: string, status: 'True' | 'False' = 'True'): Cluster => {
    const c = clusterObject(name);
    const condition = { type: 'Ready', status, reason: 'R', message: '', lastTransitionTime: since };
    return { ...c, status: { ...c.status, conditions: [condition] } };
  };
  /** Fled from m1 to m2 at 00:02; m2 steady throughout; `annotations` decide the rest. */
  const fled = (
    annotations: Record<string, string>,
    clusters: ResourceBinding['spec']['clusters'] = [{ name: 'm2', replicas: 2 }],
  ): ResourceBinding => ({
    metadata: { name: 'web-deployment', namespace: 'default', annotations },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
      replicas: 2,
      placement,
      clusters,
    },
    status: { lastScheduledTime: '2026-01-01T00:02:01Z' },
  });
  const recorded = formatPlacementRecord([{ name: 'm1', replicas: 2 }], EVICTED);
  const on = { [WINDOW]: '300', [RECORD]: recorded };
  const failBackOf = (b: ResourceBinding, m1: Cluster, over: Partial<ExplainInput> = {}) =>
    explainBinding(
      input({ binding: b, clusters: [m1, ready('m2', '2025-12-31T00:00:00Z')], events: [], ...over }),
    ).failBack;

  it('is off without the annotation, and says so in the text', () => {
    const e = explainBinding(input());
    expect(e.failBack).toEqual({
      off: [],
      setting: { kind: 'off' },
      record: { kind: 'none' },
      decision: undefined,
    });
    expect(renderExplanation(e, NOW)).toContain(
      '\nFail-back: off (no failover.karmada-failover.io/fail-back-after-seconds annotation)\n' +
        '  no placement record (no cluster failover to undo)\n\nRecent events:\n',
    );
  });

  it('is on without a record: nothing to decide', () => {
    expect(failBackOf(fled({ [WINDOW]: '300' }), ready('m1', '2026-01-01T00:00:00Z'))).toEqual({
      off: [],
      setting: { kind: 'on', windowMs: 300_000 },
      record: { kind: 'none' },
      decision: undefined,
    });
  });

  it('waits for a recorded cluster that is not steady, and names why', () => {
    const notReady = failBackOf(fled(on), ready('m1', '2026-01-01T00:09:00Z', 'False'));
    expect(notReady.record).toEqual({
      kind: 'record',
      evictedAtMs: EVICTED,
      clusters: [
        { cluster: 'm1', replicas: 2, exists: true, steadySinceMs: undefined, unsteady: 'Ready is False' },
      ],
    });
    expect(notReady.decision).toMatchObject({
      kind: 'wait',
      reason: 'Unsteady',
      message: 'cluster m1: Ready is False',
    });
    // Ready True for long, but its heartbeat Lease is older than the monitor grace period (40 s).
    const silent = failBackOf(fled(on), ready('m1', '2026-01-01T00:00:00Z'), {
      leaseRenewedAtMs: new Map([['m1', NOW - 60_000]]),
    });
    expect(silent.decision).toMatchObject({
      kind: 'wait',
      reason: 'Unsteady',
      message: 'cluster m1: heartbeat Lease not renewed for 60 s',
    });
    const text = renderExplanation(
      explainBinding(
        input({
          binding: fled(on),
          clusters: [ready('m1', '2026-01-01T00:09:00Z', 'False'), ready('m2', '2025-12-31T00:00:00Z')],
        }),
      ),
      NOW,
    );
    expect(text).toMatch(/ {4}m1 +2 +no: Ready is False\n {2}waits: cluster m1: Ready is False\n/);
  });

  it('counts the window from the Ready transition: seconds left while it runs', () => {
    const e = explainBinding(
      input({
        binding: fled(on),
        clusters: [ready('m1', '2026-01-01T00:08:00Z'), ready('m2', '2025-12-31T00:00:00Z')],
      }),
    );
    expect(e.failBack.record).toMatchObject({
      clusters: [{ cluster: 'm1', steadySinceMs: Date.parse('2026-01-01T00:08:00Z'), unsteady: undefined }],
    });
    expect(e.failBack.decision).toEqual({
      kind: 'wait',
      reason: 'Stabilizing',
      message: 'm1 steady; going back in 180 s',
      recheckInMs: 180_000,
    });
    const text = renderExplanation(e, NOW);
    expect(text).toContain(
      'Fail-back: on, window 300 s\n' +
        '  placement before the failover (evicted 2026-01-01T00:02:00Z (8m ago)):\n' +
        '    CLUSTER  REPLICAS  STEADY (ESTIMATE)\n' +
        '    m1       2         since 2026-01-01T00:08:00Z (2m ago)\n' +
        '  goes back to m1 in ~180 s (window 300 s)\n' +
        "  estimate: steady since each cluster's Ready transition (the running controller restarts a " +
        'window on any unsteady look it saw, and from its own start); fleet guard and in-flight limit ' +
        'not considered\n',
    );
    const json = JSON.parse(JSON.stringify(e)) as { failBack: unknown };
    expect(json.failBack).toMatchObject({
      setting: { kind: 'on', windowMs: 300_000 },
      record: { kind: 'record', clusters: [{ cluster: 'm1', replicas: 2 }] },
      decision: { kind: 'wait', reason: 'Stabilizing' },
    });
  });

  it('would go back now once the window is over, leaving the cluster it fled to', () => {
    const e = explainBinding(
      input({
        binding: fled(on),
        clusters: [ready('m1', '2026-01-01T00:04:00Z'), ready('m2', '2025-12-31T00:00:00Z')],
      }),
    );
    expect(e.failBack.decision).toEqual({ kind: 'return', returnTo: ['m1'], leave: ['m2'] });
    expect(renderExplanation(e, NOW)).toContain(
      '  would go back now: to m1, leaving m2 (graceful eviction task each)\n  estimate: ',
    );
    // One second short of the window, it still waits that second.
    expect(failBackOf(fled(on), ready('m1', '2026-01-01T00:05:01Z')).decision).toMatchObject({
      kind: 'wait',
      reason: 'Stabilizing',
      recheckInMs: 1_000,
    });
  });

  it('would drop a record of a placement already restored, or of a cluster gone', () => {
    const back = fled(on, [{ name: 'm1', replicas: 2 }]);
    expect(failBackOf(back, ready('m1', '2026-01-01T00:09:00Z')).decision).toEqual({
      kind: 'drop',
      reason: 'AlreadyBack',
      message: 'placed on m1 again',
    });
    const gone = failBackOf(fled(on), ready('m9', '2026-01-01T00:00:00Z'));
    expect(gone.record).toMatchObject({
      clusters: [{ cluster: 'm1', exists: false, unsteady: 'not found' }],
    });
    expect(gone.decision).toMatchObject({ kind: 'drop', reason: 'ClusterGone' });
    const text = renderExplanation(
      explainBinding(
        input({
          binding: back,
          clusters: [ready('m1', '2026-01-01T00:09:00Z'), ready('m2', '2025-12-31T00:00:00Z')],
        }),
      ),
      NOW,
    );
    expect(text).toContain('  record would be dropped: AlreadyBack (placed on m1 again)\n\nRecent events:');
  });

  it('says an unreadable record is dropped, whatever the setting', () => {
    const e = explainBinding(input({ binding: fled({ [WINDOW]: '300', [RECORD]: '{"clusters":' }) }));
    expect(e.failBack).toMatchObject({
      setting: { kind: 'on' },
      record: { kind: 'invalid', problem: 'not JSON' },
      decision: undefined,
    });
    expect(renderExplanation(e, NOW)).toContain(
      'Fail-back: on, window 300 s\n  placement record unreadable: not JSON\n' +
        '  record would be dropped: InvalidRecord\n',
    );
  });

  it('reports an invalid setting, which keeps the record without deciding', () => {
    const e = explainBinding(
      input({
        binding: fled({ [WINDOW]: 'soon', [RECORD]: recorded }),
        clusters: [ready('m1', '2026-01-01T00:00:00Z'), ready('m2', '2025-12-31T00:00:00Z')],
      }),
    );
    expect(e.failBack.setting).toEqual({
      kind: 'invalid',
      problem: `${WINDOW} must be a whole number of seconds, got "soon"`,
    });
    expect(e.failBack.record.kind).toBe('record');
    expect(e.failBack.decision).toBeUndefined();
    const text = renderExplanation(e, NOW);
    expect(text).toContain(
      `Fail-back: invalid setting: ${WINDOW} must be a whole number of seconds, got "soon"\n`,
    );
    expect(text).toContain('  record kept until the setting is corrected');
    expect(text).not.toContain('estimate:');
  });

  it('says a record is dropped when fail-back is off, and when the controller does not run', () => {
    const e = explainBinding(
      input({
        binding: fled({ [RECORD]: recorded }),
        settings: { ...settings, failoverGate: false },
      }),
    );
    expect(e.failBack).toMatchObject({ off: ['feature gate Failover is off'], setting: { kind: 'off' } });
    const text = renderExplanation(e, NOW);
    expect(text).toContain(
      'Fail-back: off (no failover.karmada-failover.io/fail-back-after-seconds annotation) ' +
        '(the fail-back controller does not run: feature gate Failover is off)\n',
    );
    expect(text).toContain('  record would be dropped: Disabled (fail-back is off for this binding)\n');
  });

  it('lists the fail-back Events with the binding own', () => {
    const events = ['FailBackStarted', 'FailBackDropped', 'FailBackInvalidSetting', 'FailBackFailed'].map(
      (reason, i) => event(reason, `2026-01-01T00:0${String(i + 1)}:00Z`, reason),
    );
    expect(explainBinding(input({ events })).events.map((v) => v.reason)).toEqual([
      'FailBackFailed',
      'FailBackInvalidSetting',
      'FailBackDropped',
      'FailBackStarted',
    ]);
  });
});

describe('readRebalancers', () => {
  const failing = (err: Error) => () => Promise.reject(err);

  it('returns the listed rebalancers', async () => {
    const items = [{ metadata: { name: 'r' }, spec: { workloads: [] } }];
    expect(await readRebalancers(() => Promise.resolve({ items }))).toEqual({ rebalancers: items });
  });

  it('says why on 403 and 404 instead of failing', async () => {
    const forbidden = new KubeError('Forbidden', 'cannot list workloadrebalancers', { status: 403 });
    expect(await readRebalancers(failing(forbidden))).toEqual({
      rebalancers: [],
      unreadable: 'forbidden (403): cannot list workloadrebalancers',
    });
    const missing = new KubeError('NotFound', 'the server could not find the requested resource', {
      status: 404,
    });
    expect(await readRebalancers(failing(missing))).toEqual({
      rebalancers: [],
      unreadable:
        'not served (404: WorkloadRebalancer CRD not installed?): the server could not find the requested resource',
    });
  });

  it('fails on anything else', async () => {
    const down = new KubeError('Unavailable', 'etcd is down', { status: 503 });
    await expect(readRebalancers(failing(down))).rejects.toBe(down);
  });
});

describe('render helpers', () => {
  it('aligns table columns', () => {
    expect(table(['A', 'BB'], [['long', 'x']])).toEqual(['A     BB', 'long  x']);
  });
  it.each([
    [5_000, '5s'],
    [90_000, '1m30s'],
    [600_000, '10m'],
    [7_500_000, '2h5m'],
  ])('span(%d) = %s', (ms, text) => {
    expect(span(ms)).toBe(text);
  });
  it('says when, relative to now', () => {
    expect(when(NOW + 30_000, NOW)).toBe('2026-01-01T00:10:30Z (in 30s)');
    expect(when(NOW - 120_000, NOW)).toBe('2026-01-01T00:08:00Z (2m ago)');
    expect(when(undefined, NOW)).toBe('-');
    expect(when(Number.POSITIVE_INFINITY, NOW)).toBe('never');
  });
});

describe('explain: the fence of a Directly purge', () => {
  const fenced = (value: string | undefined, purgeMode: 'Directly' | 'Gracefully'): ResourceBinding => ({
    ...binding,
    metadata: {
      ...binding.metadata,
      annotations: value === undefined ? {} : { [annotations.fenceAfterSeconds]: value },
    },
    spec: { ...binding.spec, failover: { cluster: { purgeMode } } },
  });
  const fenceLines = (b: ResourceBinding): string[] =>
    explainBinding(input({ binding: b })).clusterFailover.settings.filter((l) => l.startsWith('fence'));

  it.each([
    [
      'a fence on a Directly purge',
      '30',
      'Directly' as const,
      'fence 30s: the agent of a cluster cut off that long deletes the copies itself; a Directly purge of that cluster goes on once its Lease has been silent for 30s + the Lease duration + --fence-release-margin',
    ],
    [
      'a fence without a Directly purge',
      '30',
      'Gracefully' as const,
      `fence: ${annotations.fenceAfterSeconds} is set, but no failover of this binding purges Directly; no fence`,
    ],
    [
      'an invalid fence',
      '30s',
      'Directly' as const,
      `fence: ${annotations.fenceAfterSeconds} must be a whole number of seconds, got "30s"; no fence`,
    ],
  ])('%s', (_, value, purgeMode, line) => {
    expect(fenceLines(fenced(value, purgeMode))).toEqual([line]);
  });

  it('says nothing of a fence when none is asked for', () => {
    expect(fenceLines(fenced(undefined, 'Directly'))).toEqual([]);
  });
});
