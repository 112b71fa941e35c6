/**
 * deploy/controlplane/rbac.yaml is enough for everything the control plane process does: the
 * process (`node controlplane/src/main.ts run`, every controller, leader election on) runs with a
 * client certificate bound only to that RBAC against a real Karmada API server. A Deployment and
 * a PropagationPolicy become a binding, a schedule and Works; Work status comes back into the
 * binding and the Deployment; a cluster whose agent goes silent turns Unknown, is tainted, and the
 * binding is evicted from it; a custom resource whose CRD appears while the process runs becomes a
 * binding and a Work, its members' status aggregated into it by a ResourceInterpreterCustomization
 * — with no Forbidden answer anywhere in the process's log.
 */
import { AppsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import {
  propagationPolicyKind,
  resourceBindingKind,
  resourceInterpreterCustomizationKind,
  workKind,
  type PropagationPolicy,
  type ResourceBinding,
  type ResourceInterpreterCustomization,
  type Work,
} from '@kf/api';
import { ResourceClient } from '@kf/kube';
import { appliedWorkStatus, applyDefaultTaintPolicy, demoDeployment } from '@kf/testing';
import { workNameFor } from '../src/names.ts';
import { ControlPlaneProcess, FakeAgents, LEADER_ELECTION_FLAGS, startPlane, type Plane } from './harness.ts';

const POLL = { timeout: 30_000, interval: 250 };
const BINDING = 'default/web-deployment';
const WORK = workNameFor('Deployment', 'web', 'default');

let plane: Plane;
let agents: FakeAgents;
let cp: ControlPlaneProcess;
let bindings: ResourceClient<ResourceBinding>;
let works: ResourceClient<Work>;

beforeAll(async () => {
  plane = await startPlane(); // applies rbac.yaml; controlPlaneKubeconfig is bound to it alone
  await applyDefaultTaintPolicy(plane.cluster, 0); // no hold time: evict as soon as tainted
  const kc = plane.cluster.kubeConfig();
  bindings = new ResourceClient<ResourceBinding>(kc, resourceBindingKind);
  works = new ResourceClient<Work>(kc, workKind);
  agents = new FakeAgents(plane);
  for (const name of ['east', 'west']) {
    await agents.register(name);
    // What the agent reports for the scheduler's API-enablement filter.
    await plane.clusters.patchStatus(name, {
      status: {
        apiEnablements: [
          { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] },
        ],
      },
    });
  }
  cp = await ControlPlaneProcess.start(plane.controlPlaneKubeconfig, LEADER_ELECTION_FLAGS);
  await cp.ready();
});

afterAll(async () => {
  await (cp as ControlPlaneProcess | undefined)?.stop();
  (agents as FakeAgents | undefined)?.stop();
  await (plane as Plane | undefined)?.cluster.destroy();
});

/** An agent's report: the Work applied, its Deployment running `n` ready replicas. */
const workStatus = (n: number): Work['status'] =>
  appliedWorkStatus(
    { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'default', name: 'web' },
    { health: 'Healthy', status: { replicas: n, readyReplicas: n } },
  );

const clustersOf = async (): Promise<string[]> =>
  ((await bindings.find(BINDING))?.spec.clusters ?? []).map((c) => c.name);

/** A log line about a 403: its error says Forbidden or carries status 403 (not any 403 in it: a delayMs may be 403). */
const isForbiddenLog = (l: Record<string, unknown>): boolean =>
  /forbidden|"status":403\b/i.test(JSON.stringify(l));

