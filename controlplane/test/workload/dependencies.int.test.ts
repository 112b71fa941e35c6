/**
 * The dependencies distributor against a real API server: a Deployment whose policy has
 * `propagateDeps: true` takes the ConfigMap and Secret it uses to its clusters (attached bindings
 * whose Works land beside the Deployment's), follows a placement change, picks up a ConfigMap
 * created after it, and lets go of them all when `propagateDeps` is turned off. A CloneSet with
 * Karmada's own customization gets its ConfigMap through the InterpretDependency script, and a
 * failing dependency script shows on its binding.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findCondition,
  resourceInterpreterCustomizationKind,
  type ResourceBinding,
  type ResourceInterpreterCustomization,
} from '@kf/api';
import { parseCustomizations } from '@kf/interpreter';
import { thirdPartyCustomizationsFolder } from '@kf/interpreter/testing';
import { ResourceClient, type ResourceDescriptor } from '@kf/kube';
import { freeFormCrd, installCrd, servedAs } from '@kf/testing';
import { dependedByLabel } from '../../src/workload/dependencies/depended-by.ts';
import type { ResourceTemplate } from '../../src/workload/template.ts';
import {
  createReadyCluster,
  deployment,
  releaseDeletedWorks,
  startHarness,
  type Harness,
} from './harness.ts';

const POLL = { timeout: 45_000, interval: 250 };
const MEMBERS = ['member1', 'member2'];
const core = (kind: string, plural: string): ResourceDescriptor => ({
  group: '',
  version: 'v1',
  plural,
  namespaced: true,
  kind,
});
const KRUISE = 'apps.kruise.io';
const CLONESETS: ResourceDescriptor = {
  group: KRUISE,
  version: 'v1alpha1',
  plural: 'clonesets',
  namespaced: true,
};
const WIDGETS: ResourceDescriptor = {
  group: 'example.io',
  version: 'v1',
  plural: 'widgets',
  namespaced: true,
};

let h: Harness;
let configMaps: ResourceClient<ResourceTemplate>;
let secrets: ResourceClient<ResourceTemplate>;

function configMap(name: string): ResourceTemplate {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data: { k: 'v' },
  } as ResourceTemplate;
}

/** `web` mounting `web-config`, with `web-secret` as env and `late-config` (made later) as one key. */
function webDeployment(): ResourceTemplate {
  const d = deployment('web', 2);
  const template = d.spec?.['template'] as { spec: { containers: Record<string, unknown>[] } };
  const [container] = template.spec.containers;
  if (container === undefined) throw new Error('no container');
  container['envFrom'] = [{ secretRef: { name: 'web-secret' } }];
  container['env'] = [{ name: 'LATE', valueFrom: { configMapKeyRef: { name: 'late-config', key: 'k' } } }];
  Object.assign(template.spec, { volumes: [{ name: 'config', configMap: { name: 'web-config' } }] });
  return d;
}

/** The clusters holding a Work of `bindingName`, Works being deleted released as their agent would. */
async function workClusters(bindingName: string): Promise<string[]> {
  await releaseDeletedWorks(h, bindingName);
  const { items } = await h.works.list();
  return items
    .filter(
      (w) =>
        w.metadata.annotations?.['resourcebinding.karmada.io/name'] === bindingName &&
        w.metadata.deletionTimestamp === undefined,
    )
    .map((w) => (w.metadata.namespace ?? '').replace('karmada-es-', ''))
    .sort();
}

/** What an attached binding says about its dependants: requiredBy as `name: clusters`. */
async function requiredBy(name: string): Promise<Record<string, string[]> | undefined> {
  const b: ResourceBinding | undefined = await h.bindings.find(`default/${name}`);
  if (b === undefined) return undefined;
  return Object.fromEntries(
    (b.spec.requiredBy ?? []).map((r) => [r.name, (r.clusters ?? []).map((c) => c.name)]),
  );
}

beforeAll(async () => {
  h = await startHarness(MEMBERS);
  const kc = h.cp.kubeConfig();
  configMaps = new ResourceClient<ResourceTemplate>(kc, core('ConfigMap', 'configmaps'));
  secrets = new ResourceClient<ResourceTemplate>(kc, core('Secret', 'secrets'));
  for (const name of MEMBERS) {
    await createReadyCluster(h, name);
    // The scheduler places a kind only on clusters that serve it.
    await h.clusters.patchStatus(name, {
      status: {
        apiEnablements: [
          { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] },
          { groupVersion: `${KRUISE}/v1alpha1`, resources: [{ name: 'clonesets', kind: 'CloneSet' }] },
          { groupVersion: 'example.io/v1', resources: [{ name: 'widgets', kind: 'Widget' }] },
        ],
      },
    });
  }
});

afterAll(async () => {
  await (h as Harness | undefined)?.stop();
});

