/**
 * The agent as a process against a real local federation (control plane + 2 members with KWOK
 * nodes): registration, heartbeat, status, Ready thresholds, Works, and the operator commands.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AppsV1Api, CoreV1Api, type V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clusterKind,
  executionNamespaceFor,
  resourceInterpreterCustomizationKind,
  workKind,
  type Cluster,
  type ResourceInterpreterCustomization,
  type Work,
} from '@kf/api';
import {
  CORE_EVENT_RESOURCE,
  KubeError,
  LEASE_RESOURCE,
  ResourceClient,
  type CoreEvent,
  loadKubeConfig,
  parseMicroTime,
  type Lease,
} from '@kf/kube';
import {
  agentKubeconfig,
  applyAgentAccess,
  demoDeployment,
  eventually,
  startFederation,
  type LocalFederation,
} from '@kf/testing';
import { startAgent, type AgentProcess } from './agent-process.ts';

const execFileAsync = promisify(execFile);
const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');
/** The identity karmadactl register issues to the agent of member1. */
let agentKubeconfigPath: string;

let fed: LocalFederation;
let agent: AgentProcess;
let clusters: ResourceClient<Cluster>;
let works: ResourceClient<Work>;
let leases: ResourceClient<Lease>;
let events: ResourceClient<CoreEvent>;
let apps: AppsV1Api;
let core: CoreV1Api;

const ES = executionNamespaceFor('member1');
/** `type/reason` of the Events recorded on a Work of the execution namespace. */
const workEvents = async (name: string): Promise<string[]> =>
  (await events.list({ namespace: ES })).items
    .filter((e) => e.involvedObject.kind === 'Work' && e.involvedObject.name === name)
    .map((e) => `${e.type}/${e.reason}`);
const readyOf = async (name = 'member1'): Promise<string | undefined> =>
  (await clusters.get(name)).status?.conditions?.find((c) => c.type === 'Ready')?.status;

beforeAll(async () => {
  fed = await startFederation({ members: 2, member: { nodes: 2 } });
  const kc = fed.controlPlane.kubeConfig();
  clusters = new ResourceClient<Cluster>(kc, clusterKind);
  works = new ResourceClient<Work>(kc, workKind);
  leases = new ResourceClient<Lease>(kc, LEASE_RESOURCE);
  events = new ResourceClient<CoreEvent>(kc, CORE_EVENT_RESOURCE);
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'karmada-system' } } });
  // The agent runs with least privilege from the start: deploy/agent and its per-cluster RBAC.
  await applyAgentAccess(fed.controlPlane, ['member1']);
  agentKubeconfigPath = await agentKubeconfig(fed.controlPlane, 'member1');
  apps = fed.member('member1').kubeConfig().makeApiClient(AppsV1Api);
  core = fed.member('member1').kubeConfig().makeApiClient(CoreV1Api);
  agent = await startAgent({
    cluster: 'member1',
    karmadaKubeconfig: agentKubeconfigPath,
    member: fed.member('member1'),
    runDir: fed.runDir,
    flags: ['--cluster-provider=kwok', '--cluster-region=local', '--cluster-zones=a,b'],
  });
});

afterAll(async () => {
  // beforeAll may have failed half-way: stop whatever was started.
  await (agent as AgentProcess | undefined)?.stop();
  await (fed as LocalFederation | undefined)?.destroy();
});

