/**
 * Custom resources through the workload pipeline against a real control plane: the kinds are
 * resolved by API discovery, and their CRDs are installed only after the workload controllers
 * started — one even after the policy that selects it. A namespaced custom resource becomes a
 * ResourceBinding `<name>-<kind>` and Works carrying it; a cluster-scoped one with a
 * ClusterPropagationPolicy becomes a ClusterResourceBinding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceClient, type ResourceDescriptor } from '@kf/kube';
import { executionNamespaceFor, type Work } from '@kf/api';
import { freeFormCrd, installCrd } from '@kf/testing';
import { workNameFor } from '../../src/names.ts';
import type { ResourceTemplate } from '../../src/workload/template.ts';
import { createReadyCluster, releaseDeletedWorks, startHarness, type Harness } from './harness.ts';

const POLL = { timeout: 45_000, interval: 250 };
const GROUP = 'failover.example.com';
const WIDGETS: ResourceDescriptor = { group: GROUP, version: 'v1', plural: 'widgets', namespaced: true };
const GADGETS: ResourceDescriptor = { group: GROUP, version: 'v1', plural: 'gadgets', namespaced: false };

let h: Harness;
let widgets: ResourceClient<ResourceTemplate>;
let gadgets: ResourceClient<ResourceTemplate>;

/** The Works that carry `kind/name`, by cluster, as their first manifest. */
async function worksCarrying(kind: string, name: string): Promise<Record<string, Work>> {
  const out: Record<string, Work> = {};
  for (const w of (await h.works.list()).items) {
    const m = w.spec.workload?.manifests?.[0] as Partial<ResourceTemplate> | undefined;
    if (m?.kind !== kind || m.metadata?.name !== name || w.metadata.deletionTimestamp !== undefined) continue;
    out[(w.metadata.namespace ?? '').replace('karmada-es-', '')] = w;
  }
  return out;
}

beforeAll(async () => {
  h = await startHarness(['member1', 'member2']);
  const kc = h.cp.kubeConfig();
  widgets = new ResourceClient<ResourceTemplate>(kc, WIDGETS);
  gadgets = new ResourceClient<ResourceTemplate>(kc, GADGETS);
  for (const name of ['member1', 'member2']) {
    await createReadyCluster(h, name);
    // The members serve the custom resources (the scheduler's API-enablement filter).
    await h.clusters.patchStatus(name, {
      status: {
        apiEnablements: [
          { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] },
          {
            groupVersion: `${GROUP}/v1`,
            resources: [
              { name: 'widgets', kind: 'Widget' },
              { name: 'gadgets', kind: 'Gadget' },
            ],
          },
        ],
      },
    });
  }
});

afterAll(async () => {
  await (h as Harness | undefined)?.stop();
});

