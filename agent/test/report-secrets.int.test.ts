/**
 * `--report-secrets` against a real local federation, each agent with least privilege on both
 * sides (deploy/agent and its per-cluster RBAC in the control plane; in the member, the RBAC the
 * member chart renders, used through a token of the chart's own agent ServiceAccount). member2's
 * agent runs with the defaults: it creates nothing, sets no reference, and no Secret it can read
 * holds a token that may do everything. member1's agent runs with KubeCredentials,KubeImpersonator:
 * it reports a working member token and the impersonator token, sets the Cluster's references,
 * keeps the Secrets current across a restart without duplicating anything, cannot write member2's
 * Secrets, and, as the chart README warns, can read a token of every permission and bind
 * cluster-admin to itself with it. With a credential namespace the control plane refuses, an agent
 * exits before writing anything.
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
  canI,
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
} from '@kf/member';
import { startAgent, type AgentProcess } from './agent-process.ts';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const MEMBER_CHART = join(ROOT, 'charts', 'karmada-failover-member');
/** The agent's ServiceAccount in the member, as the member chart names it with `fullnameOverride=kf`. */
const CHART_AGENT_SA = 'kf-agent';
const CHART_NS = 'karmada-system';
const NS = 'karmada-cluster';
const REPORT_BOTH = 'KubeCredentials,KubeImpersonator';

let fed: LocalFederation;
let agent: AgentProcess | undefined;
let defaultsAgent: AgentProcess | undefined;
let agentKarmadaKubeconfig: string;
/** member1's agent, with agent.reportSecrets={KubeCredentials,KubeImpersonator}. */
let agentMemberKubeconfig: string;
/** member2's agent, with the chart's defaults. */
let defaultsMemberKubeconfig: string;
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

/**
 * Applies the member chart's agent ServiceAccount, ClusterRole and binding (rendered with `values`)
 * to a member and returns the path of a kubeconfig holding a token of that ServiceAccount.
 */
async function chartAgentKubeconfig(member: string, ...values: string[]): Promise<string> {
  const helmDir =
    (await run('bash', [join(ROOT, 'scripts', 'build-helm.sh')])).trim().split('\n').at(-1) ?? '';
  const rendered = await run(join(helmDir, 'helm'), [
    'template',
    'kf',
    MEMBER_CHART,
    '--namespace',
    CHART_NS,
    '--kube-version',
    '1.36.3',
    ...[
      'fullnameOverride=kf',
      `clusterName=${member}`,
      'karmadaKubeconfig.kubeconfig=unused',
      ...values,
    ].flatMap((v) => ['--set', v]),
    '--show-only',
    'templates/agent-rbac.yaml',
  ]);
  const file = join(fed.runDir, `${member}-agent-rbac.yaml`);
  await writeFile(file, rendered);
  const m = fed.member(member);
  await m
    .kubeConfig()
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: CHART_NS } } });
  await run(m.kubectlPath, m.kubectlArgs('apply', '-f', file));
  const token = (
    await run(
      m.kubectlPath,
      m.kubectlArgs('create', 'token', CHART_AGENT_SA, '-n', CHART_NS, '--duration=1h'),
    )
  ).trim();
  const kubeconfig = join(fed.runDir, `${member}-agent-token.kubeconfig`);
  // JSON is YAML: no quoting to get wrong.
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: member,
          cluster: { server: m.server, 'certificate-authority-data': b64(await memberCa(member)) },
        },
      ],
      users: [{ name: CHART_AGENT_SA, user: { token } }],
      contexts: [{ name: CHART_AGENT_SA, context: { cluster: member, user: CHART_AGENT_SA } }],
      'current-context': CHART_AGENT_SA,
    }),
  );
  return kubeconfig;
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
    flags: [`--kubeconfig=${agentMemberKubeconfig}`, `--report-secrets=${REPORT_BOTH}`],
  });

/** `kubectl auth can-i '*' '*'` asked by the holder of `kc` itself; a token the server rejects can do nothing. */
async function canDoEverything(kc: KubeConfig): Promise<boolean> {
  try {
    return await canI(kc, '*', { group: '*', resource: '*' });
  } catch (err: unknown) {
    if (err instanceof KubeError && err.code === 'Unauthorized') return false;
    throw err;
  }
}

/**
 * Every Secret that `reader` can list, in every namespace, whose `token` may do everything in the
 * member, as `namespace/name`: each token asks the member's API server itself.
 */