describe('a Deployment whose policy propagates its dependencies', () => {
  it('takes its ConfigMap and Secret along, follows the placement, and lets go when told', async () => {
    await configMaps.create(configMap('web-config'));
    await secrets.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'web-secret', namespace: 'default' },
      stringData: { password: 'x' },
    } as ResourceTemplate);
    await h.deployments.create(webDeployment());
    await h.policies.create({
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
        propagateDeps: true,
        placement: { clusterAffinity: { clusterNames: ['member1'] } },
      },
    });

    for (const name of ['web-config-configmap', 'web-secret-secret']) {
      await expect.poll(() => requiredBy(name), POLL).toEqual({ 'web-deployment': ['member1'] });
      await expect.poll(() => workClusters(name), POLL).toEqual(['member1']);
    }
    const parent = await h.bindings.get('default/web-deployment');
    const attached = await h.bindings.get('default/web-config-configmap');
    expect(attached.metadata.labels?.[dependedByLabel('default', 'web-deployment')]).toBe(
      parent.metadata.labels?.['resourcebinding.karmada.io/permanent-id'],
    );
    expect(attached.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'ConfigMap',
      name: 'web-config',
      controller: true,
    });
    expect(attached.spec.placement).toBeUndefined();
    expect(attached.spec.clusters).toBeUndefined(); // the scheduler leaves attached bindings alone
    expect(await h.bindings.find('default/late-config-configmap')).toBeUndefined();

    // The workload moves: its dependencies follow, and leave the cluster it left.
    await h.policies.mergePatch('default/web', {
      spec: { placement: { clusterAffinity: { clusterNames: ['member2'] } } },
    });
    await expect
      .poll(() => requiredBy('web-config-configmap'), POLL)
      .toEqual({ 'web-deployment': ['member2'] });
    await expect.poll(() => workClusters('web-config-configmap'), POLL).toEqual(['member2']);

    // A dependency that appears after the workload is picked up.
    await configMaps.create(configMap('late-config'));
    await expect
      .poll(() => requiredBy('late-config-configmap'), POLL)
      .toEqual({ 'web-deployment': ['member2'] });
    await expect.poll(() => workClusters('late-config-configmap'), POLL).toEqual(['member2']);

    // propagateDeps off: the attached bindings (and their Works) go.
    await h.policies.mergePatch('default/web', { spec: { propagateDeps: false } });
    for (const name of ['web-config-configmap', 'web-secret-secret', 'late-config-configmap']) {
      await expect
        .poll(async () => {
          await releaseDeletedWorks(h, name);
          return requiredBy(name);
        }, POLL)
        .toBeUndefined();
      await expect.poll(() => workClusters(name), POLL).toEqual([]);
    }
    expect(await workClusters('web-deployment')).toEqual(['member2']);
  });
});

describe('custom kinds', () => {
  let customizations: ResourceClient<ResourceInterpreterCustomization>;

  beforeAll(async () => {
    const kc = h.cp.kubeConfig();
    customizations = new ResourceClient(kc, resourceInterpreterCustomizationKind);
    await installCrd(kc, servedAs(freeFormCrd(KRUISE, 'CloneSet', 'clonesets', 'Namespaced'), 'v1alpha1'));
    await installCrd(kc, servedAs(freeFormCrd('example.io', 'Widget', 'widgets', 'Namespaced'), 'v1'));
    const folder = join(await thirdPartyCustomizationsFolder(), KRUISE, 'v1alpha1', 'CloneSet');
    const [fromKarmada] = parseCustomizations(await readFile(join(folder, 'customizations.yaml'), 'utf8'));
    if (fromKarmada === undefined) throw new Error(`no customization in ${folder}`);
    await customizations.create(fromKarmada);
    await h.policies.create({
      metadata: { name: 'custom', namespace: 'default' },
      spec: {
        resourceSelectors: [
          { apiVersion: `${KRUISE}/v1alpha1`, kind: 'CloneSet' },
          { apiVersion: 'example.io/v1', kind: 'Widget' },
        ],
        propagateDeps: true,
        placement: { clusterAffinity: { clusterNames: ['member1'] } },
      },
    });
  });

  it("attaches a CloneSet's ConfigMap through Karmada's dependency script", async () => {
    await configMaps.create(configMap('clone-config'));
    await new ResourceClient<ResourceTemplate>(h.cp.kubeConfig(), CLONESETS).create({
      apiVersion: `${KRUISE}/v1alpha1`,
      kind: 'CloneSet',
      metadata: { name: 'clone', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'clone' } },
        template: {
          metadata: { labels: { app: 'clone' } },
          spec: {
            containers: [{ name: 'app', image: 'nginx' }],
            volumes: [{ name: 'config', configMap: { name: 'clone-config' } }],
          },
        },
      },
    });
    await expect
      .poll(() => requiredBy('clone-config-configmap'), POLL)
      .toEqual({ 'clone-cloneset': ['member1'] });
    await expect.poll(() => workClusters('clone-config-configmap'), POLL).toEqual(['member1']);
    await expect
      .poll(async () => {
        const b = await h.bindings.find('default/clone-cloneset');
        return findCondition(b?.status?.conditions, 'DependenciesInterpreted')?.reason;
      }, POLL)
      .toBe('GetDependenciesSucceed');
  });

  it('shows a failing dependency script on the binding', async () => {
    await customizations.create({
      metadata: { name: 'widget' },
      spec: {
        target: { apiVersion: 'example.io/v1', kind: 'Widget' },
        customizations: {
          dependencyInterpretation: {
            luaScript: 'function GetDependencies(desiredObj)\n  error("no dependencies today")\nend',
          },
        },
      },
    });
    await new ResourceClient<ResourceTemplate>(h.cp.kubeConfig(), WIDGETS).create({
      apiVersion: 'example.io/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'default' },
      spec: {},
    });
    await expect
      .poll(async () => {
        const b = await h.bindings.find('default/w-widget');
        const c = findCondition(b?.status?.conditions, 'DependenciesInterpreted');
        return c === undefined ? undefined : { status: c.status, reason: c.reason };
      }, POLL)
      .toEqual({ status: 'False', reason: 'GetDependenciesFailed' });
  });
});