describe('registration, heartbeat and status', () => {
  it('registers the member as a Pull Cluster identified by its kube-system UID, with its execution namespace', async () => {
    await eventually(
      'Cluster member1 registered',
      async () => (await clusters.find('member1')) !== undefined,
    );
    const cluster = await clusters.get('member1');
    const kubeSystem = await core.readNamespace({ name: 'kube-system' });
    expect(cluster.spec).toMatchObject({
      syncMode: 'Pull',
      id: kubeSystem.metadata?.uid,
      provider: 'kwok',
      region: 'local',
      zones: ['a', 'b'],
    });
    const ns = await fed.controlPlane.kubeConfig().makeApiClient(CoreV1Api).readNamespace({ name: ES });
    expect(ns.metadata?.labels?.['karmada.io/system']).toBe('true');
  });

  it('renews the heartbeat Lease every lease duration × fraction (1 s here)', async () => {
    const seen: number[] = [];
    await eventually(
      'four renewals observed',
      async () => {
        const lease = await leases.find('karmada-cluster/member1');
        const t = parseMicroTime(lease?.spec?.renewTime);
        if (t !== undefined && seen.at(-1) !== t) seen.push(t);
        return seen.length >= 5;
      },
      30_000,
      100,
    );
    const gaps = seen.slice(1).map((t, i) => t - (seen[i] ?? t));
    for (const gap of gaps.slice(1)) {
      expect(gap).toBeGreaterThanOrEqual(950);
      expect(gap).toBeLessThan(2_000);
    }
    const lease = await leases.get('karmada-cluster/member1');
    expect(lease.spec).toMatchObject({ holderIdentity: 'member1', leaseDurationSeconds: 4 });
    const cluster = await clusters.get('member1');
    expect((lease.metadata as { ownerReferences?: unknown[] }).ownerReferences).toEqual([
      {
        apiVersion: 'cluster.karmada.io/v1alpha1',
        kind: 'Cluster',
        name: 'member1',
        uid: cluster.metadata.uid,
      },
    ]);
  });

  it('fills Ready, version, API enablements and summaries from the member', async () => {
    await eventually('Ready=True with summaries', async () => {
      const s = (await clusters.get('member1')).status;
      return s?.nodeSummary?.totalNum === 2 && s.conditions?.some((c) => c.type === 'Ready') === true;
    });
    const status = (await clusters.get('member1')).status;
    expect(status?.kubernetesVersion).toMatch(/^v1\.\d+\.\d+/);
    expect(status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'ClusterReady',
      message: 'cluster is healthy and ready to accept workloads',
    });
    expect(status?.conditions?.find((c) => c.type === 'CompleteAPIEnablements')).toMatchObject({
      status: 'True',
      reason: 'Complete',
    });
    expect(status?.apiEnablements?.find((a) => a.groupVersion === 'apps/v1')?.resources).toContainEqual({
      name: 'deployments',
      kind: 'Deployment',
    });
    expect(status?.nodeSummary).toEqual({ totalNum: 2, readyNum: 2 });
    expect(status?.resourceSummary?.allocatable).toMatchObject({ cpu: '64', memory: '512Gi', pods: '220' });
  });

  it('refuses, with a clear error, to take over a Cluster registered with another id', async () => {
    await clusters.create({
      metadata: { name: 'member2' },
      spec: { syncMode: 'Pull', id: 'another-member' },
    });
    const other = await startAgent({
      cluster: 'member2',
      karmadaKubeconfig: fed.controlPlane.kubeconfigPath,
      member: fed.member('member2'),
      runDir: fed.runDir,
    });
    try {
      expect(await other.exited()).toBe(1);
      expect(await other.logs()).toMatch(/already registered with id another-member/);
      expect((await clusters.get('member2')).spec.id).toBe('another-member');
    } finally {
      await other.stop();
      await clusters.delete('member2');
    }
  });

  it('serves /metrics with the Ready state and /readyz', async () => {
    const text = await (await fetch(agent.metricsUrl)).text();
    expect(text).toMatch(/^cluster_ready_state\{member_cluster="member1"\} 1$/m);
    expect(text).toMatch(
      /^karmada_failover_agent_lease_renew_duration_seconds_count\{member_cluster="member1"\} [1-9]/m,
    );
    expect(text).toMatch(/^cluster_sync_status_duration_seconds_count/m);
    expect(text).toMatch(
      /^karmada_failover_agent_work_applies_total\{member_cluster="member1",result="error"\} 0$/m,
    );
    expect((await fetch(agent.metricsUrl.replace('/metrics', '/readyz'))).status).toBe(200);
  });
});

