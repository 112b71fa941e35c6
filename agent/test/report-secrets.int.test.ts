/**
 * `--report-secrets` against a real local federation: the agent of member1 runs with least
 * privilege on both sides (deploy/agent and its per-cluster RBAC in the control plane; in the
 * member, the RBAC the member chart renders for its agent), reports a working member token and the
 * impersonator token, sets the Cluster's references, keeps the Secrets current across a restart
 * without duplicating anything, and cannot write member2's Secrets; with `None`, member2's agent
 * creates nothing; with a credential namespace the control plane refuses, member2's agent exits
 * before writing anything.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ApisApi, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKind, type Cluster } from '@kf/api';
import { KubeError, ResourceClient, loadKubeConfig, type KubeObject } from '@kf/kube';
import {
  agentKubeconfig,
  applyAgentAccess,
  eventually,
  startFederation,
  type LocalFederation,
} from '@kf/testing';
import {
  CLUSTER_ROLE_BINDING_RESOURCE,
  CLUSTER_ROLE_RESOURCE,
  SECRET_RESOURCE,
  SERVICE_ACCOUNT_RESOURCE,
  type Secret,
} from '../src/registration/credentials-plan.ts';
import { startAgent, type AgentProcess } from './agent-process.ts';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const MEMBER_CHART = join(ROOT, 'charts', 'karmada-failover-member');
/**
 * The agent's ServiceAccount in the member, as the member chart names it with `fullnameOverride=kf`
 * (a certificate's common name holds at most 64 characters).
 */
const CHART_AGENT_USER = 'system:serviceaccount:karmada-system:kf-agent';
const NS = 'karmada-cluster';

let fed: LocalFederation;
let agent: AgentProcess | undefined;
let agentKarmadaKubeconfig: string;
let agentMemberKubeconfig: string;
let cpSecrets: ResourceClient<Secret>;
let clusters: ResourceClient<Cluster>;

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const unb64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString();
const memberClient = <T extends KubeObject>(member: string, r: typeof SECRET_RESOURCE) =>
  new ResourceClient<T>(fed.member(member).kubeConfig(), r);