async function secretsWithAllPowerfulTokens(member: string, reader: KubeConfig): Promise<string[]> {
  const ca = await memberCa(member);
  const found: string[] = [];
  for (const secret of (await new ResourceClient<Secret>(reader, SECRET_RESOURCE).list()).items) {
    const token = unb64(secret.data?.token);
    if (token === '') continue;
    if (await canDoEverything(tokenKubeConfig(member, token, ca)))
      found.push(`${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}`);
  }
  return found.sort();
}

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
  agentMemberKubeconfig = await chartAgentKubeconfig('member1', `agent.reportSecrets={${REPORT_BOTH}}`);
  defaultsMemberKubeconfig = await chartAgentKubeconfig('member2');
  agent = await startMember1Agent('member1');
  defaultsAgent = await startAgent({
    cluster: 'member2',
    karmadaKubeconfig: await agentKubeconfig(fed.controlPlane, 'member2'),
    member: fed.member('member2'),
    runDir: fed.runDir,
    flags: [`--kubeconfig=${defaultsMemberKubeconfig}`],
  });
});

afterAll(async () => {
  await agent?.stop();
  await defaultsAgent?.stop();
  await (fed as LocalFederation | undefined)?.destroy();
});

describe(`--report-secrets=${REPORT_BOTH}`, () => {
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

  it('lets the agent read a token that may do everything, and bind cluster-admin to itself with it (the warning of the chart README)', async () => {
    const asAgent = loadKubeConfig({ path: agentMemberKubeconfig });
    expect(await canDoEverything(asAgent)).toBe(false);
    expect(await secretsWithAllPowerfulTokens('member1', asAgent)).toEqual([`${NS}/karmada-member1`]);
    const token = unb64(
      (await new ResourceClient<Secret>(asAgent, SECRET_RESOURCE).get(`${NS}/karmada-member1`)).data?.token,
    );
    const asCredentials = tokenKubeConfig('member1', token, await memberCa('member1'));
    const binding = 'agent-took-the-member';
    await new ResourceClient<KubeObject>(asCredentials, CLUSTER_ROLE_BINDING_RESOURCE).create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: binding },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: CHART_AGENT_SA, namespace: CHART_NS }],
    } as KubeObject);
    try {
      await eventually('the agent holds cluster-admin', () => canDoEverything(asAgent));
    } finally {
      await memberClient<KubeObject>('member1', CLUSTER_ROLE_BINDING_RESOURCE).delete(binding);
    }
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

describe("the defaults (--report-secrets=None), under the chart's default RBAC", () => {
  it('create no member objects and no secrets, and set no reference', async () => {
    const registered = defaultsAgent;
    await eventually(
      'member2 registered',
      async () => registered !== undefined && readyz(registered),
      90_000,
    );
    const spec = (await clusters.get('member2')).spec;
    expect(spec.secretRef).toBeUndefined();
    expect(spec.impersonatorSecretRef).toBeUndefined();
    for (const name of ['member2', 'member2-impersonator']) {
      expect(await cpSecrets.find(`${NS}/${name}`)).toBeUndefined();
    }
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
    expect(await registered?.logs()).not.toMatch(
      /credential secret reported|member credential object created/,
    );
  });

  it('leave no Secret the agent can read holding a token that may do everything', async () => {
    const registered = defaultsAgent;
    await eventually(
      'member2 registered',
      async () => registered !== undefined && readyz(registered),
      90_000,
    );
    const asAgent = loadKubeConfig({ path: defaultsMemberKubeconfig });
    // It does read every Secret of its member (Works carry Secrets): none holds such a token.
    expect(await secretsWithAllPowerfulTokens('member2', asAgent)).toEqual([]);
    expect(await canDoEverything(asAgent)).toBe(false);
  });
});

describe('a credential namespace the control plane refuses', () => {
  it('exits 1 before writing anything, in the member or in the control plane', async () => {
    // member2's agent would keep writing the Cluster's status.
    await defaultsAgent?.stop();
    defaultsAgent = undefined;
    const kubeconfig = await agentKubeconfig(fed.controlPlane, 'member2');
    // Registered by the agent with the defaults above, or by an admin.
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
      flags: ['--cluster-namespace=kube-system', `--report-secrets=${REPORT_BOTH}`],
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