describe('Ready thresholds (period 1 s, thresholds 3 s)', () => {
  const THRESHOLD_MS = 3_000;
  const PERIOD_MS = 1_000;
  /** Polling granularity, one write, and a process that shares 2 cores with two clusters. */
  const SLACK_MS = 1_500;

  it('turns Ready False no sooner than the failure threshold and no later than threshold + one period', async () => {
    await eventually('Ready=True', async () => (await readyOf()) === 'True');
    const member = fed.member('member1');
    const stopStarted = Date.now();
    await member.stop();
    const stopped = Date.now();
    const flipped = await eventually('Ready=False', async () => (await readyOf()) === 'False', 30_000, 100);
    expect(flipped - stopStarted).toBeGreaterThanOrEqual(THRESHOLD_MS);
    expect(flipped - stopped).toBeLessThanOrEqual(THRESHOLD_MS + PERIOD_MS + SLACK_MS);
    const ready = (await clusters.get('member1')).status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ reason: 'ClusterNotReachable', message: 'cluster is not reachable' });
    // The heartbeat is about the agent, not the member: it keeps being renewed.
    const before = parseMicroTime((await leases.get('karmada-cluster/member1')).spec?.renewTime) ?? 0;
    await eventually('lease renewed while the member is down', async () => {
      const t = parseMicroTime((await leases.get('karmada-cluster/member1')).spec?.renewTime) ?? 0;
      return t > before;
    });

    const startStarted = Date.now();
    await member.start();
    const started = Date.now();
    const back = await eventually('Ready=True again', async () => (await readyOf()) === 'True', 60_000, 100);
    expect(back - startStarted).toBeGreaterThanOrEqual(THRESHOLD_MS);
    expect(back - started).toBeLessThanOrEqual(THRESHOLD_MS + PERIOD_MS + SLACK_MS);
  });
});

function deploymentWork(name: string, deployment: V1Deployment, extra: Partial<Work['spec']> = {}): Work {
  return {
    apiVersion: 'work.karmada.io/v1alpha1',
    kind: 'Work',
    metadata: { name, namespace: ES, finalizers: ['karmada.io/execution-controller'] },
    spec: { workload: { manifests: [deployment as unknown as Record<string, unknown>] }, ...extra },
  };
}

const deploymentOf = (name: string) => apps.readNamespacedDeployment({ name, namespace: 'default' });
const exists = async (name: string): Promise<boolean> =>
  deploymentOf(name).then(
    () => true,
    (err: unknown) => {
      if ((err as { code?: number }).code === 404) return false;
      throw err;
    },
  );

describe('Works', () => {
  it('applies a Work, reports Applied and Healthy once the Deployment is available, repairs drift, and deletes with the Work', async () => {
    await eventually('Ready=True', async () => (await readyOf()) === 'True', 60_000);
    await works.create(deploymentWork('web', demoDeployment('web', 2)));

    await eventually(
      'member Deployment available',
      async () => (await deploymentOf('web')).status?.availableReplicas === 2,
    );
    const d = await deploymentOf('web');
    expect(d.metadata?.labels?.['karmada.io/managed']).toBe('true');
    expect(d.metadata?.annotations).toMatchObject({
      'work.karmada.io/name': 'web',
      'work.karmada.io/namespace': ES,
    });
    expect(
      d.metadata?.managedFields?.some((f) => f.manager === 'karmada-agent' && f.operation === 'Apply'),
    ).toBe(true);

    await eventually('Work status Healthy', async () => {
      const w = await works.get(`${ES}/web`);
      return w.status?.manifestStatuses?.[0]?.health === 'Healthy';
    });
    const w = await works.get(`${ES}/web`);
    expect(w.status?.conditions?.find((c) => c.type === 'Applied')).toMatchObject({
      status: 'True',
      reason: 'AppliedSuccessful',
    });
    expect(w.status?.conditions?.find((c) => c.type === 'Dispatching')).toMatchObject({ status: 'True' });
    await eventually('Work events recorded', async () => {
      const recorded = await workEvents('web');
      return recorded.includes('Normal/WorkDispatching') && recorded.includes('Normal/SyncSucceed');
    });
    expect(w.status?.manifestStatuses?.[0]).toMatchObject({
      identifier: {
        ordinal: 0,
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        resource: '',
        namespace: 'default',
        name: 'web',
      },
      status: { replicas: 2, availableReplicas: 2 },
      health: 'Healthy',
    });

    // Drift: a hand edit is reverted.
    await apps.patchNamespacedDeployment({
      name: 'web',
      namespace: 'default',
      body: [{ op: 'replace', path: '/spec/replicas', value: 5 }],
    });
    await eventually('hand edit repaired', async () => (await deploymentOf('web')).spec?.replicas === 2);

    // Drift: a deleted object is recreated.
    const uid = (await deploymentOf('web')).metadata?.uid;
    await apps.deleteNamespacedDeployment({ name: 'web', namespace: 'default' });
    await eventually('deleted object recreated', async () => {
      const again = await deploymentOf('web').catch(() => undefined);
      return again !== undefined && again.metadata?.uid !== uid;
    });

    await works.delete(`${ES}/web`);
    await eventually('member Deployment gone', async () => !(await exists('web')));
    await eventually(
      'Work gone (finalizer removed)',
      async () => (await works.find(`${ES}/web`)) === undefined,
    );
  });

  it('refuses to take over an unmanaged object: Applied=False, object untouched', async () => {
    await apps.createNamespacedDeployment({ namespace: 'default', body: demoDeployment('handmade', 1) });
    await works.create(deploymentWork('handmade', demoDeployment('handmade', 3)));
    await eventually('Applied=False', async () => {
      const c = (await works.get(`${ES}/handmade`)).status?.conditions?.find((x) => x.type === 'Applied');
      return c?.status === 'False';
    });
    const applied = (await works.get(`${ES}/handmade`)).status?.conditions?.find((c) => c.type === 'Applied');
    expect(applied?.reason).toBe('AppliedFailed');
    expect(applied?.message).toMatch(/^Failed to apply all manifests \(0\/1\): .*not managed by Karmada/);
    await eventually('SyncFailed event recorded', async () =>
      (await workEvents('handmade')).includes('Warning/SyncFailed'),
    );
    expect((await deploymentOf('handmade')).spec?.replicas).toBe(1);
    await works.delete(`${ES}/handmade`);
    await eventually('Work gone', async () => (await works.find(`${ES}/handmade`)) === undefined);
    expect(await exists('handmade')).toBe(true); // unmanaged: never deleted
  });

  it('reports ConfigMap and Service manifests as Healthy', async () => {
    const manifests = [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'settings', namespace: 'default' },
        data: { a: '1' },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web-svc', namespace: 'default' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
      },
    ];
    await works.create({
      metadata: { name: 'misc', namespace: ES },
      spec: { workload: { manifests } },
    });
    await eventually('two Healthy entries', async () => {
      const s = (await works.get(`${ES}/misc`)).status?.manifestStatuses ?? [];
      return s.length === 2 && s.every((m) => m.health === 'Healthy');
    });
    expect((await core.readNamespacedConfigMap({ name: 'settings', namespace: 'default' })).data).toEqual({
      a: '1',
    });
    // The agent added its finalizer, so deleting the Work removes both objects.
    expect((await works.get(`${ES}/misc`)).metadata.finalizers).toContain('karmada.io/execution-controller');
    await works.delete(`${ES}/misc`);
    await eventually('objects gone', async () => {
      const cms = await core.listNamespacedConfigMap({
        namespace: 'default',
        labelSelector: 'karmada.io/managed=true',
      });
      const svcs = await core.listNamespacedService({
        namespace: 'default',
        labelSelector: 'karmada.io/managed=true',
      });
      return cms.items.length === 0 && svcs.items.length === 0;
    });
  });
});

