/**
 * The agent applies custom resources: a Work carrying a namespaced and a cluster-scoped custom
 * resource, whose CRDs were installed on the member after the agent started (its REST mapping
 * comes from member discovery, which the agent reads again when a kind is missing), is applied, reported with the whole status
 * reflected and health Healthy (no health rule for the kind, as upstream), kept free of drift, and
 * its deletion removes both objects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKind, executionNamespaceFor, workKind, type Cluster, type Work } from '@kf/api';
import { ResourceClient, type ResourceDescriptor } from '@kf/kube';
import { eventually, freeFormCrd, installCrd, startFederation, type LocalFederation } from '@kf/testing';
import { startAgent, type AgentProcess } from './agent-process.ts';

const GROUP = 'agent.example.com';
const ES = executionNamespaceFor('member1');
const NAMESPACES: ResourceDescriptor = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
const WIDGETS: ResourceDescriptor = { group: GROUP, version: 'v1', plural: 'widgets', namespaced: true };
const GADGETS: ResourceDescriptor = { group: GROUP, version: 'v1', plural: 'gadgets', namespaced: false };

interface Custom {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly labels?: Record<string, string>;
  };
  readonly spec?: Record<string, unknown>;
  readonly status?: Record<string, unknown> & {
    readonly conditions?: readonly { type: string; status: string }[];
  };
}

let fed: LocalFederation;
let agent: AgentProcess;
let works: ResourceClient<Work>;
let widgets: ResourceClient<Custom>;
let gadgets: ResourceClient<Custom>;

beforeAll(async () => {
  fed = await startFederation({ members: 1, member: { nodes: 1 } });
  works = new ResourceClient<Work>(fed.controlPlane.kubeConfig(), workKind);
  const member = fed.member('member1').kubeConfig();
  widgets = new ResourceClient<Custom>(member, WIDGETS);
  gadgets = new ResourceClient<Custom>(member, GADGETS);
  // Where the agent's leader-election Lease lives.
  await new ResourceClient<Custom>(fed.controlPlane.kubeConfig(), NAMESPACES).create({
    metadata: { name: 'karmada-system' },
  });
  agent = await startAgent({
    cluster: 'member1',
    karmadaKubeconfig: fed.controlPlane.kubeconfigPath,
    member: fed.member('member1'),
    runDir: fed.runDir,
  });
  // Registered, its execution namespace made, and a status sync done: the agent has read member
  // discovery while these kinds did not exist.
  const clusters = new ResourceClient<Cluster>(fed.controlPlane.kubeConfig(), clusterKind);
  const namespaces = new ResourceClient<Custom>(fed.controlPlane.kubeConfig(), NAMESPACES);
  await eventually('registered and synced', async () => {
    const c = await clusters.find('member1');
    return (c?.status?.apiEnablements?.length ?? 0) > 0 && (await namespaces.find(ES)) !== undefined;
  }).catch(async (err: unknown) => {
    process.stderr.write(`agent log:\n${(await agent.logs()).slice(-4_000)}\n`);
    throw err;
  });
  for (const c of [
    freeFormCrd(GROUP, 'Widget', 'widgets', 'Namespaced'),
    freeFormCrd(GROUP, 'Gadget', 'gadgets', 'Cluster'),
  ]) {
    await installCrd(member, c);
  }
});

afterAll(async () => {
  await (agent as AgentProcess | undefined)?.stop();
  await (fed as LocalFederation | undefined)?.destroy();
});

describe('a Work carrying custom resources', () => {
  it('applies them, reflects their status as Healthy, repairs drift, and deletes them with the Work', async () => {
    await works.create({
      metadata: { name: 'custom', namespace: ES },
      spec: {
        workload: {
          manifests: [
            {
              apiVersion: `${GROUP}/v1`,
              kind: 'Widget',
              metadata: { name: 'sprocket', namespace: 'default' },
              spec: { size: 3 },
            },
            {
              apiVersion: `${GROUP}/v1`,
              kind: 'Gadget',
              metadata: { name: 'gizmo' },
              spec: { mode: 'fast' },
            },
          ],
        },
      },
    });

    await eventually('both objects applied', async () => {
      const [w, g] = await Promise.all([widgets.find('default/sprocket'), gadgets.find('gizmo')]);
      return w !== undefined && g !== undefined;
    });
    const widget = await widgets.get('default/sprocket');
    expect(widget.spec).toEqual({ size: 3 });
    expect(widget.metadata.labels?.['karmada.io/managed']).toBe('true');
    expect((await gadgets.get('gizmo')).spec).toEqual({ mode: 'fast' });
    await eventually('Applied=True', async () => {
      const w = await works.get(`${ES}/custom`);
      return w.status?.conditions?.some((c) => c.type === 'Applied' && c.status === 'True') === true;
    });

    // The member's controller for the kind (here: the test) writes a status; it is reflected whole.
    await widgets.patchStatus('default/sprocket', { status: { phase: 'Spinning', rpm: 1200 } });
    await eventually('status reflected', async () => {
      const s = (await works.get(`${ES}/custom`)).status?.manifestStatuses ?? [];
      return s.find((m) => m.identifier.kind === 'Widget')?.status?.['phase'] === 'Spinning';
    });
    const statuses = (await works.get(`${ES}/custom`)).status?.manifestStatuses ?? [];
    expect(statuses.find((m) => m.identifier.kind === 'Widget')).toMatchObject({
      identifier: {
        ordinal: 0,
        group: GROUP,
        version: 'v1',
        kind: 'Widget',
        namespace: 'default',
        name: 'sprocket',
      },
      status: { phase: 'Spinning', rpm: 1200 },
      health: 'Healthy',
    });
    expect(statuses.find((m) => m.identifier.kind === 'Gadget')).toMatchObject({
      identifier: { ordinal: 1, group: GROUP, kind: 'Gadget', name: 'gizmo' },
      health: 'Healthy',
    });

    // Drift: a hand edit is reverted.
    await widgets.mergePatch('default/sprocket', { spec: { size: 9 } });
    await eventually(
      'hand edit repaired',
      async () => (await widgets.get('default/sprocket')).spec?.['size'] === 3,
    );

    await works.delete(`${ES}/custom`);
    await eventually('both objects gone', async () => {
      const [w, g] = await Promise.all([widgets.find('default/sprocket'), gadgets.find('gizmo')]);
      return w === undefined && g === undefined;
    });
    await eventually('Work gone', async () => (await works.find(`${ES}/custom`)) === undefined);
  });
});