async function run(cmd: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await exec(cmd, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`${cmd} ${args.join(' ')}:\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: error });
  }
}

/** Applies the member chart's agent ServiceAccount, ClusterRole and binding to member1. */
async function applyChartAgentRbac(): Promise<void> {
  const helmDir =
    (await run('bash', [join(ROOT, 'scripts', 'build-helm.sh')])).trim().split('\n').at(-1) ?? '';
  const rendered = await run(join(helmDir, 'helm'), [
    'template',
    'kf',
    MEMBER_CHART,
    '--namespace',
    'karmada-system',
    '--kube-version',
    '1.36.3',
    '--set',
    'fullnameOverride=kf',
    '--set',
    'clusterName=member1',
    '--set',
    'karmadaKubeconfig.kubeconfig=unused',
    '--show-only',
    'templates/agent-rbac.yaml',
  ]);
  const file = join(fed.runDir, 'member1-agent-rbac.yaml');
  await writeFile(file, rendered);
  const member = fed.member('member1');
  await member
    .kubeConfig()
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: 'karmada-system' } } });
  await run(member.kubectlPath, member.kubectlArgs('apply', '-f', file));
}

/** A client of the member's API server authenticated by a bearer token only. */
function tokenKubeConfig(member: string, token: string, caBundle: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: member, server: fed.member(member).server, caData: b64(caBundle) }],
    users: [{ name: 'reported', token }],
    contexts: [{ name: 'reported', cluster: member, user: 'reported' }],
    currentContext: 'reported',
  });
  return kc;
}

interface SelfSubjectReview extends KubeObject {
  readonly status?: { readonly userInfo?: { readonly username?: string } };
}
const whoAmI = async (kc: KubeConfig): Promise<string | undefined> =>
  (
    await new ResourceClient<SelfSubjectReview>(kc, {
      group: 'authentication.k8s.io',
      version: 'v1',
      plural: 'selfsubjectreviews',
      namespaced: false,
      kind: 'SelfSubjectReview',
    }).create({})
  ).status?.userInfo?.username;

const memberCa = async (member: string): Promise<string> => {
  const c = fed.member(member).kubeConfig().getCurrentCluster();
  if (c?.caData !== undefined) return unb64(c.caData);
  return readFile(c?.caFile ?? '', 'utf8');
};

const startMember1Agent = (name: string): Promise<AgentProcess> =>
  startAgent({
    cluster: 'member1',
    name,
    karmadaKubeconfig: agentKarmadaKubeconfig,
    member: fed.member('member1'),
    runDir: fed.runDir,
    flags: [`--kubeconfig=${agentMemberKubeconfig}`],
  });

const readyz = async (a: AgentProcess): Promise<boolean> =>
  (await fetch(a.metricsUrl.replace('/metrics', '/readyz'))).status === 200;

beforeAll(async () => {
  fed = await startFederation({ members: 2, member: { nodes: 1 } });
  const kc = fed.controlPlane.kubeConfig();
  cpSecrets = new ResourceClient<Secret>(kc, SECRET_RESOURCE);
  clusters = new ResourceClient<Cluster>(kc, clusterKind);
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'karmada-system' } } });
  await applyAgentAccess(fed.controlPlane, ['member1', 'member2']);
  agentKarmadaKubeconfig = await agentKubeconfig(fed.controlPlane, 'member1');
  await applyChartAgentRbac();
  agentMemberKubeconfig = await fed
    .member('member1')
    .userKubeconfig(CHART_AGENT_USER, ['system:serviceaccounts', 'system:serviceaccounts:karmada-system']);
  agent = await startMember1Agent('member1');
});

afterAll(async () => {
  await agent?.stop();
  await (fed as LocalFederation | undefined)?.destroy();
});

describe('--report-secrets (default KubeCredentials,KubeImpersonator)', () => {
  it('reports a member token that authenticates, the member CA and the impersonator token; sets both references', async () => {
    await eventually(
      'both references set',
      async () => {
        const spec = (await clusters.find('member1'))?.spec;
        return spec?.secretRef !== undefined && spec.impersonatorSecretRef !== undefined;
      },
      90_000,
    );
    await eventually(
      'both secrets reported',
      async () => (await cpSecrets.list({ namespace: NS })).items.length === 2,
    );
    const cluster = await clusters.get('member1');
    expect(cluster.spec.secretRef).toEqual({ namespace: NS, name: 'member1' });
    expect(cluster.spec.impersonatorSecretRef).toEqual({ namespace: NS, name: 'member1-impersonator' });

    const credentials = await cpSecrets.get(`${NS}/member1`);
    const impersonator = await cpSecrets.get(`${NS}/member1-impersonator`);
    expect(Object.keys(credentials.data ?? {}).sort()).toEqual(['caBundle', 'token']);
    expect(Object.keys(impersonator.data ?? {})).toEqual(['token']);
    const ca = await memberCa('member1');
    expect(unb64(credentials.data?.caBundle)).toBe(ca);
    for (const s of [credentials, impersonator]) {
      expect(s.metadata.labels?.['karmada.io/system']).toBe('true');
      expect(s.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'cluster.karmada.io/v1alpha1',
          kind: 'Cluster',
          name: 'member1',
          uid: cluster.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }

    // The tokens are real: the member's API server authenticates them.
    const asCredentials = tokenKubeConfig('member1', unb64(credentials.data?.token), ca);
    expect(await whoAmI(asCredentials)).toBe(`system:serviceaccount:${NS}:karmada-member1`);
    const asImpersonator = tokenKubeConfig('member1', unb64(impersonator.data?.token), ca);
    expect(await whoAmI(asImpersonator)).toBe(`system:serviceaccount:${NS}:karmada-impersonator`);
    // ... and the credentials reach everything: a cluster-wide list and a non-resource URL.
    const nodes = await new ResourceClient(asCredentials, {
      group: '',
      version: 'v1',
      plural: 'nodes',
      namespaced: false,
    }).list();
    expect(nodes.items).toHaveLength(1);
    const namespaces = await asCredentials.makeApiClient(CoreV1Api).listNamespace();
    expect(namespaces.items.map((n) => n.metadata?.name)).toContain(NS);
    const apis = await asCredentials.makeApiClient(ApisApi).getAPIVersions();
    expect(apis.groups.map((g) => g.name)).toContain('apps');

    // The member side, under the chart's narrowed RBAC (the role and its binding come from the chart).
    const role = await memberClient<KubeObject & { rules: unknown[] }>('member1', CLUSTER_ROLE_RESOURCE).get(
      'karmada-controller-manager:karmada-member1',
    );
    expect(role.rules).toEqual([
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['get'] },
    ]);
    const memberSecrets = (await memberClient<Secret>('member1', SECRET_RESOURCE).list({ namespace: NS }))
      .items;
    expect(memberSecrets.map((s) => [s.metadata.name, s.type]).sort()).toEqual([
      ['karmada-impersonator', 'kubernetes.io/service-account-token'],
      ['karmada-member1', 'kubernetes.io/service-account-token'],
    ]);
  });

  it('a restart duplicates nothing, rewrites nothing current, and brings a stale token back', async () => {
    const uids = async (): Promise<string[]> => {
      const m = (r: typeof SECRET_RESOURCE) => memberClient<KubeObject>('member1', r);
      const all = [
        ...(await m(SERVICE_ACCOUNT_RESOURCE).list({ namespace: NS })).items,
        ...(await m(SECRET_RESOURCE).list({ namespace: NS })).items,
        await m(CLUSTER_ROLE_RESOURCE).get('karmada-controller-manager:karmada-member1'),
        await m(CLUSTER_ROLE_BINDING_RESOURCE).get('karmada-controller-manager:karmada-member1'),
      ];
      return all.map((o) => `${o.kind ?? ''}/${o.metadata?.name ?? ''}/${o.metadata?.uid ?? ''}`).sort();
    };
    const before = await uids();
    // The ServiceAccounts (plus `default`), their two token Secrets, the role and its binding.
    expect(before).toHaveLength(7);
    const token = (await cpSecrets.get(`${NS}/member1`)).data?.token;
    const impersonatorVersion = (await cpSecrets.get(`${NS}/member1-impersonator`)).metadata.resourceVersion;
    await cpSecrets.mergePatch(`${NS}/member1`, { data: { token: b64('stale') } });

    await agent?.stop();
    agent = await startMember1Agent('member1-restarted');
    const restarted = agent;
    await eventually('restarted agent registered', () => readyz(restarted), 90_000);
    expect((await cpSecrets.get(`${NS}/member1`)).data?.token).toBe(token);
    expect((await cpSecrets.get(`${NS}/member1-impersonator`)).metadata.resourceVersion).toBe(
      impersonatorVersion,
    );
    expect(await uids()).toEqual(before);
    expect((await cpSecrets.list({ namespace: NS })).items.map((s) => s.metadata.name).sort()).toEqual([
      'member1',
      'member1-impersonator',
    ]);
    const logs = await restarted.logs();
    expect(logs).toMatch(/credential secret reported/);
    expect(logs).not.toMatch(/member credential object created|member token secret created/);
  });
});

describe('least privilege in the control plane', () => {
  it("answers 403 when member1's agent writes member2's secrets, or reads any secret", async () => {
    const asAgent = new ResourceClient<Secret>(
      loadKubeConfig({ path: agentKarmadaKubeconfig }),
      SECRET_RESOURCE,
    );
    const secret = (namespace: string, name: string): Secret => ({
      metadata: { name, namespace },
      data: { token: b64('forged') },
    });
    const status = (p: Promise<unknown>): Promise<number | undefined> =>
      p.then(
        () => 200,
        (e: unknown) => (e instanceof KubeError ? e.status : undefined),
      );
    // The policy has been in force since member1 registered; wait for it anyway.
    await eventually(
      'the admission policy is in force',
      async () => (await status(asAgent.apply(secret(NS, 'member2'), { fieldManager: 'test' }))) === 403,
    );
    for (const [what, write] of [
      [
        'apply of karmada-cluster/member2-impersonator',
        () => asAgent.apply(secret(NS, 'member2-impersonator'), { fieldManager: 'test' }),
      ],
      ['create of karmada-cluster/member2', () => asAgent.create(secret(NS, 'member2'))],
      ['create of its own name in another namespace', () => asAgent.create(secret('default', 'member1'))],
      ['read of its own secret', () => asAgent.get(`${NS}/member1`)],
      ['delete of its own secret', () => asAgent.delete(`${NS}/member1`)],
    ] as const) {
      expect(await status(write()), what).toBe(403);
    }
    const names = (await cpSecrets.list({})).items.map(
      (s) => `${s.metadata.namespace ?? ''}/${s.metadata.name ?? ''}`,
    );
    expect(names.filter((n) => n.includes('member2') || n === 'default/member1')).toEqual([]);
    // Its own secrets stay writable.
    expect(await status(asAgent.apply(secret(NS, 'member1-impersonator'), { fieldManager: 'test' }))).toBe(
      200,
    );
  });
});

describe('--report-secrets=None', () => {
  it('creates no member objects and no secrets, and sets no reference', async () => {
    const kubeconfig = await agentKubeconfig(fed.controlPlane, 'member2');
    const none = await startAgent({
      cluster: 'member2',
      karmadaKubeconfig: kubeconfig,
      member: fed.member('member2'),
      runDir: fed.runDir,
      flags: ['--report-secrets=None'],
    });
    try {
      await eventually('member2 registered', () => readyz(none), 90_000);
      const spec = (await clusters.get('member2')).spec;
      expect(spec.secretRef).toBeUndefined();
      expect(spec.impersonatorSecretRef).toBeUndefined();
      for (const name of ['member2', 'member2-impersonator']) {
        expect(await cpSecrets.find(`${NS}/${name}`)).toBeUndefined();
      }
      // The agent has the member's admin credentials here: it could have, and did not.
      const err = await fed
        .member('member2')
        .kubeConfig()
        .makeApiClient(CoreV1Api)
        .readNamespace({ name: NS })
        .catch((e: unknown) => e);
      expect((err as { code?: number }).code).toBe(404);
      const roles = await memberClient<KubeObject>('member2', CLUSTER_ROLE_RESOURCE).find(
        'karmada-controller-manager:karmada-member2',
      );
      expect(roles).toBeUndefined();
      expect(await none.logs()).not.toMatch(/credential secret reported|member credential object created/);
    } finally {
      await none.stop();
    }
  });
});

describe('a credential namespace the control plane refuses', () => {
  it('exits 1 before writing anything, in the member or in the control plane', async () => {
    const kubeconfig = await agentKubeconfig(fed.controlPlane, 'member2');
    // Registered by the --report-secrets=None run above, or by an admin.
    const before =
      (await clusters.find('member2')) ??
      (await clusters.create({ metadata: { name: 'member2' }, spec: { syncMode: 'Pull' } }));
    const memberObjects = async (): Promise<string[]> => {
      const m = (r: typeof SECRET_RESOURCE) => memberClient<KubeObject>('member2', r);
      const named = [
        ...(await m(SERVICE_ACCOUNT_RESOURCE).list({ namespace: 'kube-system' })).items,
        ...(await m(SECRET_RESOURCE).list({ namespace: 'kube-system' })).items,
        ...(await m(CLUSTER_ROLE_RESOURCE).list()).items,
      ];
      return named.map((o) => `${o.kind ?? ''}/${o.metadata?.name ?? ''}`).sort();
    };
    const memberBefore = await memberObjects();
    const wrong = await startAgent({
      cluster: 'member2',
      name: 'member2-kube-system',
      karmadaKubeconfig: kubeconfig,
      member: fed.member('member2'),
      runDir: fed.runDir,
      flags: ['--cluster-namespace=kube-system'],
    });
    try {
      expect(await wrong.exited()).toBe(1);
      const after = await clusters.get('member2');
      expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      expect(after.spec.secretRef).toEqual(before.spec.secretRef);
      expect(after.spec.impersonatorSecretRef).toEqual(before.spec.impersonatorSecretRef);
      expect(await memberObjects()).toEqual(memberBefore);
      expect(memberBefore.filter((o) => o.includes('karmada-member2') || o.includes('impersonator'))).toEqual(
        [],
      );
      const cpKubeSystem = (await cpSecrets.list({ namespace: 'kube-system' })).items;
      expect(cpKubeSystem.map((x) => x.metadata.name).filter((n) => n?.startsWith('member2'))).toEqual([]);
      // Refused for the reason the admission policy would give, before it could.
      expect(await wrong.logs()).toMatch(
        /--cluster-namespace=kube-system with --report-secrets: member agents may write credential Secrets only in karmada-cluster/,
      );
    } finally {
      await wrong.stop();
    }
  });
});
