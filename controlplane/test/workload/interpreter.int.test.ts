/**
 * A custom kind through the workload pipeline with Karmada's own ResourceInterpreterCustomization
 * for it (OpenKruise's CloneSet, applied unchanged): the binding's replicas and requirements come
 * from its InterpretReplica script, each member's Work carries the replicas the scheduler gave it
 * through its ReviseReplica script, and the template's status is what its AggregateStatus script
 * makes of the members' status. A customization whose script fails shows on the binding as a
 * condition and one Event, while other bindings keep flowing.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findCondition,
  resourceInterpreterCustomizationKind,
  type ResourceInterpreterCustomization,
} from '@kf/api';
import { parseCustomizations } from '@kf/interpreter';
import { thirdPartyCustomizationsFolder } from '@kf/interpreter/testing';
import { CORE_EVENT_RESOURCE, ResourceClient, type CoreEvent, type ResourceDescriptor } from '@kf/kube';
import { freeFormCrd, installCrd, servedAs } from '@kf/testing';
import { workNameFor } from '../../src/names.ts';
import type { ResourceTemplate } from '../../src/workload/template.ts';
import {
  createReadyCluster,
  deployment,
  reportWork,
  startHarness,
  workReplicas,
  type Harness,
} from './harness.ts';

const POLL = { timeout: 45_000, interval: 250 };
const GROUP = 'apps.kruise.io';
const VERSION = 'v1alpha1';
const CLONESETS: ResourceDescriptor = {
  group: GROUP,
  version: VERSION,
  plural: 'clonesets',
  namespaced: true,
};
const MEMBERS = ['member1', 'member2'];

let h: Harness;
let clonesets: ResourceClient<ResourceTemplate>;
let customizations: ResourceClient<ResourceInterpreterCustomization>;
let events: ResourceClient<CoreEvent>;
let karmadaCustomization: ResourceInterpreterCustomization;

function cloneSet(name: string, replicas: number): ResourceTemplate {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'CloneSet',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            { name: 'app', image: 'nginx', resources: { requests: { cpu: '250m', memory: '512Mi' } } },
          ],
        },
      },
    },
  };
}

/** What an agent reports for the CloneSet Work of `cluster`: applied, with the reflected status. */
async function reportCloneSet(cluster: string, name: string, status: Record<string, unknown>): Promise<void> {
  await reportWork(
    h,
    {
      cluster,
      name: workNameFor('CloneSet', name, 'default'),
      deployment: name,
      kind: { group: GROUP, version: VERSION, kind: 'CloneSet' },
    },
    { health: 'Healthy', status },
  );
}

async function bindingCondition(name: string, type: string): Promise<unknown> {
  const b = await h.bindings.find(`default/${name}`);
  const c = findCondition(b?.status?.conditions, type);
  return c === undefined ? undefined : { status: c.status, reason: c.reason, message: c.message };
}

beforeAll(async () => {
  h = await startHarness(MEMBERS);
  const kc = h.cp.kubeConfig();
  clonesets = new ResourceClient<ResourceTemplate>(kc, CLONESETS);
  customizations = new ResourceClient<ResourceInterpreterCustomization>(
    kc,
    resourceInterpreterCustomizationKind,
  );
  events = new ResourceClient<CoreEvent>(kc, CORE_EVENT_RESOURCE);
  await installCrd(kc, servedAs(freeFormCrd(GROUP, 'CloneSet', 'clonesets', 'Namespaced'), VERSION));
  for (const name of MEMBERS) {
    await createReadyCluster(h, name);
    await h.clusters.patchStatus(name, {
      status: {
        apiEnablements: [
          { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] },
          { groupVersion: `${GROUP}/${VERSION}`, resources: [{ name: 'clonesets', kind: 'CloneSet' }] },
        ],
      },
    });
  }
  const folder = join(await thirdPartyCustomizationsFolder(), GROUP, VERSION, 'CloneSet');
  const [fromKarmada] = parseCustomizations(await readFile(join(folder, 'customizations.yaml'), 'utf8'));
  if (fromKarmada === undefined) throw new Error(`no customization in ${folder}`);
  karmadaCustomization = await customizations.create(fromKarmada);
  await h.policies.create({
    metadata: { name: 'clonesets', namespace: 'default' },
    spec: {
      resourceSelectors: [{ apiVersion: `${GROUP}/${VERSION}`, kind: 'CloneSet' }],
      placement: {
        clusterAffinity: { clusterNames: MEMBERS },
        replicaScheduling: {
          replicaSchedulingType: 'Divided',
          replicaDivisionPreference: 'Weighted',
          weightPreference: {
            staticWeightList: MEMBERS.map((m) => ({ targetCluster: { clusterNames: [m] }, weight: 1 })),
          },
        },
      },
    },
  });
});

