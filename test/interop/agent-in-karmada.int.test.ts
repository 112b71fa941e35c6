/**
 * The project's agent in a real Karmada (v1.18.2, built from its Go module): it registers through
 * Karmada's aggregated API, Karmada's scheduler and controllers place a Deployment on its member,
 * the agent applies Karmada's Works and reports their status, which Karmada aggregates; killing the
 * agent makes Karmada's own cluster controller, ClusterTaintPolicy and taint manager move the
 * workload, and the agent restarted cleans up what Karmada took away.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AppsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clusterKind,
  findCondition,
  findTaint,
  propagationPolicyKind,
  resourceBindingKind,
  workKind,
  type Cluster,
  type PropagationPolicy,
  type ResourceBinding,
  type Work,
} from '@kf/api';
import { ResourceClient } from '@kf/kube';
import {
  AGENT_MAIN,
  DEFAULT_TAINT_POLICY_FILE,
  FAILOVER_AGENT_FLAGS,
  KarmadaControlPlane,
  ManagedProcess,
  agentKubeconfig,
  applyAgentAccess,
  demoDeployment,
  eventually,
  freePort,
  startMember,
  type LocalCluster,
} from '@kf/testing';

const execFileAsync = promisify(execFile);
const MEMBERS = ['member1', 'member2'] as const;
const APP = 'peer-web';
const NAMESPACE = 'default';

let karmada: KarmadaControlPlane;
const members = new Map<string, LocalCluster>();
const agents = new Map<string, ManagedProcess>();
let clusters: ResourceClient<Cluster>;
let bindings: ResourceClient<ResourceBinding>;
let works: ResourceClient<Work>;

async function startAgent(member: LocalCluster): Promise<ManagedProcess> {
  const port = await freePort();
  const agent = new ManagedProcess({
    name: `agent-${member.name}`,
    command: process.execPath,
    args: [
      AGENT_MAIN,
      'run',
      `--cluster-name=${member.name}`,
      `--karmada-kubeconfig=${await agentKubeconfig(karmada.cluster, member.name)}`,
      `--kubeconfig=${member.kubeconfigPath}`,
      `--metrics-bind-address=127.0.0.1:${port}`,
      `--health-probe-bind-address=127.0.0.1:${port}`,
      ...FAILOVER_AGENT_FLAGS,
    ],
    logDir: join(karmada.runDir, 'logs'),
    env: { KUBECONFIG: '' },
  });
  await agent.start();
  agents.set(member.name, agent);
  return agent;
}

function agentOf(member: string): ManagedProcess {
  const agent = agents.get(member);
  if (agent === undefined) throw new Error(`no agent for ${member}`);
  return agent;
}

function memberOf(name: string): LocalCluster {
  const member = members.get(name);
  if (member === undefined) throw new Error(`no member ${name}`);
  return member;
}

beforeAll(async () => {
  karmada = await KarmadaControlPlane.start();
  for (const name of MEMBERS) members.set(name, await startMember(name, karmada.runDir, { nodes: 1 }));
  await applyAgentAccess(karmada.cluster, MEMBERS);
  const kc = karmada.cluster.kubeConfig();
  clusters = new ResourceClient<Cluster>(kc, clusterKind);
  bindings = new ResourceClient<ResourceBinding>(kc, resourceBindingKind);
  works = new ResourceClient<Work>(kc, workKind);
  for (const member of members.values()) await startAgent(member);
});

afterAll(async () => {
  await Promise.allSettled([...agents.values()].map((a) => a.stop()));
  await Promise.allSettled([...members.values()].map((m) => m.stop()));
  await (karmada as KarmadaControlPlane | undefined)?.destroy();
});

async function readyStatus(name: string): Promise<string | undefined> {
  const cluster = await clusters.find(name);
  return findCondition(cluster?.status?.conditions, 'Ready')?.status;
}

/** The member's copy of the Deployment: replicas asked and available; undefined when absent. */
async function memberCopy(member: string): Promise<{ replicas: number; available: number } | undefined> {
  const apps = memberOf(member).kubeConfig().makeApiClient(AppsV1Api);
  try {
    const d = await apps.readNamespacedDeployment({ name: APP, namespace: NAMESPACE });
    return { replicas: d.spec?.replicas ?? 0, available: d.status?.availableReplicas ?? 0 };
  } catch (err: unknown) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

async function placement(): Promise<Record<string, number>> {
  const rb = await bindings.find(`${NAMESPACE}/${APP}-deployment`);
  return Object.fromEntries((rb?.spec.clusters ?? []).map((c) => [c.name, c.replicas ?? 0]));
}

async function worksIn(member: string): Promise<Work[]> {
  const list = await works.list({ namespace: `karmada-es-${member}` });
  return list.items.filter((w) => w.metadata.name?.startsWith(APP) === true);
}

describe("the project's agent in a real Karmada", () => {
  it('registers its Cluster through the aggregated API and Karmada sees it Ready, with its status', async () => {
    for (const name of MEMBERS)
      await eventually(`${name} Ready`, async () => (await readyStatus(name)) === 'True', 60_000);
    const cluster = await clusters.get('member1');
    expect(cluster.spec.syncMode).toBe('Pull');
    expect(cluster.status?.kubernetesVersion).toMatch(/^v1\./);
    expect(cluster.status?.apiEnablements?.some((a) => a.groupVersion === 'apps/v1')).toBe(true);
    expect(cluster.status?.nodeSummary?.readyNum).toBe(1);
    // Karmada's own cluster controller made the execution namespace for it.
    const { stdout } = await execFileAsync(
      karmada.cluster.kubectlPath,
      karmada.cluster.kubectlArgs('get', 'namespace', 'karmada-es-member1', '-o', 'name'),
    );
    expect(stdout.trim()).toBe('namespace/karmada-es-member1');
  });

  it("applies the Works Karmada's scheduler and controllers make, and Karmada aggregates their status", async () => {
    const policies = new ResourceClient<PropagationPolicy>(
      karmada.cluster.kubeConfig(),
      propagationPolicyKind,
    );
    await policies.create({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: APP, namespace: NAMESPACE },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: APP }],
        placement: {
          clusterAffinity: { clusterNames: [...MEMBERS] },
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
    await karmada.cluster
      .kubeConfig()
      .makeApiClient(AppsV1Api)
      .createNamespacedDeployment({ namespace: NAMESPACE, body: demoDeployment(APP, 2) });
    for (const m of MEMBERS) {
      await eventually(
        `${m} runs 1 available replica`,
        async () => (await memberCopy(m))?.available === 1,
        90_000,
      );
    }
    expect(await placement()).toEqual({ member1: 1, member2: 1 });
    await eventually(
      'the binding aggregates both members applied and healthy',
      async () => {
        const rb = await bindings.get(`${NAMESPACE}/${APP}-deployment`);
        const entries = rb.status?.aggregatedStatus ?? [];
        return entries.length === 2 && entries.every((e) => e.applied === true && e.health === 'Healthy');
      },
      60_000,
    );
    await eventually(
      "the template's status adds up the members' replicas",
      async () => {
        const d = await karmada.cluster
          .kubeConfig()
          .makeApiClient(AppsV1Api)
          .readNamespacedDeployment({ name: APP, namespace: NAMESPACE });
        return d.status?.readyReplicas === 2;
      },
      60_000,
    );
  });

  it('agent killed: Karmada taints and evicts; agent back: Ready again and its stale copy cleaned up', async () => {
    await execFileAsync(
      karmada.cluster.kubectlPath,
      karmada.cluster.kubectlArgs('apply', '-f', DEFAULT_TAINT_POLICY_FILE),
    );
    const killedAt = Date.now();
    await agentOf('member1').kill();
    const unknownAt = await eventually(
      'member1 Ready Unknown',
      async () => (await readyStatus('member1')) === 'Unknown',
      60_000,
    );
    const taintedAt = await eventually(
      'member1 tainted not-ready:NoExecute',
      async () =>
        findTaint((await clusters.get('member1')).spec.taints, {
          key: 'cluster.karmada.io/not-ready',
          effect: 'NoExecute',
        }) !== undefined,
      60_000,
    );
    const movedAt = await eventually(
      'both replicas placed on member2 and available there',
      async () => {
        const p = await placement();
        return p.member1 === undefined && p.member2 === 2 && (await memberCopy('member2'))?.available === 2;
      },
      120_000,
    );
    process.stdout.write(
      `Karmada with the project's agent killed: Unknown +${((unknownAt - killedAt) / 1000).toFixed(1)} s, ` +
        `NoExecute +${((taintedAt - killedAt) / 1000).toFixed(1)} s, moved +${((movedAt - killedAt) / 1000).toFixed(1)} s\n`,
    );
    // The copy on member1 outlives the agent: nobody but the agent deletes in its member.
    expect(await memberCopy('member1')).toBeDefined();

    await startAgent(memberOf('member1'));
    await eventually('member1 Ready again', async () => (await readyStatus('member1')) === 'True', 60_000);
    await eventually(
      'the NoExecute taint removed',
      async () =>
        findTaint((await clusters.get('member1')).spec.taints, {
          key: 'cluster.karmada.io/not-ready',
          effect: 'NoExecute',
        }) === undefined,
      60_000,
    );
    await eventually(
      "member1's copy and its Work gone",
      async () => (await memberCopy('member1')) === undefined && (await worksIn('member1')).length === 0,
      90_000,
    );
    expect(await memberCopy('member2')).toEqual({ replicas: 2, available: 2 });
  });
});