describe('the control plane under deploy/controlplane/rbac.yaml', () => {
  it('propagates a Deployment, reflects its status, and evicts it from a failed cluster, never Forbidden', async () => {
    onTestFailed(() => {
      const notable = cp.logs().filter((l) => l['level'] !== 'info' && l['level'] !== 'debug');
      process.stderr.write(
        `control plane warnings and errors:\n${notable.map((l) => JSON.stringify(l)).join('\n')}\n`,
      );
    });
    const kc = plane.cluster.kubeConfig();
    const apps = kc.makeApiClient(AppsV1Api);
    await new ResourceClient<PropagationPolicy>(kc, propagationPolicyKind).create({
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
        placement: {
          clusterAffinity: { clusterNames: ['east', 'west'] },
          replicaScheduling: { replicaSchedulingType: 'Duplicated' },
        },
      },
    });
    await apps.createNamespacedDeployment({ namespace: 'default', body: demoDeployment('web', 2) });

    // Resource detector → binding; scheduler → spec.clusters; binding controller → Works.
    await expect.poll(clustersOf, POLL).toEqual(['east', 'west']);
    for (const cluster of ['east', 'west']) {
      await expect.poll(async () => works.find(`karmada-es-${cluster}/${WORK}`), POLL).toBeDefined();
    }

    // Work status → binding aggregatedStatus → Deployment status.
    for (const cluster of ['east', 'west']) {
      await works.patchStatus(`karmada-es-${cluster}/${WORK}`, { status: workStatus(2) });
    }
    await expect
      .poll(
        async () => (await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' })).status,
        POLL,
      )
      .toMatchObject({ replicas: 4, readyReplicas: 4 });

    // Agent of east goes silent: Unknown, tainted, and the binding leaves east.
    await agents.silence('east');
    await expect
      .poll(
        async () =>
          (await plane.clusters.get('east')).status?.conditions?.find((c) => c.type === 'Ready')?.status,
        POLL,
      )
      .toBe('Unknown');
    await expect
      .poll(async () => ((await plane.clusters.get('east')).spec.taints ?? []).map((t) => t.effect), POLL)
      .toEqual(expect.arrayContaining(['NoSchedule', 'NoExecute']));
    await expect.poll(clustersOf, POLL).toEqual(['west']);
    expect(await cp.metric('karmada_failover_evictions_total', { reason: 'TaintUntolerated' })).toBe(1);
    // Its graceful eviction task is dropped once the workload is healthy on west.
    await expect
      .poll(async () => (await bindings.get(BINDING)).spec.gracefulEvictionTasks ?? [], POLL)
      .toEqual([]);

    const logs = cp.logs();
    expect(logs.length).toBeGreaterThan(0);
    const forbidden = logs.filter(isForbiddenLog);
    expect(forbidden).toEqual([]);
    expect(logs.filter((l) => l['level'] === 'error' || l['level'] === 'fatal')).toEqual([]);
    expect(cp.stderr()).not.toMatch(/forbidden/i);
  });

  it('propagates a custom resource whose CRD is installed while it runs, never Forbidden', async () => {
    const kc = plane.cluster.kubeConfig();
    const group = 'rbac.example.com';
    await plane.clusters.patchStatus('west', {
      status: {
        apiEnablements: [
          { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] },
          { groupVersion: `${group}/v1`, resources: [{ name: 'widgets', kind: 'Widget' }] },
        ],
      },
    });
    const crds = new ResourceClient<{
      metadata: { name: string };
      spec?: unknown;
      status?: { conditions?: { type: string; status: string }[] };
    }>(kc, {
      group: 'apiextensions.k8s.io',
      version: 'v1',
      plural: 'customresourcedefinitions',
      namespaced: false,
    });
    await crds.create({
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
            subresources: { status: {} },
          },
        ],
      },
    });
    await expect
      .poll(
        async () =>
          (await crds.get(`widgets.${group}`)).status?.conditions?.find((c) => c.type === 'Established')
            ?.status,
        POLL,
      )
      .toBe('True');
    await new ResourceClient<PropagationPolicy>(kc, propagationPolicyKind).create({
      metadata: { name: 'widgets', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: `${group}/v1`, kind: 'Widget' }],
        placement: { clusterAffinity: { clusterNames: ['west'] } },
      },
    });
    onTestFailed(() => {
      const notable = cp.logs().filter((l) => l['level'] !== 'info' && l['level'] !== 'debug');
      process.stderr.write(
        `control plane warnings and errors:\n${notable.map((l) => JSON.stringify(l)).join('\n')}\n`,
      );
    });
    // A customization aggregates the members' status of Widgets into the template's.
    await new ResourceClient<ResourceInterpreterCustomization>(
      kc,
      resourceInterpreterCustomizationKind,
    ).create({
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterCustomization',
      metadata: { name: 'widgets' },
      spec: {
        target: { apiVersion: `${group}/v1`, kind: 'Widget' },
        customizations: {
          statusAggregation: {
            luaScript: `function AggregateStatus(desiredObj, statusItems)
  local ready = 0
  for i = 1, #(statusItems or {}) do
    local s = statusItems[i].status
    if s ~= nil and s.ready ~= nil then ready = ready + s.ready end
  end
  desiredObj.status = { ready = ready }
  return desiredObj
end`,
          },
        },
      },
    });
    const widgets = new ResourceClient<{
      metadata: { name: string; namespace: string };
      spec: object;
      status?: object;
    }>(kc, { group, version: 'v1', plural: 'widgets', namespaced: true, kind: 'Widget' });
    await widgets.create({ metadata: { name: 'sprocket', namespace: 'default' }, spec: { size: 1 } });

    await expect
      .poll(async () => (await bindings.find('default/sprocket-widget'))?.spec.clusters, POLL)
      .toEqual([{ name: 'west' }]);
    const widgetWork = `karmada-es-west/${workNameFor('Widget', 'sprocket', 'default')}`;
    await expect.poll(async () => works.find(widgetWork), POLL).toBeDefined();
    // The member reports 3 ready; the control plane writes the script's status into the template.
    const report = workStatus(3);
    await works.patchStatus(widgetWork, {
      status: {
        ...report,
        manifestStatuses: [
          {
            identifier: {
              ordinal: 0,
              group,
              version: 'v1',
              kind: 'Widget',
              resource: '',
              namespace: 'default',
              name: 'sprocket',
            },
            status: { ready: 3 },
            health: 'Healthy',
          },
        ],
      },
    });
    await expect.poll(async () => (await widgets.get('default/sprocket')).status, POLL).toEqual({ ready: 3 });
    const forbidden = cp.logs().filter(isForbiddenLog);
    expect(forbidden).toEqual([]);
  });

  it("propagates a Deployment's ConfigMap with it (propagateDeps), never Forbidden", async () => {
    const kc = plane.cluster.kubeConfig();
    // The attached binding is owned by the ConfigMap with blockOwnerDeletion, which the API server
    // allows only to whoever may update the ConfigMap's finalizers.
    await new ResourceClient(kc, {
      group: '',
      version: 'v1',
      plural: 'configmaps',
      namespaced: true,
      kind: 'ConfigMap',
    }).create({ metadata: { name: 'cfg-config', namespace: 'default' } });
    const withConfig = demoDeployment('cfg', 1);
    const podSpec = withConfig.spec?.template.spec;
    if (podSpec === undefined) throw new Error('no pod spec');
    podSpec.volumes = [{ name: 'config', configMap: { name: 'cfg-config' } }];
    await new ResourceClient<PropagationPolicy>(kc, propagationPolicyKind).create({
      metadata: { name: 'cfg', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'cfg' }],
        propagateDeps: true,
        placement: { clusterAffinity: { clusterNames: ['west'] } },
      },
    });
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: 'default', body: withConfig });

    await expect
      .poll(async () => (await bindings.find('default/cfg-config-configmap'))?.spec.requiredBy, POLL)
      .toEqual([{ namespace: 'default', name: 'cfg-deployment', clusters: [{ name: 'west', replicas: 1 }] }]);
    const configWork = `karmada-es-west/${workNameFor('ConfigMap', 'cfg-config', 'default')}`;
    await expect.poll(async () => works.find(configWork), POLL).toBeDefined();
    const forbidden = cp.logs().filter(isForbiddenLog);
    expect(forbidden).toEqual([]);
  });
});