describe('a namespaced custom resource whose CRD is installed after its PropagationPolicy', () => {
  it('becomes ResourceBinding <name>-widget and a Work per cluster carrying it; deleting it removes them', async () => {
    await h.policies.create({
      metadata: { name: 'widgets', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: `${GROUP}/v1`, kind: 'Widget' }],
        placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] } },
      },
    });
    // The detector saw the policy while Widget was not served: the kind waits for discovery.
    await expect
      .poll(() => h.workload.templates.pendingTypes().map(([v, k]) => `${v}/${k}`), POLL)
      .toContain(`${GROUP}/v1/Widget`);
    expect(h.workload.templates.isWatched(`${GROUP}/v1`, 'Widget')).toBe(false);
    await installCrd(h.cp.kubeConfig(), freeFormCrd(GROUP, 'Widget', 'widgets', 'Namespaced'));
    await widgets.create({
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      metadata: { name: 'sprocket', namespace: 'default' },
      spec: { size: 3, colour: 'blue' },
    });
    const template = await widgets.get('default/sprocket');

    await expect
      .poll(async () => (await h.bindings.find('default/sprocket-widget'))?.spec.clusters, POLL)
      .toEqual([{ name: 'member1' }, { name: 'member2' }]);
    const binding = await h.bindings.get('default/sprocket-widget');
    expect(binding.spec.resource).toMatchObject({
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      namespace: 'default',
      name: 'sprocket',
      uid: template.metadata.uid,
    });
    expect(binding.metadata.ownerReferences).toMatchObject([
      { kind: 'Widget', name: 'sprocket', uid: template.metadata.uid, controller: true },
    ]);
    // The template carries the policy's claim.
    await expect
      .poll(async () => (await widgets.get('default/sprocket')).metadata.annotations, POLL)
      .toMatchObject({
        'propagationpolicy.karmada.io/namespace': 'default',
        'propagationpolicy.karmada.io/name': 'widgets',
      });

    await expect
      .poll(async () => Object.keys(await worksCarrying('Widget', 'sprocket')).sort(), POLL)
      .toEqual(['member1', 'member2']);
    const work = await h.works.get(
      `${executionNamespaceFor('member1')}/${workNameFor('Widget', 'sprocket', 'default')}`,
    );
    expect(work.metadata.annotations).toMatchObject({ 'resourcebinding.karmada.io/name': 'sprocket-widget' });
    expect(work.spec.workload?.manifests?.[0]).toMatchObject({
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      metadata: { name: 'sprocket', namespace: 'default', labels: { 'karmada.io/managed': 'true' } },
      spec: { size: 3, colour: 'blue' },
    });

    // A change to the custom resource reaches the Works.
    await widgets.mergePatch('default/sprocket', { spec: { size: 5 } });
    await expect
      .poll(async () => {
        const works = await worksCarrying('Widget', 'sprocket');
        return Object.values(works).map((w) => w.spec.workload?.manifests?.[0]?.['spec']);
      }, POLL)
      .toEqual([
        { size: 5, colour: 'blue' },
        { size: 5, colour: 'blue' },
      ]);

    await widgets.delete('default/sprocket');
    await expect
      .poll(async () => {
        const left = await releaseDeletedWorks(h, 'sprocket-widget');
        return { binding: (await h.bindings.find('default/sprocket-widget')) === undefined, works: left };
      }, POLL)
      .toEqual({ binding: true, works: 0 });
  });
});

describe('a cluster-scoped custom resource with a ClusterPropagationPolicy', () => {
  it('becomes ClusterResourceBinding <name>-gadget and a Work per cluster carrying it', async () => {
    await installCrd(h.cp.kubeConfig(), freeFormCrd(GROUP, 'Gadget', 'gadgets', 'Cluster'));
    await h.clusterPolicies.create({
      metadata: { name: 'gadgets' },
      spec: {
        resourceSelectors: [{ apiVersion: `${GROUP}/v1`, kind: 'Gadget', name: 'gizmo' }],
        placement: { clusterAffinity: { clusterNames: ['member2'] } },
      },
    });
    await gadgets.create({
      apiVersion: `${GROUP}/v1`,
      kind: 'Gadget',
      metadata: { name: 'gizmo' },
      spec: { mode: 'fast' },
    });

    await expect
      .poll(async () => (await h.clusterBindings.find('gizmo-gadget'))?.spec.clusters, POLL)
      .toEqual([{ name: 'member2' }]);
    expect((await h.clusterBindings.get('gizmo-gadget')).spec.resource).toMatchObject({
      apiVersion: `${GROUP}/v1`,
      kind: 'Gadget',
      name: 'gizmo',
    });
    await expect
      .poll(async () => Object.keys(await worksCarrying('Gadget', 'gizmo')), POLL)
      .toEqual(['member2']);
    const work = (await worksCarrying('Gadget', 'gizmo'))['member2'];
    expect(work?.metadata.name).toBe(workNameFor('Gadget', 'gizmo', undefined));
    expect(work?.metadata.annotations).toMatchObject({
      'clusterresourcebinding.karmada.io/name': 'gizmo-gadget',
    });
    expect(work?.spec.workload?.manifests?.[0]).toMatchObject({
      kind: 'Gadget',
      metadata: { name: 'gizmo', labels: { 'karmada.io/managed': 'true' } },
      spec: { mode: 'fast' },
    });
  });
});
