/**
 * The fences around member agents in a real Karmada API server, tried by the identities
 * themselves (client certificates): deploy/agent (the group's ClusterRole and the admission policy)
 * and the per-cluster RBAC of member1 and member2 as `karmada-failover-agent rbac` prints it.
 * First RBAC alone: member1's agent cannot write member2's objects by name, and a certificate
 * mis-issued into the agent group can write nothing that exists. Then with the admission policy:
 * the mis-issued certificate is denied every write even with RBAC as broad as cluster-admin, and
 * member1's agent registers, renews, reports status and handles Works, but cannot drop a taint,
 * take another cluster's secrets or write Events about another cluster.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadAllYaml, type KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentAccessObjects,
  agentIdentity,
  clusterKind,
  executionNamespaceFor,
  renderAgentAccess,
  workKind,
  type Cluster,
  type Work,
} from '@kf/api';
import {
  CORE_EVENT_RESOURCE,
  KubeError,
  LEASE_RESOURCE,
  ResourceClient,
  loadKubeConfig,
  type CoreEvent,
  type KubeObject,
  type Lease,
} from '@kf/kube';
import {
  AGENT_POLICY_FILE,
  AGENT_RBAC_FILE,
  REPO_ROOT,
  agentKubeconfig,
  applyAgentAccess,
  eventually,
  startControlPlane,
  type LocalCluster,
} from '@kf/testing';
import { withoutKeys } from '../src/workload/defined-fields.ts';

const exec = promisify(execFile);
const AGENT_MAIN = join(REPO_ROOT, 'agent', 'src', 'main.ts');
const ES1 = executionNamespaceFor('member1');
const ES2 = executionNamespaceFor('member2');
const QUARANTINE = { key: 'quarantine', effect: 'NoExecute' } as const;
const OWN_REFS = {
  secretRef: { namespace: 'karmada-cluster', name: 'member1' },
  impersonatorSecretRef: { namespace: 'karmada-cluster', name: 'member1-impersonator' },
};

interface Secret extends KubeObject {
  readonly data?: Readonly<Record<string, string>>;
}
type Namespace = KubeObject;
interface ConfigMap extends KubeObject {
  readonly data?: Readonly<Record<string, string>>;
}
const core = (plural: string, kind: string, namespaced: boolean) => ({
  group: '',
  version: 'v1',
  plural,
  kind,
  namespaced,
});

/** Typed clients of one identity. */
function clientsOf(kc: KubeConfig) {
  return {
    clusters: new ResourceClient<Cluster>(kc, clusterKind),
    leases: new ResourceClient<Lease>(kc, LEASE_RESOURCE),
    works: new ResourceClient<Work>(kc, workKind),
    events: new ResourceClient<CoreEvent>(kc, CORE_EVENT_RESOURCE),
    secrets: new ResourceClient<Secret>(kc, core('secrets', 'Secret', true)),
    namespaces: new ResourceClient<Namespace>(kc, core('namespaces', 'Namespace', false)),
    configMaps: new ResourceClient<ConfigMap>(kc, core('configmaps', 'ConfigMap', true)),
    bindings: new ResourceClient<KubeObject & { roleRef: object; subjects: object[] }>(kc, {
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      plural: 'clusterrolebindings',
      kind: 'ClusterRoleBinding',
      namespaced: false,
    }),
  };
}
type Clients = ReturnType<typeof clientsOf>;

/** Which fence answered: the request went through, RBAC refused it, or the admission policy did. */
type Verdict = 'allowed' | 'rbac' | 'policy' | `other: ${string}`;
async function verdict(request: () => Promise<unknown>): Promise<Verdict> {
  try {
    await request();
    return 'allowed';
  } catch (err: unknown) {
    if (!(err instanceof KubeError)) throw err;
    if (err.status === 403 && err.message.includes('karmada-failover-agent-own-objects')) return 'policy';
    if (err.status === 403 && / cannot /.test(err.message)) return 'rbac';
    return `other: ${String(err.status)} ${err.message}`;
  }
}

/** Each request with the verdict it got, for one expect that names every miss. */
async function verdicts(requests: Record<string, () => Promise<unknown>>): Promise<Record<string, Verdict>> {
  const out: Record<string, Verdict> = {};
  for (const [what, request] of Object.entries(requests)) out[what] = await verdict(request);
  return out;
}

