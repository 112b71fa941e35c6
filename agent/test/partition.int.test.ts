/**
 * Partitions, restarts and HA against a real local federation: the agent keeps the member's
 * workloads exactly as they are while the control plane is away, resumes cleanly, and two
 * replicas never lead at the same time.
 */
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKind, executionNamespaceFor, workKind, type Cluster, type Work } from '@kf/api';
import { LEASE_RESOURCE, ResourceClient, parseMicroTime, type Lease } from '@kf/kube';
import { demoDeployment, eventually, startFederation, type LocalFederation } from '@kf/testing';
import { startAgent, type AgentProcess } from './agent-process.ts';

/**
 * How long the control plane's API server stays away here: longer than the agent's backoff caps.
 * The two-minute outage of the whole control plane (process included, an agent restarted
 * meanwhile) is in test/e2e/partitions-control-plane.int.test.ts.
 */
const OUTAGE_MS = 20_000;
const ES = executionNamespaceFor('member1');

let fed: LocalFederation;
let clusters: ResourceClient<Cluster>;
let works: ResourceClient<Work>;
let leases: ResourceClient<Lease>;
let apps: AppsV1Api;
let core: CoreV1Api;
const agents: AgentProcess[] = [];

/** uid of every Karmada-managed member object, and of every ReplicaSet (a rollout would add one). */
async function memberSnapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const selector = { labelSelector: 'karmada.io/managed=true' };
  for (const d of (await apps.listDeploymentForAllNamespaces(selector)).items)
    out[`deploy/${d.metadata?.name}`] = d.metadata?.uid ?? '';
  for (const c of (await core.listConfigMapForAllNamespaces(selector)).items)
    out[`cm/${c.metadata?.name}`] = c.metadata?.uid ?? '';
  for (const r of (await apps.listReplicaSetForAllNamespaces()).items)
    out[`rs/${r.metadata?.name}`] = r.metadata?.uid ?? '';
  return out;
}

const renewedAt = async (): Promise<number> =>
  parseMicroTime((await leases.find('karmada-cluster/member1'))?.spec?.renewTime) ?? 0;

async function launch(name: string): Promise<AgentProcess> {
  const a = await startAgent({
    cluster: 'member1',
    name,
    karmadaKubeconfig: fed.controlPlane.kubeconfigPath,
    member: fed.member('member1'),
    runDir: fed.runDir,
  });
  agents.push(a);
  return a;
}

async function isLeader(a: AgentProcess): Promise<boolean> {
  const text = await (await fetch(a.metricsUrl)).text();
  return /^karmada_failover_leader_election_is_leader 1$/m.test(text);
}

beforeAll(async () => {
  fed = await startFederation({ members: 1, member: { nodes: 2 } });
  const kc = fed.controlPlane.kubeConfig();
  clusters = new ResourceClient<Cluster>(kc, clusterKind);
  works = new ResourceClient<Work>(kc, workKind);
  leases = new ResourceClient<Lease>(kc, LEASE_RESOURCE);
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'karmada-system' } } });
  apps = fed.member('member1').kubeConfig().makeApiClient(AppsV1Api);
  core = fed.member('member1').kubeConfig().makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop()));
  await (fed as LocalFederation | undefined)?.destroy();
});

