/**
 * The agent runs the control plane's ResourceInterpreterCustomizations: with Karmada's own CloneSet
 * customization, unchanged, a CloneSet's health and reflected status in its Work follow the
 * member's status as the scripts judge it; a Retain script keeps what the member set over the
 * manifest, and one that fails fails its manifest alone; a health script that fails makes the
 * health Unknown with an InterpretHealthFailed Event, and the agent goes on serving other Works.
 * The agent runs as its own identity (deploy/agent and its per-cluster RBAC).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clusterKind,
  executionNamespaceFor,
  resourceInterpreterCustomizationKind,
  workKind,
  type Cluster,
  type Manifest,
  type ResourceInterpreterCustomization,
  type Work,
} from '@kf/api';
import { parseCustomizations } from '@kf/interpreter';
import { thirdPartyCustomizationsFolder } from '@kf/interpreter/testing';
import {
  CORE_EVENT_RESOURCE,
  ResourceClient,
  retryOnConflict,
  type CoreEvent,
  type ResourceDescriptor,
} from '@kf/kube';
import {
  agentKubeconfig,
  applyAgentAccess,
  eventually,
  freeFormCrd,
  installCrd,
  servedAs,
  startFederation,
  type CustomResourceDefinition,
  type LocalFederation,
} from '@kf/testing';
import { startAgent, type AgentProcess } from './agent-process.ts';

const GROUP = 'apps.kruise.io';
const ES = executionNamespaceFor('member1');
const NAMESPACES: ResourceDescriptor = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
const CLONESETS: ResourceDescriptor = {
  group: GROUP,
  version: 'v1alpha1',
  plural: 'clonesets',
  namespaced: true,
};
const CONFIGMAPS: ResourceDescriptor = { group: '', version: 'v1', plural: 'configmaps', namespaced: true };

/** Kruise's CloneSet as far as these tests go: any spec and status. */
const CLONESET_CRD: CustomResourceDefinition = servedAs(
  freeFormCrd(GROUP, 'CloneSet', 'clonesets', 'Namespaced'),
  'v1alpha1',
);

interface Obj {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly generation?: number };
  readonly spec?: Record<string, unknown>;
  readonly data?: Record<string, string>;
}

const cloneSet = (spec: Record<string, unknown>): Manifest => ({
  apiVersion: `${GROUP}/v1alpha1`,
  kind: 'CloneSet',
  metadata: {
    name: 'web',
    namespace: 'default',
    annotations: { 'resourcetemplate.karmada.io/generation': '4' },
  },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } } },
    ...spec,
  },
});
const configMap = (name: string, data: Record<string, string>): Manifest => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});

let fed: LocalFederation;
let agent: AgentProcess;
let works: ResourceClient<Work>;
let events: ResourceClient<CoreEvent>;
let customizations: ResourceClient<ResourceInterpreterCustomization>;
let memberCloneSets: ResourceClient<Obj>;
let memberConfigMaps: ResourceClient<Obj>;

const manifestStatus = async (work: string, ordinal: number) =>
  (await works.get(`${ES}/${work}`)).status?.manifestStatuses?.find((s) => s.identifier.ordinal === ordinal);
const applied = async (work: string) =>
  (await works.get(`${ES}/${work}`)).status?.conditions?.find((c) => c.type === 'Applied');
const workEvents = async (work: string) =>
  (await events.list({ namespace: ES })).items.filter(
    (e) => e.involvedObject.kind === 'Work' && e.involvedObject.name === work,
  );

/** Creates or replaces the Work; the agent writes its status and finalizer meanwhile (409s retried). */
async function setWork(name: string, manifests: readonly Manifest[]): Promise<void> {
  await retryOnConflict(async () => {
    const current = await works.find(`${ES}/${name}`);
    if (current === undefined) {
      await works.create({ metadata: { name, namespace: ES }, spec: { workload: { manifests } } });
      return;
    }
    await works.replace({ ...current, spec: { ...current.spec, workload: { manifests } } });
  });
}