const lease = (namespace: string, name: string): Lease => ({
  metadata: { name, namespace },
  spec: { holderIdentity: name, leaseDurationSeconds: 40 },
});
const secret = (namespace: string, name: string): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace },
  data: { token: Buffer.from('forged').toString('base64') },
});
const event = (namespace: string, name: string, about: CoreEvent['involvedObject']): CoreEvent => ({
  metadata: { name, namespace },
  involvedObject: about,
  reason: 'Test',
  message: 'written by a member agent',
  type: 'Normal',
  count: 1,
});
const clusterRef = (name: string, namespace?: string): CoreEvent['involvedObject'] => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  name,
  ...(namespace === undefined ? {} : { namespace }),
});
const workRef = (namespace: string, name: string): CoreEvent['involvedObject'] => ({
  apiVersion: 'work.karmada.io/v1alpha1',
  kind: 'Work',
  name,
  namespace,
});

/** A client of the certificate the harness issues for `user` in `groups`. */
async function identity(user: string, groups: readonly string[]): Promise<KubeConfig> {
  return loadKubeConfig({ path: await cp.userKubeconfig(user, groups) });
}

let cp: LocalCluster;
let admin: Clients;
let agent1: Clients;
let evil: Clients;

beforeAll(async () => {
  cp = await startControlPlane();
  admin = clientsOf(cp.kubeConfig());
  await admin.namespaces.create({ metadata: { name: 'karmada-system' } });
  await applyAgentAccess(cp, ['member1', 'member2'], { admissionPolicy: false });
  await admin.clusters.create({
    metadata: { name: 'member2' },
    spec: {
      syncMode: 'Pull',
      id: 'uid-2',
      taints: [QUARANTINE],
      secretRef: { namespace: 'karmada-cluster', name: 'member2' },
    },
  });
  await admin.leases.create(lease('karmada-cluster', 'member2'));
  for (const ns of [ES1, ES2]) {
    await admin.works.create({ metadata: { name: 'web', namespace: ns }, spec: {} });
  }
  agent1 = clientsOf(loadKubeConfig({ path: await agentKubeconfig(cp, 'member1') }));
  // A certificate signed for the agent group under a name that is not an agent's.
  evil = clientsOf(await identity('evil-member', [agentIdentity.group]));
});

afterAll(async () => {
  await (cp as LocalCluster | undefined)?.destroy();
});

describe('per-cluster RBAC alone (no admission policy)', () => {
  it("already denies member1's agent every write to member2's objects by name", async () => {
    const member2 = await admin.clusters.get('member2');
    const work2 = await admin.works.get(`${ES2}/web`);
    const lease2 = await admin.leases.get('karmada-cluster/member2');
    expect(
      await verdicts({
        'replace Cluster member2': () =>
          agent1.clusters.replace({ ...member2, spec: { ...member2.spec, taints: [] } }),
        'Ready=False on member2': () =>
          agent1.clusters.replaceStatus({
            ...member2,
            status: { conditions: [{ type: 'Ready', status: 'False', reason: 'X', message: '' }] },
          }),
        'delete Cluster member2': () => agent1.clusters.delete('member2'),
        'update Lease karmada-cluster/member2': () => agent1.leases.replace(lease2),
        'apply Secret karmada-cluster/member2': () =>
          agent1.secrets.apply(secret('karmada-cluster', 'member2'), { fieldManager: 'agent' }),
        'update a Work of karmada-es-member2': () =>
          agent1.works.replace({ ...work2, metadata: { ...work2.metadata, finalizers: ['x/y'] } }),
        'create an Event in karmada-es-member2': () =>
          agent1.events.create(event(ES2, 'e1', workRef(ES2, 'web'))),
        'read its own Secret': () => agent1.secrets.get('karmada-cluster/member1'),
        'read namespace karmada-es-member2': () => agent1.namespaces.get(ES2),
        'create a Secret in kube-system': () => agent1.secrets.create(secret('kube-system', 'x')),
      }),
    ).toEqual({
      'replace Cluster member2': 'rbac',
      'Ready=False on member2': 'rbac',
      'delete Cluster member2': 'rbac',
      'update Lease karmada-cluster/member2': 'rbac',
      'apply Secret karmada-cluster/member2': 'rbac',
      'update a Work of karmada-es-member2': 'rbac',
      'create an Event in karmada-es-member2': 'rbac',
      'read its own Secret': 'rbac',
      'read namespace karmada-es-member2': 'rbac',
      'create a Secret in kube-system': 'rbac',
    });
    // Its own heartbeat goes through on RBAC alone.
    expect(await verdict(() => agent1.leases.create(lease('karmada-cluster', 'member1')))).toBe('allowed');
    expect((await admin.clusters.get('member2')).spec.taints).toEqual([QUARANTINE]);
  });

  it('gives a certificate mis-issued into the group nothing that exists', async () => {
    const member2 = await admin.clusters.get('member2');
    expect(
      await verdicts({
        'replace Cluster member2': () => evil.clusters.replace(member2),
        'Ready=False on member2': () => evil.clusters.replaceStatus({ ...member2, status: {} }),
        'create a Secret in kube-system': () => evil.secrets.create(secret('kube-system', 'evil')),
        'create a Lease': () => evil.leases.create(lease('karmada-cluster', 'evil-member')),
        'create an Event': () => evil.events.create(event(ES2, 'e2', workRef(ES2, 'web'))),
      }),
    ).toEqual({
      'replace Cluster member2': 'rbac',
      'Ready=False on member2': 'rbac',
      'create a Secret in kube-system': 'rbac',
      'create a Lease': 'rbac',
      'create an Event': 'rbac',
    });
  });
});

