/**
 * The control plane against a real Karmada API server, with the test playing the member agents:
 * Lease expiry → Ready=Unknown → NoSchedule and (by the default ClusterTaintPolicy) NoExecute
 * taints → bindings evicted at once or after their toleration; graceful eviction tasks stamped;
 * Remedy → remedyActions → MultiClusterIngress traffic blocking, and back.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clusterTaintKeys,
  finalizers,
  multiClusterIngressKind,
  parseTime,
  remedyKind,
  workKind,
  type Cluster,
  type MultiClusterIngress,
  type Remedy,
  type ResourceBinding,
  type Toleration,
  type Work,
} from '@kf/api';
import { ResourceClient } from '@kf/kube';
import {
  eventsAbout,
  metricValue,
  placedBinding as binding,
  startScenario,
  type FakeAgents,
  type Plane,
  type RunningControlPlane,
  type Scenario,
} from './harness.ts';

let scenario: Scenario;
let plane: Plane;
let agents: FakeAgents;
let app: RunningControlPlane;
let bindings: ResourceClient<ResourceBinding>;

const NS = 'default';
const GRACE_MS = 4_000;
const MONITOR_PERIOD_MS = 1_000;

const readyOf = (c: Cluster | undefined): string | undefined =>
  c?.status?.conditions?.find((x) => x.type === 'Ready')?.status;
const boundTo = async (name: string): Promise<string[]> =>
  ((await bindings.get(`${NS}/${name}`)).spec.clusters ?? []).map((c) => c.name);

beforeAll(async () => {
  scenario = await startScenario(['down', 'ok1', 'ok2', 'ok3']);
  ({ plane, agents, app, bindings } = scenario);
});

afterAll(async () => {
  await (scenario as Scenario | undefined)?.stop();
});

describe('cluster lifecycle', () => {
  it('creates the execution namespace and adds the cluster finalizer', async () => {
    await expect
      .poll(async () => (await plane.clusters.get('ok1')).metadata.finalizers, { timeout: 20_000 })
      .toContain('karmada.io/cluster-controller');
    const core = plane.cluster.kubeConfig().makeApiClient(CoreV1Api);
    const ns = await core.readNamespace({ name: 'karmada-es-ok1' });
    expect(ns.metadata?.labels?.['karmada.io/system']).toBe('true');
  });

  it('makes the execution namespace again when it is deleted by hand', async () => {
    const core = plane.cluster.kubeConfig().makeApiClient(CoreV1Api);
    const before = await core.readNamespace({ name: 'karmada-es-ok1' });
    await core.deleteNamespace({ name: 'karmada-es-ok1' });
    // Nothing about the Cluster changes: only the namespace's own events can bring it back.
    await expect
      .poll(
        async () => {
          const ns = await core.readNamespace({ name: 'karmada-es-ok1' }).catch(() => undefined);
          return (
            ns !== undefined &&
            ns.metadata?.uid !== before.metadata?.uid &&
            ns.metadata?.deletionTimestamp === undefined
          );
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true);
  });
});

describe('health, taints and eviction', () => {
  it('marks Ready=Unknown between the grace period and one monitor period later, then taints and evicts', async () => {
    // Bindings on the cluster about to fail: one intolerant, one tolerating the taint for 5s.
    await bindings.create(binding('intolerant', ['down', 'ok1']));
    const tolerating: Toleration = {
      key: clusterTaintKeys.notReady,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 5,
    };
    await bindings.create(binding('tolerant', ['down', 'ok2'], [tolerating]));
    // Settle: the control plane has seen the cluster Ready.
    await expect
      .poll(async () => readyOf(await plane.clusters.get('down')), { timeout: 20_000 })
      .toBe('True');

    const lastRenewAtMs = await agents.silence('down');
    let unknownAtMs = 0;
    await expect
      .poll(
        async () => {
          const ready = readyOf(await plane.clusters.get('down'));
          if (ready === 'Unknown' && unknownAtMs === 0) unknownAtMs = Date.now();
          return ready;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe('Unknown');
    const silentMs = unknownAtMs - lastRenewAtMs;
    expect(silentMs).toBeGreaterThanOrEqual(GRACE_MS);
    expect(silentMs).toBeLessThanOrEqual(GRACE_MS + MONITOR_PERIOD_MS + 300); // + one poll and a write

    // NoSchedule at once; NoExecute per the default policy (no hold here). Each is a watch event
    // and a write away: 5 s leaves room for a full suite's load, far below any hold time.
    const taintKeys = async (): Promise<string[]> =>
      ((await plane.clusters.get('down')).spec.taints ?? []).map((t) => `${t.key}:${t.effect}`);
    await expect
      .poll(taintKeys, { timeout: 5_000, interval: 100 })
      .toEqual(expect.arrayContaining([`${clusterTaintKeys.unreachable}:NoSchedule`]));
    await expect
      .poll(taintKeys, { timeout: 5_000, interval: 100 })
      .toEqual(expect.arrayContaining([`${clusterTaintKeys.notReady}:NoExecute`]));

    // The intolerant binding leaves at once, with a graceful eviction task stamped in the same
    // write (no second write for the stamp): the first read that shows it gone shows the stamp.
    await expect.poll(() => boundTo('intolerant'), { timeout: 5_000, interval: 100 }).toEqual(['ok1']);
    expect((await bindings.get(`${NS}/intolerant`)).spec.gracefulEvictionTasks?.[0]).toMatchObject({
      fromCluster: 'down',
      replicas: 2,
      purgeMode: 'Gracefully',
      reason: 'TaintUntolerated',
      producer: 'TaintManager',
      creationTimestamp: expect.any(String) as unknown,
    });
    expect(
      await metricValue(app.registry, 'karmada_failover_evictions_total', { reason: 'TaintUntolerated' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('evicts a binding tolerating the taint for N seconds after N seconds, not before', async () => {
    const taint = (await plane.clusters.get('down')).spec.taints?.find(
      (t) => t.key === clusterTaintKeys.notReady && t.effect === 'NoExecute',
    );
    const addedAtMs = parseTime(taint?.timeAdded) ?? 0;
    expect(addedAtMs).toBeGreaterThan(0);
    const deadlineMs = addedAtMs + 5_000;
    let evictedAtMs = 0;
    await expect
      .poll(
        async () => {
          const on = await boundTo('tolerant');
          if (!on.includes('down') && evictedAtMs === 0) evictedAtMs = Date.now();
          return on;
        },
        { timeout: 15_000, interval: 100 },
      )
      .toEqual(['ok2']);
    expect(evictedAtMs).toBeGreaterThanOrEqual(deadlineMs);
    expect(evictedAtMs).toBeLessThanOrEqual(deadlineMs + 1_500);
  });

  it('clears the taints when the cluster is Ready again', async () => {
    agents.revive('down');
    await agents.setCondition('down', 'Ready', 'True', 'ClusterReady');
    await expect
      .poll(async () => (await plane.clusters.get('down')).spec.taints ?? [], { timeout: 10_000 })
      .toEqual([]);
  });
});

describe('remedies', () => {
  it('blocks ingress traffic to a cluster whose DNS probe fails, and unblocks it when it recovers', async () => {
    const kc = plane.cluster.kubeConfig();
    const remedies = new ResourceClient<Remedy>(kc, remedyKind);
    const ingresses = new ResourceClient<MultiClusterIngress>(kc, multiClusterIngressKind);
    await remedies.create({
      metadata: { name: 'dns-failure' },
      spec: {
        clusterAffinity: { clusterNames: ['ok1'] },
        decisionMatches: [
          {
            clusterConditionMatch: {
              conditionType: 'ServiceDomainNameResolutionReady',
              operator: 'Equal',
              conditionStatus: 'False',
            },
          },
        ],
        actions: ['TrafficControl'],
      },
    });
    await bindings.create({
      metadata: { name: 'web-service', namespace: NS },
      spec: {
        resource: { apiVersion: 'v1', kind: 'Service', namespace: NS, name: 'web' },
        clusters: [{ name: 'ok1' }, { name: 'ok2' }],
      },
    });
    await ingresses.create({
      metadata: { name: 'web', namespace: NS },
      spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
    });
    await expect
      .poll(async () => (await ingresses.get(`${NS}/web`)).status?.serviceLocations, { timeout: 10_000 })
      .toEqual([{ name: 'web', clusters: ['ok1', 'ok2'] }]);

    await agents.setCondition(
      'ok1',
      'ServiceDomainNameResolutionReady',
      'False',
      'ServiceDomainNameResolutionFailed',
    );
    await expect
      .poll(async () => (await plane.clusters.get('ok1')).status?.remedyActions, { timeout: 10_000 })
      .toEqual(['TrafficControl']);
    await expect
      .poll(async () => (await ingresses.get(`${NS}/web`)).status?.trafficBlockClusters, { timeout: 10_000 })
      .toEqual(['ok1']);

    await agents.setCondition(
      'ok1',
      'ServiceDomainNameResolutionReady',
      'True',
      'ServiceDomainNameResolutionReady',
    );
    await expect
      .poll(async () => (await plane.clusters.get('ok1')).status?.remedyActions, { timeout: 10_000 })
      .toBeUndefined();
    await expect
      .poll(async () => (await ingresses.get(`${NS}/web`)).status?.trafficBlockClusters, { timeout: 10_000 })
      .toBeUndefined();
    expect(await eventsAbout(plane, 'ok1', 'RemedyActionsChanged')).not.toHaveLength(0);
  });
});

describe('cluster deletion', () => {
  it('frees the Works of an unreachable cluster, removes its execution namespace, then the Cluster', async () => {
    const kc = plane.cluster.kubeConfig();
    const works = new ResourceClient<Work>(kc, workKind);
    await works.create({
      metadata: {
        name: 'leftover',
        namespace: 'karmada-es-ok3',
        finalizers: [finalizers.executionController],
      },
      spec: { workload: { manifests: [] } },
    });
    await agents.silence('ok3');
    await agents.setCondition('ok3', 'Ready', 'False', 'ClusterNotReachable');
    await plane.clusters.delete('ok3');
    await expect
      .poll(async () => (await works.find('karmada-es-ok3/leftover'))?.metadata.finalizers ?? [], {
        timeout: 10_000,
      })
      .toEqual([]);
    await expect
      .poll(async () => plane.clusters.find('ok3'), { timeout: 60_000, interval: 500 })
      .toBeUndefined();
    expect(await eventsAbout(plane, 'ok3', 'RemoveExecutionSpaceSucceed')).toHaveLength(1);
  });
});