describe('operator commands', () => {
  const cli = (...args: string[]) =>
    execFileAsync(
      process.execPath,
      [MAIN, ...args, `--karmada-kubeconfig=${fed.controlPlane.kubeconfigPath}`],
      {
        env: { ...process.env, KUBECONFIG: '' },
      },
    );

  it('`condition set` changes a condition and `status` shows it; `condition clear` removes it', async () => {
    const set = await cli(
      'condition',
      'set',
      '--cluster=member1',
      '--type=Maintenance',
      '--status=True',
      '--reason=PlannedUpgrade',
      '--message=Upgrading nodes',
    );
    expect(set.stdout).toMatch(/condition Maintenance=True set/);
    const condition = (await clusters.get('member1')).status?.conditions?.find(
      (c) => c.type === 'Maintenance',
    );
    expect(condition).toMatchObject({ status: 'True', reason: 'PlannedUpgrade', message: 'Upgrading nodes' });

    const status = await cli('status', '--cluster=member1');
    expect(status.stdout).toMatch(/^ {2}Maintenance\s+True\s+PlannedUpgrade\s+\d+s\s+Upgrading nodes$/m);
    expect(status.stdout).toMatch(/^ {2}Ready\s+True\s+ClusterReady/m);

    const clear = await cli('condition', 'clear', '--cluster=member1', '--type=Maintenance');
    expect(clear.stdout).toMatch(/condition Maintenance cleared/);
    expect((await cli('status', '--cluster=member1')).stdout).not.toMatch(/Maintenance/);
    // The agent's own conditions survive operator writes.
    expect(await readyOf()).toBe('True');
  });

  it('exits 2 listing the problem for a bad status value', async () => {
    const err = await cli(
      'condition',
      'set',
      '--cluster=member1',
      '--type=X',
      '--status=Maybe',
      '--reason=R',
    ).catch((e: unknown) => e as { code: number; stderr: string });
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toMatch(/"Maybe" is not one of True, False, Unknown/);
  });
});

