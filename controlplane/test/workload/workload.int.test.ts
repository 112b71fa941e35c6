/**
 * The workload pipeline against a real control plane: a Deployment and a PropagationPolicy
 * become a binding, a schedule, Works per cluster and, from Work status, the Deployment's status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceClient, CORE_EVENT_RESOURCE, retryOnConflict, type CoreEvent } from '@kf/kube';
import type { ResourceBinding } from '@kf/api';
import { dividedByStaticWeights } from '@kf/testing';
import type { ResourceTemplate } from '../../src/workload/template.ts';
import { workNameFor } from '../../src/names.ts';
import {
  createReadyCluster,
  deployment,
  releaseDeletedWorks,
  reportWork,
  startHarness,
  workReplicas,
  type Harness,
} from './harness.ts';

const POLL = { timeout: 30_000, interval: 200 };
const API_WORK = workNameFor('Deployment', 'api', 'default');
let h: Harness;

beforeAll(async () => {
  h = await startHarness(['member1', 'member2', 'member3']);
  await createReadyCluster(h, 'member1');
  await createReadyCluster(h, 'member2');
});

afterAll(async () => {
  await (h as Harness | undefined)?.stop();
});

const scheduled = (b: ResourceBinding | undefined): unknown =>
  b?.status?.conditions?.find((c) => c.type === 'Scheduled');
const clustersOf = async (name: string): Promise<unknown> =>
  (await h.bindings.find(`default/${name}`))?.spec.clusters ?? [];

describe('Deployment with a Divided static-weight policy', () => {
  it('propagates as a binding scheduled member1:1, member2:2 and two Works with those replicas', async () => {
    await h.policies.create({
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
        placement: dividedByStaticWeights({ member1: 1, member2: 2 }),
      },
    });
    await h.deployments.create(deployment('web', 3));
    await expect
      .poll(() => clustersOf('web-deployment'), POLL)
      .toEqual([
        { name: 'member1', replicas: 1 },
        { name: 'member2', replicas: 2 },
      ]);
    await expect
      .poll(async () => scheduled(await h.bindings.get('default/web-deployment')), POLL)
      .toMatchObject({ status: 'True', reason: 'Success' });
    const b = await h.bindings.get('default/web-deployment');
    expect(b.spec).toMatchObject({
      replicas: 3,
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    });
    expect(b.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Deployment',
      name: 'web',
      controller: true,
    });
    await expect.poll(() => workReplicas(h, 'web-deployment'), POLL).toEqual({ member1: 1, member2: 2 });
    const w = await h.works.get('karmada-es-member1/web-7b7cc5b9ff');
    expect(w.metadata.finalizers).toContain('karmada.io/execution-controller');
    await expect
      .poll(
        async () => (await h.bindings.get('default/web-deployment')).status?.schedulerObservedGeneration,
        POLL,
      )
      .toBe((await h.bindings.get('default/web-deployment')).metadata.generation);
  });

  it('aggregates Work status into the binding and sums it into the Deployment status', async () => {
    const generation = (await h.deployments.get('default/web')).metadata.generation ?? 1;
    for (const [cluster, n] of [
      ['member1', 1],
      ['member2', 2],
    ] as const) {
      await reportWork(
        h,
        { cluster, name: 'web-7b7cc5b9ff', deployment: 'web' },
        {
          health: 'Healthy',
          status: {
            replicas: n,
            readyReplicas: n,
            updatedReplicas: n,
            availableReplicas: n,
            observedGeneration: 1,
            generation: 1,
            resourceTemplateGeneration: generation,
          },
        },
      );
    }
    await expect
      .poll(async () => (await h.bindings.get('default/web-deployment')).status?.aggregatedStatus, POLL)
      .toMatchObject([
        { clusterName: 'member1', applied: true, health: 'Healthy', status: { replicas: 1 } },
        { clusterName: 'member2', applied: true, health: 'Healthy', status: { replicas: 2 } },
      ]);
    const b = await h.bindings.get('default/web-deployment');
    expect(b.status?.conditions?.find((c) => c.type === 'FullyApplied')).toMatchObject({
      status: 'True',
      reason: 'FullyAppliedSuccess',
    });
    await expect
      .poll(async () => (await h.deployments.get('default/web')).status, POLL)
      .toEqual({
        observedGeneration: generation,
        replicas: 3,
        readyReplicas: 3,
        updatedReplicas: 3,
        availableReplicas: 3,
      });
  });

  it('puts the summed status back into the Deployment when another writer changes it', async () => {
    // The controller compares against its cached Deployment; a change there must wake it.
    await retryOnConflict(async () => {
      const d = await h.deployments.get('default/web');
      await h.deployments.replaceStatus({
        ...d,
        status: { ...d.status, readyReplicas: 0, availableReplicas: 0 },
      });
    });
    await expect
      .poll(async () => (await h.deployments.get('default/web')).status?.readyReplicas, POLL)
      .toBe(3);
  });

  it('moves the Works when member1 is tainted NoExecute and evicted, keeping its Work while the eviction task lasts', async () => {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await h.clusters.mergePatch('member1', {
      spec: { taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: now }] },
    });
    // What the taint manager does: drop the cluster and leave a graceful eviction task.
    await retryOnConflict(async () => {
      const b = await h.bindings.get('default/web-deployment');
      await h.bindings.mergePatch('default/web-deployment', {
        metadata: { resourceVersion: b.metadata.resourceVersion },
        spec: {
          clusters: (b.spec.clusters ?? []).filter((c) => c.name !== 'member1'),
          gracefulEvictionTasks: [
            {
              fromCluster: 'member1',
              purgeMode: 'Gracefully',
              replicas: 1,
              reason: 'TaintUntolerated',
              producer: 'TaintManager',
            },
          ],
        },
      });
    });
    await expect.poll(() => clustersOf('web-deployment'), POLL).toEqual([{ name: 'member2', replicas: 3 }]);
    await expect.poll(() => workReplicas(h, 'web-deployment'), POLL).toEqual({ member1: 1, member2: 3 });

    await h.bindings.mergePatch('default/web-deployment', { spec: { gracefulEvictionTasks: null } });
    await expect
      .poll(async () => {
        await releaseDeletedWorks(h, 'web-deployment');
        return workReplicas(h, 'web-deployment');
      }, POLL)
      .toEqual({ member2: 3 });
  });

  it('removes the binding and its Works when the Deployment is deleted', async () => {
    await h.deployments.delete('default/web');
    await expect
      .poll(async () => {
        const left = await releaseDeletedWorks(h, 'web-deployment');
        const binding = await h.bindings.find('default/web-deployment');
        return { binding: binding === undefined, works: left };
      }, POLL)
      .toEqual({ binding: true, works: 0 });
  });
});

describe('Directly purge', () => {
  it('holds the new placement back until the Work of the purged cluster is gone', async () => {
    await createReadyCluster(h, 'member3');
    await h.policies.create({
      metadata: { name: 'api', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' }],
        placement: {
          clusterAffinity: { clusterNames: ['member2', 'member3'] },
          replicaScheduling: { replicaSchedulingType: 'Duplicated' },
        },
      },
    });
    await h.deployments.create(deployment('api', 2));
    await expect.poll(() => workReplicas(h, 'api-deployment'), POLL).toEqual({ member2: 2, member3: 2 });

    await retryOnConflict(async () => {
      const b = await h.bindings.get('default/api-deployment');
      await h.bindings.mergePatch('default/api-deployment', {
        metadata: { resourceVersion: b.metadata.resourceVersion },
        spec: {
          clusters: [{ name: 'member3', replicas: 2 }],
          gracefulEvictionTasks: [
            {
              fromCluster: 'member2',
              purgeMode: 'Directly',
              reason: 'TaintUntolerated',
              producer: 'TaintManager',
            },
          ],
        },
      });
    });
    await h.deployments.mergePatch('default/api', { spec: { replicas: 4 } });
    await expect
      .poll(async () => (await h.bindings.get('default/api-deployment')).spec.replicas, POLL)
      .toBe(4);
    // The member2 Work is deleting (its agent has not released it yet): member3 keeps the old content.
    await expect
      .poll(
        async () => (await h.works.find(`karmada-es-member2/${API_WORK}`))?.metadata.deletionTimestamp,
        POLL,
      )
      .toBeDefined();
    expect(await workReplicas(h, 'api-deployment')).toEqual({ member2: 2, member3: 2 });

    await expect
      .poll(async () => {
        await releaseDeletedWorks(h, 'api-deployment');
        return workReplicas(h, 'api-deployment');
      }, POLL)
      .toEqual({ member3: 4 });
  });
});

describe('cluster-scoped template with a ClusterPropagationPolicy', () => {
  it('becomes a ClusterResourceBinding duplicated to every fitting cluster, one Work each', async () => {
    await h.clusterPolicies.create({
      metadata: { name: 'roles' },
      spec: {
        resourceSelectors: [
          { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'viewer' },
        ],
        placement: { clusterAffinity: { clusterNames: ['member2', 'member3'] } },
      },
    });
    await h.clusterRoles.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'viewer' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    } as ResourceTemplate);
    await expect
      .poll(async () => (await h.clusterBindings.find('viewer-clusterrole'))?.spec.clusters, POLL)
      .toEqual([{ name: 'member2' }, { name: 'member3' }]);
    await expect
      .poll(
        async () => h.works.find(`karmada-es-member3/${workNameFor('ClusterRole', 'viewer', undefined)}`),
        POLL,
      )
      .toBeDefined();
    const w = await h.works.get(`karmada-es-member3/${workNameFor('ClusterRole', 'viewer', undefined)}`);
    expect(w.metadata.annotations).toMatchObject({
      'clusterresourcebinding.karmada.io/name': 'viewer-clusterrole',
    });
    expect(w.spec.workload?.manifests?.[0]).toMatchObject({
      kind: 'ClusterRole',
      metadata: { name: 'viewer', labels: { 'karmada.io/managed': 'true' } },
      rules: [{ resources: ['pods'], verbs: ['get'] }],
    });

    await h.clusterRoles.delete('viewer');
    await expect
      .poll(async () => {
        const { items } = await h.works.list();
        for (const x of items.filter((i) => i.metadata.deletionTimestamp !== undefined)) {
          await h.works.mergePatch(`${x.metadata.namespace}/${x.metadata.name}`, {
            metadata: { finalizers: null },
          });
        }
        const left = items.filter(
          (i) => i.metadata.annotations?.['clusterresourcebinding.karmada.io/name'] === 'viewer-clusterrole',
        );
        return {
          binding: (await h.clusterBindings.find('viewer-clusterrole')) === undefined,
          works: left.length,
        };
      }, POLL)
      .toEqual({ binding: true, works: 0 });
  });
});

describe('no fitting cluster', () => {
  // member1 still carries the NoExecute taint of the eviction test; member2 is not in the affinity.
  it('reports Scheduled=False with the reasons and keeps the placement empty', async () => {
    await h.policies.create({
      metadata: { name: 'lonely', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'lonely' }],
        placement: { clusterAffinity: { clusterNames: ['member1'] } },
      },
    });
    await h.deployments.create(deployment('lonely', 2));
    await expect
      .poll(async () => scheduled(await h.bindings.find('default/lonely-deployment')), POLL)
      .toMatchObject({ status: 'False', reason: 'NoClusterFit' });
    const condition = scheduled(await h.bindings.get('default/lonely-deployment')) as { message: string };
    expect(condition.message).toContain('0/3 clusters are available');
    expect(await clustersOf('lonely-deployment')).toEqual([]);
    expect(await workReplicas(h, 'lonely-deployment')).toEqual({});
    const events = new ResourceClient<CoreEvent>(h.cp.kubeConfig(), CORE_EVENT_RESOURCE);
    await expect
      .poll(async () => {
        const { items } = await events.list({ namespace: 'default' });
        return items.find(
          (e) => e.reason === 'ScheduleBindingFailed' && e.involvedObject.kind === 'ResourceBinding',
        )?.message;
      }, POLL)
      .toMatch(/member1: TaintToleration: .*member2: ClusterAffinity: .*member3: ClusterAffinity: /);
  });
});

describe('a Service', () => {
  it("reaches the members without the control plane's cluster IPs", async () => {
    const services = new ResourceClient<ResourceTemplate>(h.cp.kubeConfig(), {
      group: '',
      version: 'v1',
      plural: 'services',
      namespaced: true,
      kind: 'Service',
    });
    await h.policies.create({
      metadata: { name: 'front', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'v1', kind: 'Service', name: 'front' }],
        // member2: the test before leaves member1 tainted.
        placement: { clusterAffinity: { clusterNames: ['member2'] } },
      },
    });
    await services.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'front', namespace: 'default' },
      spec: { selector: { app: 'front' }, ports: [{ port: 80 }] },
    });
    const allocated = (await services.get('default/front')).spec?.['clusterIP'];
    expect(allocated).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const workKey = `karmada-es-member2/${workNameFor('Service', 'front', 'default')}`;
    await expect.poll(async () => (await h.works.find(workKey)) !== undefined, POLL).toBe(true);
    const manifest = (await h.works.get(workKey)).spec.workload?.manifests?.[0] as {
      spec: Record<string, unknown>;
    };
    expect(manifest.spec).not.toHaveProperty('clusterIP');
    expect(manifest.spec).not.toHaveProperty('clusterIPs');
    expect(manifest.spec['ports']).toEqual([expect.objectContaining({ port: 80 })]);
  });
});