describe('partitions and restarts', () => {
  let before: Record<string, string>;

  it('applies two Works as the baseline', async () => {
    await launch('first');
    await eventually('execution namespace', async () => (await clusters.find('member1')) !== undefined);
    await eventually(
      'Ready=True',
      async () =>
        (await clusters.get('member1')).status?.conditions?.some(
          (c) => c.type === 'Ready' && c.status === 'True',
        ) === true,
    );
    await works.create({
      metadata: { name: 'web', namespace: ES },
      spec: { workload: { manifests: [demoDeployment('web', 2) as unknown as Record<string, unknown>] } },
    });
    await works.create({
      metadata: { name: 'settings', namespace: ES },
      spec: {
        workload: {
          manifests: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'settings', namespace: 'default' },
              data: { k: 'v' },
            },
          ],
        },
      },
    });
    await eventually('both Works Healthy', async () => {
      const list = (await works.list({ namespace: ES })).items;
      return list.length === 2 && list.every((w) => w.status?.manifestStatuses?.[0]?.health === 'Healthy');
    });
    before = await memberSnapshot();
    expect(Object.keys(before).filter((k) => !k.startsWith('rs/'))).toEqual(['deploy/web', 'cm/settings']);
  });

  it('survives a short control-plane disconnect (API server restart) without touching the member', async () => {
    await fed.controlPlane.restartApiServer();
    const since = await renewedAt();
    await eventually('lease renewed after the restart', async () => (await renewedAt()) > since, 60_000);
    expect(await memberSnapshot()).toEqual(before);
  });

  it(
    `keeps every member object while the control plane is down for ${OUTAGE_MS / 1000} s, then resumes heartbeat and status`,
    async () => {
      const renewedBefore = await renewedAt();
      await fed.controlPlane.stop();
      const end = Date.now() + OUTAGE_MS;
      // Bounded watch over the whole outage: the member must stay exactly as it was.
      while (Date.now() < end) {
        expect(await memberSnapshot()).toEqual(before);
        expect(agents[0]?.isRunning()).toBe(true);
        await new Promise((r) => setTimeout(r, Math.min(5_000, Math.max(0, end - Date.now()))));
      }
      await fed.controlPlane.start();

      await eventually('lease renewal resumed', async () => (await renewedAt()) > renewedBefore, 90_000);
      // Pretend the control plane's monitor marked the cluster Unknown meanwhile: the agent must fix it.
      const c = await clusters.get('member1');
      await clusters.replaceStatus({
        ...c,
        status: {
          ...c.status,
          conditions: (c.status?.conditions ?? []).map((x) =>
            x.type === 'Ready' ? { ...x, status: 'Unknown' as const, reason: 'ClusterStatusUnknown' } : x,
          ),
        },
      });
      await eventually(
        'status sync resumed: Ready=True',
        async () =>
          (await clusters.get('member1')).status?.conditions?.some(
            (x) => x.type === 'Ready' && x.status === 'True',
          ) === true,
        90_000,
      );
      expect(await memberSnapshot()).toEqual(before);
      expect(
        (await works.list({ namespace: ES })).items.every((w) => w.metadata.deletionTimestamp === undefined),
      ).toBe(true);
    },
    OUTAGE_MS + 240_000,
  );

  it('restarts the agent without deleting or duplicating anything', async () => {
    await agents[0]?.stop();
    const since = await renewedAt();
    const second = await launch('second');
    await eventually('new agent renews the lease', async () => (await renewedAt()) > since, 60_000);
    await eventually('new agent leads', () => isLeader(second), 60_000);
    // Let it reconcile every Work once more (it re-applies them on start).
    await eventually('Works still Applied and Healthy', async () => {
      const list = (await works.list({ namespace: ES })).items;
      return list.every((w) => w.status?.manifestStatuses?.[0]?.health === 'Healthy');
    });
    expect(await memberSnapshot()).toEqual(before);
  });
});

describe('high availability', () => {
  it('lets exactly one of two replicas lead, and the other take over when the leader dies', async () => {
    const leaderBefore = agents.at(-1);
    const standby = await launch('standby');
    await eventually('standby serves metrics', async () => (await fetch(standby.metricsUrl)).ok, 30_000);
    // Sampled over several election periods: never two leaders.
    for (let i = 0; i < 10; i++) {
      const both = await Promise.all([isLeader(leaderBefore!), isLeader(standby)]);
      expect(both).toEqual([true, false]);
      await new Promise((r) => setTimeout(r, 500));
    }
    await leaderBefore!.stop(0); // SIGTERM then SIGKILL at once: no graceful release
    const since = await renewedAt();
    await eventually('standby leads', () => isLeader(standby), 30_000);
    await eventually(
      'heartbeat continues under the new leader',
      async () => (await renewedAt()) > since,
      30_000,
    );
    const holder = (await leases.get('karmada-system/karmada-agent-member1')).spec?.holderIdentity;
    expect(holder).toBeTruthy();
  });
});