describe('with the admission policy', () => {
  beforeAll(async () => {
    await exec(cp.kubectlPath, cp.kubectlArgs('apply', '-f', AGENT_POLICY_FILE));
    // The policy takes a moment to be in force; until then a probe namespace gets created.
    let probe = 0;
    await eventually('the admission policy is in force', async () => {
      const name = `karmada-es-probe${String(probe++)}`;
      const v = await verdict(() => agent1.namespaces.create({ metadata: { name } }));
      if (v === 'allowed') await admin.namespaces.delete(name);
      return v === 'policy';
    });
  });

  it.each([
    ['evil-member', 'evil-member'],
    ['an empty cluster part', 'system:karmada:agent:'],
    ['a cluster part that is no DNS label', 'system:karmada:agent:Member1'],
    ['a cluster part that is a dotted name', 'system:karmada:agent:member1.evil'],
    ['a cluster part starting with a dash', 'system:karmada:agent:-member1'],
  ])('denies a group member named %s even the creates the group role grants', async (_what, user) => {
    const id = clientsOf(await identity(user, ['system:karmada:agents']));
    expect(
      await verdicts({
        'create Cluster member3': () =>
          id.clusters.create({ metadata: { name: 'member3' }, spec: { syncMode: 'Pull' } }),
        'create namespace karmada-es-member3': () =>
          id.namespaces.create({ metadata: { name: 'karmada-es-member3' } }),
      }),
    ).toEqual({ 'create Cluster member3': 'policy', 'create namespace karmada-es-member3': 'policy' });
    const refused = await id.clusters.get('member2').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused, 'get of another Cluster').toBeInstanceOf(KubeError);
    const denied = await id.namespaces
      .create({ metadata: { name: 'karmada-cluster' } })
      .catch((e: unknown) => e);
    expect((denied as Error).message).toContain(`${user} is not a member agent`);
  });

  it('denies the mis-issued certificate every write even with RBAC as broad as cluster-admin', async () => {
    // A binding an operator should never make: the whole agent group is cluster-admin.
    await admin.bindings.create({
      metadata: { name: 'agents-as-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:karmada:agents' }],
    });
    try {
      await eventually(
        'the group reads Secrets',
        async () => (await verdict(() => evil.secrets.list())) === 'allowed',
      );
      const member2 = await admin.clusters.get('member2');
      expect(
        await verdicts({
          'replace Cluster member2': () =>
            evil.clusters.replace({ ...member2, spec: { ...member2.spec, taints: [] } }),
          'Ready=False on member2': () =>
            evil.clusters.replaceStatus({
              ...member2,
              status: { conditions: [{ type: 'Ready', status: 'False', reason: 'X', message: '' }] },
            }),
          'delete Cluster member2': () => evil.clusters.delete('member2'),
          'create a Secret in kube-system': () => evil.secrets.create(secret('kube-system', 'evil')),
          'create namespace evil': () => evil.namespaces.create({ metadata: { name: 'evil' } }),
          'create a Lease': () => evil.leases.create(lease('karmada-cluster', 'evil-member')),
          'create a ConfigMap': () =>
            evil.configMaps.create({ metadata: { name: 'x', namespace: 'default' } }),
          'create a ClusterRoleBinding': () =>
            evil.bindings.create({
              metadata: { name: 'evil' },
              roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
              subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'evil-member' }],
            }),
          // member1's agent is in the same group: the policy keeps it to its own objects.
          "member1's agent replaces Cluster member2": () =>
            agent1.clusters.replace({ ...member2, spec: { ...member2.spec, region: 'x' } }),
          "member1's agent creates a Secret in kube-system": () =>
            agent1.secrets.create(secret('kube-system', 'member1')),
          "member1's agent creates a Work": () =>
            agent1.works.create({ metadata: { name: 'w', namespace: ES1 }, spec: {} }),
        }),
      ).toEqual({
        'replace Cluster member2': 'policy',
        'Ready=False on member2': 'policy',
        'delete Cluster member2': 'policy',
        'create a Secret in kube-system': 'policy',
        'create namespace evil': 'policy',
        'create a Lease': 'policy',
        'create a ConfigMap': 'policy',
        'create a ClusterRoleBinding': 'policy',
        "member1's agent replaces Cluster member2": 'policy',
        "member1's agent creates a Secret in kube-system": 'policy',
        "member1's agent creates a Work": 'policy',
      });
      const after = await admin.clusters.get('member2');
      expect(after.spec.taints).toEqual([QUARANTINE]);
      expect(after.status?.conditions ?? []).toEqual([]);
      expect(await admin.secrets.find('kube-system/evil')).toBeUndefined();
    } finally {
      await admin.bindings.delete('agents-as-admin');
    }
    await eventually(
      'the group no longer reads Secrets',
      async () => (await verdict(() => evil.secrets.list())) === 'rbac',
    );
  });

  it("lets member1's agent register only without taints, labels or another cluster's secrets", async () => {
    const registration: Cluster = {
      metadata: { name: 'member1' },
      spec: {
        syncMode: 'Pull',
        id: 'uid-1',
        apiEndpoint: 'https://10.0.0.1:6443',
        insecureSkipTLSVerification: false,
        region: 'eu',
        ...OWN_REFS,
      },
    };
    expect(
      await verdicts({
        'with a taint': () =>
          agent1.clusters.create({ ...registration, spec: { ...registration.spec, taints: [QUARANTINE] } }),
        "with member2's secretRef": () =>
          agent1.clusters.create({
            ...registration,
            spec: { ...registration.spec, secretRef: { namespace: 'karmada-cluster', name: 'member2' } },
          }),
        'with an impersonatorSecretRef in kube-system': () =>
          agent1.clusters.create({
            ...registration,
            spec: {
              ...registration.spec,
              impersonatorSecretRef: { namespace: 'kube-system', name: 'member1-impersonator' },
            },
          }),
        'with a label': () =>
          agent1.clusters.create({
            ...registration,
            metadata: { name: 'member1', labels: { tier: 'gold' } },
          }),
        'under the name member3': () =>
          agent1.clusters.create({ ...registration, metadata: { name: 'member3' } }),
      }),
    ).toEqual({
      'with a taint': 'policy',
      "with member2's secretRef": 'policy',
      'with an impersonatorSecretRef in kube-system': 'policy',
      'with a label': 'policy',
      'under the name member3': 'policy',
    });
    expect(await verdict(() => agent1.clusters.create(registration))).toBe('allowed');
  });

  it("keeps an operator's taint, labels and secret references from member1's agent", async () => {
    await admin.clusters.mergePatch('member1', {
      metadata: { labels: { tier: 'gold' } },
      spec: { taints: [QUARANTINE] },
    });
    const current = await admin.clusters.get('member1');
    const withSpec = (spec: Partial<Cluster['spec']>): Cluster => ({
      ...current,
      spec: { ...current.spec, ...spec },
    });
    expect(
      await verdicts({
        'drop the taint': () => agent1.clusters.replace(withSpec({ taints: [] })),
        'add a taint': () =>
          agent1.clusters.replace(withSpec({ taints: [QUARANTINE, { key: 'x', effect: 'NoSchedule' }] })),
        "point secretRef at member2's": () =>
          agent1.clusters.replace(withSpec({ secretRef: { namespace: 'karmada-cluster', name: 'member2' } })),
        "point impersonatorSecretRef at member2's": () =>
          agent1.clusters.replace(
            withSpec({
              impersonatorSecretRef: { namespace: 'karmada-cluster', name: 'member2-impersonator' },
            }),
          ),
        'set resourceModels': () =>
          agent1.clusters.replace(
            withSpec({ resourceModels: [{ grade: 0, ranges: [{ name: 'cpu', min: '0', max: '1' }] }] }),
          ),
        'change a label': () =>
          agent1.clusters.replace({
            ...current,
            metadata: { ...current.metadata, labels: { tier: 'bronze' } },
          }),
        'delete its Cluster': () => agent1.clusters.delete('member1'),
      }),
    ).toEqual({
      'drop the taint': 'policy',
      'add a taint': 'policy',
      "point secretRef at member2's": 'policy',
      "point impersonatorSecretRef at member2's": 'policy',
      'set resourceModels': 'policy',
      'change a label': 'policy',
      'delete its Cluster': 'rbac',
    });
    // What registration owns it may change; the rest stays.
    expect(await verdict(() => agent1.clusters.replace(withSpec({ region: 'us', zones: ['a'] })))).toBe(
      'allowed',
    );
    const updated = await admin.clusters.get('member1');
    expect(updated.spec).toMatchObject({ region: 'us', zones: ['a'], taints: [QUARANTINE], ...OWN_REFS });
    expect(updated.metadata.labels).toEqual({ tier: 'gold' });

    // A reference an operator pointed elsewhere is never changed, nor cleared, by the agent.
    const shared = { namespace: 'kube-system', name: 'shared' };
    await admin.clusters.mergePatch('member1', { spec: { secretRef: shared } });
    const pointed = await admin.clusters.get('member1');
    expect(
      await verdicts({
        'set it back to its own': () =>
          agent1.clusters.replace({ ...pointed, spec: { ...pointed.spec, ...OWN_REFS } }),
        'clear it': () =>
          agent1.clusters.replace({
            ...pointed,
            spec: withoutKeys(pointed.spec, ['secretRef']) as Cluster['spec'],
          }),
        'keep it, change the region': () =>
          agent1.clusters.replace({ ...pointed, spec: { ...pointed.spec, region: 'ap' } }),
      }),
    ).toEqual({
      'set it back to its own': 'policy',
      'clear it': 'policy',
      'keep it, change the region': 'allowed',
    });
    expect((await admin.clusters.get('member1')).spec.secretRef).toEqual(shared);
  });

  it("lets member1's agent renew its Leases, write its status, Works, Secrets and Events — its own only", async () => {
    const heartbeat = await agent1.leases.get('karmada-cluster/member1');
    const member1 = await agent1.clusters.get('member1');
    const work1 = await agent1.works.get(`${ES1}/web`);
    expect(
      await verdicts({
        'renew karmada-cluster/member1': () =>
          agent1.leases.replace({
            ...heartbeat,
            spec: { ...heartbeat.spec, renewTime: '2026-01-01T00:00:00.000000Z' },
          }),
        'create karmada-system/karmada-agent-member1': () =>
          agent1.leases.create(lease('karmada-system', 'karmada-agent-member1')),
        'Ready=True on member1': () =>
          agent1.clusters.replaceStatus({
            ...member1,
            status: { conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: '' }] },
          }),
        'finalizer on its Work': () =>
          agent1.works.replace({
            ...work1,
            metadata: { ...work1.metadata, finalizers: ['karmada.io/execution-controller'] },
          }),
        'apply karmada-cluster/member1': () =>
          agent1.secrets.apply(secret('karmada-cluster', 'member1'), { fieldManager: 'agent' }),
        'apply karmada-cluster/member1-impersonator': () =>
          agent1.secrets.apply(secret('karmada-cluster', 'member1-impersonator'), { fieldManager: 'agent' }),
        'Event about its Work': () => agent1.events.create(event(ES1, 'web.1', workRef(ES1, 'web'))),
        'Event about Cluster member1': () =>
          agent1.events.create(event(ES1, 'member1.1', clusterRef('member1', ES1))),
        'bump the count of its Event': () => agent1.events.mergePatch(`${ES1}/web.1`, { count: 2 }),
      }),
    ).toEqual({
      'renew karmada-cluster/member1': 'allowed',
      'create karmada-system/karmada-agent-member1': 'allowed',
      'Ready=True on member1': 'allowed',
      'finalizer on its Work': 'allowed',
      'apply karmada-cluster/member1': 'allowed',
      'apply karmada-cluster/member1-impersonator': 'allowed',
      'Event about its Work': 'allowed',
      'Event about Cluster member1': 'allowed',
      'bump the count of its Event': 'allowed',
    });
    const work1Now = await agent1.works.get(`${ES1}/web`);
    expect(
      await verdict(() =>
        agent1.works.replaceStatus({
          ...work1Now,
          status: {
            conditions: [
              {
                type: 'Applied',
                status: 'True',
                reason: 'AppliedSuccessful',
                message: '',
                lastTransitionTime: '2026-01-01T00:00:00Z',
              },
            ],
          },
        }),
      ),
    ).toBe('allowed');

    expect(
      await verdicts({
        'create Lease karmada-cluster/member3': () =>
          agent1.leases.create(lease('karmada-cluster', 'member3')),
        'create Lease karmada-system/karmada-agent-member2': () =>
          agent1.leases.create(lease('karmada-system', 'karmada-agent-member2')),
        'create Secret karmada-cluster/member2-impersonator': () =>
          agent1.secrets.create(secret('karmada-cluster', 'member2-impersonator')),
        'Event in its namespace about Cluster member2': () =>
          agent1.events.create(event(ES1, 'member2.1', clusterRef('member2', ES1))),
        'Event about Cluster member2 in default': () =>
          agent1.events.create(event('default', 'member2.2', clusterRef('member2'))),
      }),
    ).toEqual({
      'create Lease karmada-cluster/member3': 'policy',
      'create Lease karmada-system/karmada-agent-member2': 'policy',
      'create Secret karmada-cluster/member2-impersonator': 'policy',
      'Event in its namespace about Cluster member2': 'policy',
      'Event about Cluster member2 in default': 'rbac',
    });
    const events = (await admin.events.list({})).items.map(
      (e) => `${e.metadata?.namespace ?? ''}/${e.involvedObject.name}`,
    );
    expect(events.filter((e) => e.endsWith('/member2'))).toEqual([]);
  });
});