afterAll(async () => {
  await (h as Harness | undefined)?.stop();
});

describe("a CloneSet with Karmada's CloneSet customization", () => {
  it('is bound, divided and aggregated by the scripts', async () => {
    await clonesets.create(cloneSet('shop', 4));

    await expect
      .poll(async () => {
        const b = await h.bindings.find('default/shop-cloneset');
        return {
          replicas: b?.spec.replicas,
          requirements: b?.spec.replicaRequirements,
          clusters: b?.spec.clusters,
        };
      }, POLL)
      .toEqual({
        replicas: 4,
        requirements: { resourceRequest: { cpu: '250m', memory: '512Mi' } },
        clusters: [
          { name: 'member1', replicas: 2 },
          { name: 'member2', replicas: 2 },
        ],
      });
    await expect.poll(() => workReplicas(h, 'shop-cloneset'), POLL).toEqual({ member1: 2, member2: 2 });

    const { generation } = (await clonesets.get('default/shop')).metadata;
    for (const [cluster, ready] of [
      ['member1', 2],
      ['member2', 1],
    ] as const) {
      await reportCloneSet(cluster, 'shop', {
        replicas: 2,
        readyReplicas: ready,
        updatedReplicas: 2,
        availableReplicas: ready,
        updatedReadyReplicas: ready,
        expectedUpdatedReplicas: 2,
        updateRevision: 'shop-7d9c',
        currentRevision: 'shop-7d9c',
        labelSelector: 'app=shop',
        observedGeneration: 1,
        generation: 1,
        resourceTemplateGeneration: generation,
      });
    }
    await expect
      .poll(async () => (await clonesets.get('default/shop')).status, POLL)
      .toEqual({
        observedGeneration: generation,
        replicas: 4,
        readyReplicas: 3,
        updatedReplicas: 4,
        availableReplicas: 3,
        updatedReadyReplicas: 3,
        expectedUpdatedReplicas: 4,
        updateRevision: 'shop-7d9c',
        currentRevision: 'shop-7d9c',
        labelSelector: 'app=shop',
      });
    for (const [type, reason] of [
      ['ReplicasInterpreted', 'GetReplicasSucceed'],
      ['ReplicasRevised', 'ReviseReplicaSucceed'],
      ['StatusAggregated', 'AggregateStatusSucceed'],
    ] as const) {
      await expect
        .poll(() => bindingCondition('shop-cloneset', type), POLL)
        .toMatchObject({ status: 'True', reason });
    }
  });

  it('shows a failing GetReplicas script on the binding once, and other bindings keep flowing', async () => {
    const current = await customizations.get(karmadaCustomization.metadata.name ?? 'missing');
    await customizations.replace({
      ...current,
      spec: {
        ...current.spec,
        customizations: {
          ...current.spec.customizations,
          replicaResource: { luaScript: 'function GetReplicas(obj)\n  error("replicas unknown")\nend' },
        },
      },
    });

    await expect
      .poll(() => bindingCondition('shop-cloneset', 'ReplicasInterpreted'), POLL)
      .toMatchObject({ status: 'False', reason: 'GetReplicasFailed' });
    const failedAt = Date.now();
    const failed = (await bindingCondition('shop-cloneset', 'ReplicasInterpreted')) as { message: string };
    // Which script of which customization failed, and what it said.
    expect(failed.message).toContain(
      `InterpretReplica script of ResourceInterpreterCustomization ${karmadaCustomization.metadata.name ?? ''}`,
    );
    expect(failed.message).toContain('replicas unknown');
    const failures = async (): Promise<CoreEvent[]> =>
      (await events.list()).items.filter(
        (e) =>
          e.involvedObject.kind === 'ResourceBinding' &&
          e.involvedObject.name === 'shop-cloneset' &&
          e.reason === 'GetReplicasFailed',
      );
    await expect.poll(async () => (await failures()).length, POLL).toBe(1);
    // The binding keeps what it had: a failing script does not reschedule the workload.
    expect((await h.bindings.get('default/shop-cloneset')).spec.replicas).toBe(4);

    // Meanwhile a Deployment is propagated as usual.
    await h.policies.create({
      metadata: { name: 'deployments', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
        placement: { clusterAffinity: { clusterNames: ['member1'] } },
      },
    });
    await h.deployments.create(deployment('web', 3));
    await expect.poll(() => workReplicas(h, 'web-deployment'), POLL).toEqual({ member1: 3 });

    // Retries with backoff (0.5 s, 1 s, 2 s) do not repeat the Event (a repeated one counts up).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, failedAt + 4_000 - Date.now())));
    expect(await failures()).toHaveLength(1);
    const [event] = await failures();
    expect(event?.count ?? 1).toBe(1);
    expect(event?.message).toContain('replicas unknown');
  });
});
