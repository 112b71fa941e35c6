import type { Cluster, ClusterCondition } from '@kf/api';
import { KubeError } from '@kf/kube';
import { createLogger, createRegistry, type ObjectSource, type ReconcileContext } from '@kf/runtime';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ClusterStatusPatch } from '../../health/cluster-condition.ts';
import type { NodeCondition } from '../../health/node-condition.ts';
import { createProbeMetrics, type ProbeMetrics } from '../../metrics.ts';
import type { NodeObject } from '../../node/node-object.ts';
import { clusterConditionController } from './controller.ts';

const NOW = Date.parse('2026-11-22T05:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
const STALE_MS = 60_000;

/** An in-memory informer: tests set objects and read what the controller sees. */
class FakeSource<T extends { metadata?: { name?: string } }> implements ObjectSource<T> {
  readonly objects = new Map<string, T>();
  set(...objs: T[]): void {
    for (const o of objs) this.objects.set(o.metadata?.name ?? '', o);
  }
  get(key: string): T | undefined {
    return this.objects.get(key);
  }
  list(): readonly T[] {
    return [...this.objects.values()];
  }
  onEvent(): () => void {
    return () => undefined;
  }
  synced(): Promise<void> {
    return Promise.resolve();
  }
}

function node(
  name: string,
  status: 'True' | 'False' | undefined,
  heartbeatAgeMs = 0,
  ready = true,
): NodeObject {
  const conditions: NodeCondition[] = [{ type: 'Ready', status: ready ? 'True' : 'False' }];
  if (status !== undefined) {
    conditions.push({
      type: 'ServiceDomainNameResolutionReady',
      status,
      lastHeartbeatTime: iso(NOW - heartbeatAgeMs),
    });
  }
  return { metadata: { name }, status: { conditions } };
}

function cluster(rv: string, conditions: ClusterCondition[] = [], deleting = false): Cluster {
  return {
    metadata: { name: 'member1', resourceVersion: rv, ...(deleting ? { deletionTimestamp: iso(NOW) } : {}) },
    spec: { syncMode: 'Pull' },
    status: { conditions },
  };
}

const READY_CONDITION: ClusterCondition = {
  type: 'ServiceDomainNameResolutionReady',
  status: 'True',
  reason: 'ServiceDomainNameResolutionReady',
  message: 'service domain name resolution is ready',
  lastTransitionTime: iso(NOW - 1_000_000),
};

describe('clusterConditionController', () => {
  let nodes: FakeSource<NodeObject>;
  let clusters: FakeSource<Cluster>;
  let patches: ClusterStatusPatch[];
  let fail: Error | undefined;
  let metrics: ProbeMetrics;
  let lines: string[];
  let now: number;
  let ctx: ReconcileContext;

  const controller = (
    mode: 'upstream' | 'quorum' = 'upstream',
  ): ReturnType<typeof clusterConditionController> =>
    clusterConditionController({
      clusterName: 'member1',
      nodes,
      clusters,
      patchStatus: (_name, patch) => {
        if (fail !== undefined) return Promise.reject(fail);
        patches.push(patch);
        return Promise.resolve(
          cluster(String(Number(patch.metadata.resourceVersion) + 1), [...patch.status.conditions]),
        );
      },
      mode: mode === 'upstream' ? { kind: 'upstream' } : { kind: 'quorum', failureQuorum: 0.5 },
      staleThresholdMs: STALE_MS,
      metrics,
    });

  beforeEach(() => {
    nodes = new FakeSource();
    clusters = new FakeSource();
    patches = [];
    fail = undefined;
    metrics = createProbeMetrics(createRegistry({ component: 'probe', version: 'test' }));
    lines = [];
    now = NOW;
    const log = createLogger({
      component: 'probe',
      level: 'info',
      destination: { write: (s: string) => void lines.push(s) },
    });
    ctx = { log, now: () => now, signal: new AbortController().signal };
  });

  it('reports True and wakes up when the first verdict turns stale', async () => {
    nodes.set(node('n0', 'True', 10_000), node('n1', 'False', 0));
    clusters.set(cluster('7'));
    const outcome = await controller().reconcile('member1', ctx);
    expect(patches).toEqual([
      {
        metadata: { resourceVersion: '7' },
        status: { conditions: [{ ...READY_CONDITION, lastTransitionTime: iso(NOW) }] },
      },
    ]);
    expect(outcome).toEqual({ recheckInMs: STALE_MS - 10_000 + 1 });
    expect((await metrics.clusterWrites.get()).values).toContainEqual({
      labels: { result: 'success' },
      value: 1,
    });
  });

  it('writes nothing while a Ready node has no verdict (upstream)', async () => {
    nodes.set(node('n0', 'False'), node('n1', undefined));
    clusters.set(cluster('7'));
    await controller().reconcile('member1', ctx);
    expect(patches).toEqual([]);
    expect(lines.join('')).toContain('some Ready nodes have no fresh verdict');
  });

  it('reports with an Unknown node in quorum mode', async () => {
    nodes.set(node('n0', 'False'), node('n1', 'False'), node('n2', 'True', STALE_MS + 1));
    clusters.set(cluster('7'));
    await controller('quorum').reconcile('member1', ctx);
    expect(patches[0]?.status.conditions[0]).toMatchObject({
      status: 'False',
      message: 'service domain name resolution is unready: 2 of 2 nodes failed; 1 node unknown',
    });
  });

  it('ignores nodes that are not Ready', async () => {
    nodes.set(node('n0', 'False'), node('n1', 'True', 0, false));
    clusters.set(cluster('7'));
    await controller().reconcile('member1', ctx);
    expect(patches[0]?.status.conditions[0]).toMatchObject({ status: 'False' });
  });

  it('logs a missing Cluster once and writes nothing', async () => {
    nodes.set(node('n0', 'True'));
    const c = controller();
    await c.reconcile('member1', ctx);
    await c.reconcile('member1', ctx);
    expect(patches).toEqual([]);
    expect(lines.filter((l) => l.includes('the Cluster does not exist'))).toHaveLength(1);
    expect(lines[0]).toContain('"level":"warn"');
  });

  it('skips a Cluster being deleted', async () => {
    nodes.set(node('n0', 'True'));
    clusters.set(cluster('7', [], true));
    await controller().reconcile('member1', ctx);
    expect(patches).toEqual([]);
    expect(lines.join('')).toContain('the Cluster is being deleted');
  });

  it('writes nothing when the condition already says it', async () => {
    nodes.set(node('n0', 'True'));
    clusters.set(cluster('7', [READY_CONDITION]));
    await controller().reconcile('member1', ctx);
    expect(patches).toEqual([]);
  });

  it('does not write again while the watch has not caught up with its own write', async () => {
    nodes.set(node('n0', 'True'));
    clusters.set(cluster('7'));
    const c = controller();
    await c.reconcile('member1', ctx);
    await c.reconcile('member1', ctx); // the cache still holds resourceVersion 7
    expect(patches).toHaveLength(1);
  });

  it('counts a conflict and rethrows it for a retry', async () => {
    nodes.set(node('n0', 'True'));
    clusters.set(cluster('7'));
    fail = new KubeError('Conflict', 'the object has been modified', { status: 409 });
    await expect(controller().reconcile('member1', ctx)).rejects.toThrow('the object has been modified');
    expect((await metrics.clusterWrites.get()).values).toContainEqual({
      labels: { result: 'conflict' },
      value: 1,
    });
  });

  it('counts a heartbeat that stopped changing as stale by its own clock, even one from the future', async () => {
    nodes.set(node('n0', 'False', -600_000)); // its clock runs ten minutes ahead
    clusters.set(cluster('7'));
    const c = controller();
    await c.reconcile('member1', ctx);
    expect(patches).toHaveLength(1);
    now = NOW + STALE_MS + 1;
    await c.reconcile('member1', ctx);
    expect(patches).toHaveLength(1);
    expect(lines.join('')).toContain('some Ready nodes have no fresh verdict');
  });

  it('sets the node count gauge', async () => {
    nodes.set(node('n0', 'True'), node('n1', 'False'), node('n2', undefined));
    await controller().reconcile('member1', ctx);
    const values = (await metrics.clusterNodes.get()).values.map((v) => [v.labels.verdict, v.value]);
    expect(Object.fromEntries(values)).toEqual({ True: 1, False: 1, Unknown: 1 });
  });
});