describe('least privilege (deploy/agent, per-cluster RBAC and admission policy)', () => {
  const forbidden = async (what: string, write: () => Promise<unknown>): Promise<void> => {
    const err = await write().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, `${what} should be refused`).toBeInstanceOf(KubeError);
    expect((err as KubeError).status, what).toBe(403);
  };

  it("answers 403 when member1's agent writes member2's Cluster, Lease or Works", async () => {
    const admin = fed.controlPlane.kubeConfig();
    await clusters.create({ metadata: { name: 'member2' }, spec: { syncMode: 'Pull' } });
    await admin
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: executionNamespaceFor('member2') } } });
    await leases.create({
      metadata: { name: 'member2', namespace: 'karmada-cluster' },
      spec: { holderIdentity: 'member2', leaseDurationSeconds: 40 },
    });
    const asAgent = loadKubeConfig({ path: agentKubeconfigPath });
    const agentClusters = new ResourceClient<Cluster>(asAgent, clusterKind);
    const agentLeases = new ResourceClient<Lease>(asAgent, LEASE_RESOURCE);
    const agentWorks = new ResourceClient<Work>(asAgent, workKind);
    // Agents list Clusters (registration's id check) but get only their own, by name.
    expect((await agentClusters.list()).items.map((c) => c.metadata.name)).toContain('member2');
    await forbidden('get of Cluster member2', () => agentClusters.get('member2'));
    const other = await clusters.get('member2');
    await eventually('the admission policy is in force', async () => {
      const err = await agentClusters
        .replace({ ...other, spec: { ...other.spec, region: 'x' } })
        .catch((e: unknown) => e);
      return err instanceof KubeError && err.status === 403;
    });
    await forbidden('update of Cluster member2', () =>
      agentClusters.replace({ ...other, spec: { ...other.spec, region: 'x' } }),
    );
    await forbidden('update of Cluster member2 status', () =>
      agentClusters.replaceStatus({ ...other, status: { conditions: [{ type: 'Ready', status: 'True' }] } }),
    );
    await forbidden('delete of Cluster member2', () => agentClusters.delete('member2'));
    const lease = await leases.get('karmada-cluster/member2');
    await forbidden('update of Lease karmada-cluster/member2', () =>
      agentLeases.replace({ ...lease, spec: { ...lease.spec, holderIdentity: 'member1' } }),
    );
    await forbidden('create of Lease karmada-cluster/member3', () =>
      agentLeases.create({ metadata: { name: 'member3', namespace: 'karmada-cluster' }, spec: {} }),
    );
    await forbidden('create of a Work in karmada-es-member2', () =>
      agentWorks.create({ metadata: { name: 'w', namespace: executionNamespaceFor('member2') }, spec: {} }),
    );
    await forbidden('create of namespace karmada-es-member3', () =>
      new ResourceClient(asAgent, {
        group: '',
        version: 'v1',
        plural: 'namespaces',
        namespaced: false,
        kind: 'Namespace',
      }).create({
        metadata: { name: executionNamespaceFor('member3') },
      }),
    );
    // Its own objects stay writable: the heartbeat goes on.
    const since = parseMicroTime((await leases.get('karmada-cluster/member1')).spec?.renewTime) ?? 0;
    await eventually(
      'own lease still renewed',
      async () =>
        (parseMicroTime((await leases.get('karmada-cluster/member1')).spec?.renewTime) ?? 0) > since,
    );
    expect((await clusters.get('member2')).spec.region).toBeUndefined();
  });

  it('reads ResourceInterpreterCustomizations, its interpreter cache is synced, and it writes none', async () => {
    const asAgent = loadKubeConfig({ path: agentKubeconfigPath });
    const customizations = new ResourceClient<ResourceInterpreterCustomization>(
      asAgent,
      resourceInterpreterCustomizationKind,
    );
    expect((await customizations.list()).items).toEqual([]);
    // /readyz counts the agent's caches, the customizations' among them.
    expect((await fetch(agent.metricsUrl.replace('/metrics', '/readyz'))).status).toBe(200);
    await forbidden('create of a ResourceInterpreterCustomization', () =>
      customizations.create({
        metadata: { name: 'pods' },
        spec: { target: { apiVersion: 'v1', kind: 'Pod' }, customizations: {} },
      }),
    );
  });
});