beforeAll(async () => {
  fed = await startFederation({ members: 1, member: { nodes: 1 } });
  const cp = fed.controlPlane.kubeConfig();
  const member = fed.member('member1').kubeConfig();
  works = new ResourceClient<Work>(cp, workKind);
  events = new ResourceClient<CoreEvent>(cp, CORE_EVENT_RESOURCE);
  customizations = new ResourceClient<ResourceInterpreterCustomization>(
    cp,
    resourceInterpreterCustomizationKind,
  );
  memberCloneSets = new ResourceClient<Obj>(member, CLONESETS);
  memberConfigMaps = new ResourceClient<Obj>(member, CONFIGMAPS);
  await new ResourceClient<Obj>(cp, NAMESPACES).create({ metadata: { name: 'karmada-system' } });
  await Promise.all([installCrd(cp, CLONESET_CRD), installCrd(member, CLONESET_CRD)]);
  await applyAgentAccess(fed.controlPlane, ['member1']);
  agent = await startAgent({
    cluster: 'member1',
    karmadaKubeconfig: await agentKubeconfig(fed.controlPlane, 'member1'),
    member: fed.member('member1'),
    runDir: fed.runDir,
  });
  const clusters = new ResourceClient<Cluster>(cp, clusterKind);
  await eventually('registered', async () => (await clusters.find('member1')) !== undefined).catch(
    async (err: unknown) => {
      process.stderr.write(`agent log:\n${(await agent.logs()).slice(-4_000)}\n`);
      throw err;
    },
  );
  // Ready: its caches synced, the customizations' among them (none yet).
  const readyz = agent.metricsUrl.replace('/metrics', '/readyz');
  await eventually('ready', async () => (await fetch(readyz)).status === 200);
  // Karmada's own CloneSet customization, as it ships it, made once the agent runs: its
  // interpreter starts with the first customization.
  const file = join(
    await thirdPartyCustomizationsFolder(),
    GROUP,
    'v1alpha1',
    'CloneSet',
    'customizations.yaml',
  );
  for (const c of parseCustomizations(await readFile(file, 'utf8'))) await customizations.create(c);
}, 120_000);

afterAll(async () => {
  await (agent as AgentProcess | undefined)?.stop();
  await (fed as LocalFederation | undefined)?.destroy();
});

describe("Karmada's CloneSet customization", () => {
  it("health and reflected status follow the member's status as the scripts judge it", async () => {
    await setWork('web', [cloneSet({ replicas: 2, paused: false }), configMap('web-config', { v: '1' })]);
    await eventually(
      'CloneSet applied',
      async () => (await memberCloneSets.find('default/web')) !== undefined,
    );
    const generation = (await memberCloneSets.get('default/web')).metadata.generation ?? 0;
    const ready = {
      observedGeneration: generation,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      updatedReadyReplicas: 2,
      expectedUpdatedReplicas: 2,
      updateRevision: 'web-1',
      currentRevision: 'web-1',
      labelSelector: 'app=web',
      // Not reflected by the script.
      collisionCount: 0,
    };
    await memberCloneSets.patchStatus('default/web', { status: ready });
    // The script's reflection, not the whole status (the built-in one for kinds without a script).
    const reflected = Object.fromEntries(Object.entries(ready).filter(([k]) => k !== 'collisionCount'));
    const expected = { ...reflected, generation, resourceTemplateGeneration: 4 };
    await eventually('status reflected by the script', async () =>
      isDeepStrictEqual((await manifestStatus('web', 0))?.status, expected),
    );
    expect((await manifestStatus('web', 0))?.health).toBe('Healthy');
    expect((await manifestStatus('web', 1))?.health).toBe('Healthy');

    // One replica down: updated 2, available 1 → the script says unhealthy.
    await memberCloneSets.patchStatus('default/web', { status: { availableReplicas: 1, readyReplicas: 1 } });
    await eventually('Unhealthy', async () => (await manifestStatus('web', 0))?.health === 'Unhealthy');
    expect((await manifestStatus('web', 0))?.status).toMatchObject({
      availableReplicas: 1,
      readyReplicas: 1,
    });
  });
});