describe('the RBAC an operator applies', () => {
  it('is what `karmada-failover-agent rbac` prints, already applied here', async () => {
    const { stdout } = await exec(process.execPath, [AGENT_MAIN, 'rbac', '--cluster-name', 'member1']);
    expect(stdout).toBe(renderAgentAccess('member1'));
    const child = exec(cp.kubectlPath, cp.kubectlArgs('apply', '-f', '-'));
    child.child.stdin?.end(stdout);
    const applied = (await child).stdout.trim().split('\n');
    expect(applied).toHaveLength(agentAccessObjects('member1').length);
    for (const line of applied) expect(line).toMatch(/ unchanged$/);
  });

  it('refuses a name that cannot be a cluster (exit 2)', async () => {
    const err = await exec(process.execPath, [AGENT_MAIN, 'rbac', '--cluster-name', 'Member_1']).catch(
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toMatch(/--cluster-name must be a DNS label/);
  });

  it('leaves to the group only what RBAC cannot name: list, watch and create', async () => {
    const objects = loadAllYaml(await readFile(AGENT_RBAC_FILE, 'utf8')) as {
      kind: string;
      rules?: { verbs: string[] }[];
    }[];
    const verbs = objects.flatMap((o) => (o.rules ?? []).flatMap((r) => r.verbs));
    expect(verbs.length).toBeGreaterThan(0);
    for (const v of verbs) expect(['list', 'watch', 'create']).toContain(v);
  });
});