describe('a Retain script', () => {
  it('keeps what the member set over the manifest; one that fails fails that manifest alone', async () => {
    await customizations.create({
      metadata: { name: 'cloneset-retain' },
      spec: {
        target: { apiVersion: `${GROUP}/v1alpha1`, kind: 'CloneSet' },
        customizations: {
          retention: {
            luaScript: `function Retain(desiredObj, observedObj)
              if desiredObj.spec.replicas == 13 then error("13 replicas are never kept") end
              if observedObj.spec.paused ~= nil then desiredObj.spec.paused = observedObj.spec.paused end
              return desiredObj
            end`,
          },
        },
      },
    });
    // The agent takes the customization in through its watch; until then it repairs the member's
    // pause away as drift. A pause that holds for a while says the script is in effect.
    await eventually('the Retain script in effect', async () => {
      await memberCloneSets.mergePatch('default/web', { spec: { paused: true } });
      await new Promise((r) => setTimeout(r, 1_500));
      return (await memberCloneSets.get('default/web')).spec?.paused === true;
    });
    // The member pauses it; the next apply (a new replica count) keeps the pause.
    await memberCloneSets.mergePatch('default/web', { spec: { paused: true } });
    await setWork('web', [cloneSet({ replicas: 3, paused: false }), configMap('web-config', { v: '1' })]);
    await eventually(
      'replicas 3 applied',
      async () => (await memberCloneSets.get('default/web')).spec?.replicas === 3,
    );
    expect((await memberCloneSets.get('default/web')).spec?.paused).toBe(true);

    await setWork('web', [cloneSet({ replicas: 13, paused: false }), configMap('web-config', { v: '2' })]);
    await eventually('Applied=False', async () => (await applied('web'))?.status === 'False');
    expect((await applied('web'))?.message).toMatch(
      /^Failed to apply all manifests \(1\/2\): cannot retain the member's fields of CloneSet default\/web: Retain script of ResourceInterpreterCustomization cloneset-retain: .*13 replicas are never kept/,
    );
    expect((await memberConfigMaps.get('default/web-config')).data).toEqual({ v: '2' });
    expect((await memberCloneSets.get('default/web')).spec?.replicas).toBe(3);
    await eventually('SyncFailed Event', async () =>
      (await workEvents('web')).some(
        (e) => e.reason === 'SyncFailed' && e.message.includes('13 replicas are never kept'),
      ),
    );

    await setWork('web', [cloneSet({ replicas: 2, paused: false }), configMap('web-config', { v: '2' })]);
    await eventually('Applied=True again', async () => (await applied('web'))?.status === 'True');
  });
});

describe('a health script that fails', () => {
  it('makes the health Unknown with an InterpretHealthFailed Event; other Works are served', async () => {
    // Sorted before Karmada's customization: its health script is the one that runs.
    await customizations.create({
      metadata: { name: 'a-broken-cloneset-health' },
      spec: {
        target: { apiVersion: `${GROUP}/v1alpha1`, kind: 'CloneSet' },
        customizations: {
          healthInterpretation: {
            luaScript: 'function InterpretHealth(observedObj) error("health probe broke") end',
          },
        },
      },
    });
    await eventually('Unknown', async () => (await manifestStatus('web', 0))?.health === 'Unknown');
    // The status script still runs.
    expect((await manifestStatus('web', 0))?.status).toMatchObject({ replicas: 2, updateRevision: 'web-1' });
    await eventually('InterpretHealthFailed Event', async () =>
      (await workEvents('web')).some(
        (e) =>
          e.type === 'Warning' &&
          e.reason === 'InterpretHealthFailed' &&
          e.message.startsWith('Interpret health of object(CloneSet/default/web) failed, err: ') &&
          e.message.includes('health probe broke'),
      ),
    );

    await setWork('other', [configMap('other-config', { a: '1' })]);
    await eventually(
      'other Work applied and Healthy',
      async () => (await manifestStatus('other', 0))?.health === 'Healthy',
    );
    expect((await memberConfigMaps.get('default/other-config')).data).toEqual({ a: '1' });
    // Reported once, not on every resync.
    const logged = (await agent.logs()).split('\n').filter((l) => l.includes('health probe broke'));
    expect(logged).toHaveLength(1);
    expect(agent.isRunning()).toBe(true);
  });
});
