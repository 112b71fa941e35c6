/**
 * `controlplane join` and `unjoin` as an operator runs them (the CLI as a process), against a real
 * control-plane API server and a real member (kube-apiserver, kube-controller-manager for the
 * token). Join makes the Cluster with syncMode Push, its credential Secret and, in the member, a
 * ServiceAccount whose token is exactly the member-access rules: asked as that token, it may read
 * what the status needs and apply the workload kinds, and nothing that changes who may do what.
 * Bad input ends in one line and exit 2 with nothing made; unjoin takes everything back.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKind, type Cluster } from '@kf/api';
import { pushMemberAccess, type Secret } from '@kf/member';
import { KubeError, ResourceClient, type KubeObject, type ResourceDescriptor } from '@kf/kube';
import {
  CONTROLPLANE_MAIN,
  bearerKubeConfig,
  canI,
  startFederation,
  v1Resource,
  whoAmI,
  type LocalCluster,
  type LocalFederation,
} from '@kf/testing';

const run = promisify(execFile);

const NAMESPACES = v1Resource('', 'namespaces', 'Namespace', false);
const SECRETS = v1Resource('', 'secrets', 'Secret', true);
const SERVICE_ACCOUNTS = v1Resource('', 'serviceaccounts', 'ServiceAccount', true);
const CLUSTER_ROLES = v1Resource('rbac.authorization.k8s.io', 'clusterroles', 'ClusterRole', false);

let fed: LocalFederation;
let member: LocalCluster;
let deadMemberKubeconfig: string;

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `controlplane <args>` against the federation's control plane. */
async function cli(...args: string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [CONTROLPLANE_MAIN, ...args, `--kubeconfig=${fed.controlPlane.kubeconfigPath}`],
      { env: { PATH: process.env.PATH ?? '' }, timeout: 120_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (err: unknown) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const clusters = () => new ResourceClient<Cluster>(fed.controlPlane.kubeConfig(), clusterKind);
const inMember = (r: ResourceDescriptor) => new ResourceClient<KubeObject>(member.kubeConfig(), r);

function expectOneLine(out: Outcome, line: RegExp): void {
  const lines = out.stderr.trim().split('\n');
  expect(lines, out.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(line);
}

beforeAll(async () => {
  fed = await startFederation({ members: 1, member: { nodes: 1 } });
  member = fed.members[0]!;
  deadMemberKubeconfig = join(fed.runDir, 'dead-member.kubeconfig');
  await writeFile(
    deadMemberKubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      "clusters:\n- name: dead\n  cluster: {server: 'https://127.0.0.1:1', insecure-skip-tls-verify: true}",
      'users:\n- name: u\n  user: {token: t}',
      'contexts:\n- name: dead\n  context: {cluster: dead, user: u}',
      'current-context: dead',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await (fed as LocalFederation | undefined)?.destroy();
});

describe('controlplane join', () => {
  it('makes a Push Cluster, its credential Secret and a member token of the member-access rules', async () => {
    const out = await cli('join', 'pushed', `--cluster-kubeconfig=${member.kubeconfigPath}`);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout.trim()).toBe('cluster pushed joined in Push mode (created)');

    const kubeSystem = await inMember(NAMESPACES).get('kube-system');
    const cluster = await clusters().get('pushed');
    expect(cluster.spec).toMatchObject({
      syncMode: 'Push',
      id: kubeSystem.metadata?.uid,
      apiEndpoint: member.server.replace(/\/+$/, ''),
      insecureSkipTLSVerification: false,
      secretRef: { namespace: 'karmada-cluster', name: 'pushed' },
    });
    const secret = await new ResourceClient<Secret>(fed.controlPlane.kubeConfig(), SECRETS).get(
      'karmada-cluster/pushed',
    );
    expect(secret.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Cluster',
      name: 'pushed',
      uid: cluster.metadata.uid,
    });
    const token = Buffer.from(secret.data?.token ?? '', 'base64').toString();
    expect(Buffer.from(secret.data?.caBundle ?? '', 'base64').toString()).toMatch(/BEGIN CERTIFICATE/);

    // What the control plane will use for this Push cluster reaches the member, TLS verified
    // against the caBundle; a CA that is not the member's is refused.
    const access = pushMemberAccess(cluster, secret);
    expect(access.kind).toBe('ready');
    if (access.kind !== 'ready') return;
    expect(
      (await new ResourceClient<KubeObject>(access.kubeConfig, NAMESPACES).get('kube-system')).metadata?.uid,
    ).toBe(kubeSystem.metadata?.uid);
    // A certificate that signed nothing the member serves (its admin client certificate).
    const otherCa = (await readFile(member.adminTls.certFile)).toString('base64');
    const wrongCa = pushMemberAccess(cluster, { ...secret, data: { ...secret.data, caBundle: otherCa } });
    if (wrongCa.kind !== 'ready') throw new Error(wrongCa.problem);
    await expect(
      new ResourceClient<KubeObject>(wrongCa.kubeConfig, NAMESPACES).get('kube-system'),
    ).rejects.toThrow();

    const asPushed = bearerKubeConfig(member, token);
    expect((await whoAmI(asPushed)).username).toBe('system:serviceaccount:karmada-cluster:karmada-pushed');
    // What the status and the Works need.
    expect(await canI(asPushed, 'get', { resource: 'namespaces' })).toBe(true);
    expect(await canI(asPushed, 'list', { resource: 'nodes' })).toBe(true);
    expect(await canI(asPushed, 'watch', { resource: 'pods' })).toBe(true);
    expect(
      await canI(asPushed, 'patch', { group: 'apps', resource: 'deployments', namespace: 'default' }),
    ).toBe(true);
    // Nothing that changes who may do what.
    expect(await canI(asPushed, '*', { group: '*', resource: '*' })).toBe(false);
    expect(
      await canI(asPushed, 'create', { group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' }),
    ).toBe(false);
    expect(await canI(asPushed, 'impersonate', { resource: 'users' })).toBe(false);
    expect(
      await canI(asPushed, 'create', { group: 'apps', resource: 'deployments/scale', namespace: 'default' }),
    ).toBe(false);
  });

  it('joins again without change, and the token still works', async () => {
    const out = await cli('join', 'pushed', `--cluster-kubeconfig=${member.kubeconfigPath}`);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout.trim()).toBe('cluster pushed joined in Push mode (unchanged)');
  });

  it('adds the kinds of --rules, and refuses wildcards in them', async () => {
    const rules = join(fed.runDir, 'rules.yaml');
    await writeFile(
      rules,
      "- apiGroups: ['']\n  resources: [limitranges]\n  verbs: [get, list, watch, create, update, patch, delete]\n",
    );
    const ok = await cli(
      'join',
      'pushed',
      `--cluster-kubeconfig=${member.kubeconfigPath}`,
      `--rules=${rules}`,
    );
    expect(ok.code, ok.stderr).toBe(0);
    const role = await inMember(CLUSTER_ROLES).get('karmada-controller-manager:karmada-pushed');
    expect(JSON.stringify(role)).toContain('limitranges');

    const wild = join(fed.runDir, 'wild.yaml');
    await writeFile(wild, "- apiGroups: ['*']\n  resources: ['*']\n  verbs: ['*']\n");
    const refused = await cli(
      'join',
      'other',
      `--cluster-kubeconfig=${member.kubeconfigPath}`,
      `--rules=${wild}`,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--rules: rule 1: no wildcard in apiGroups/);
    expect(await clusters().find('other')).toBeUndefined();
  });

  it.each<[string, () => string[], RegExp]>([
    [
      'a member already joined under another name',
      () => ['join', 'again', `--cluster-kubeconfig=${member.kubeconfigPath}`],
      /already registered as cluster pushed/,
    ],
    [
      'an unreachable member',
      () => ['join', 'far', `--cluster-kubeconfig=${deadMemberKubeconfig}`],
      /cannot read the member's kube-system namespace at https:\/\/127\.0\.0\.1:1/,
    ],
    [
      'a context the kubeconfig lacks',
      () => ['join', 'ctx', `--cluster-kubeconfig=${member.kubeconfigPath}`, '--cluster-context=nowhere'],
      /has no context nowhere/,
    ],
    [
      'a name that is no DNS label',
      () => ['join', 'Bad_Name', `--cluster-kubeconfig=${member.kubeconfigPath}`],
      /cluster name must be a DNS label/,
    ],
    ['no member kubeconfig', () => ['join', 'bare'], /--cluster-kubeconfig is required/],
  ])('refuses %s: one line, exit 2, nothing made', async (_name, args, line) => {
    const out = await cli(...args());
    expectOneLine(out, line);
    expect(out.code).toBe(2);
    const name = args()[1] ?? '';
    expect(await clusters().find(name)).toBeUndefined();
    expect(await inMember(SERVICE_ACCOUNTS).find(`karmada-cluster/karmada-${name}`)).toBeUndefined();
  });

  it('refuses a name a Pull cluster holds, leaving it and the member as they are', async () => {
    await clusters().create({
      apiVersion: clusterKind.apiVersion,
      kind: clusterKind.kind,
      metadata: { name: 'pulled' },
      spec: { syncMode: 'Pull' },
    });
    const out = await cli('join', 'pulled', `--cluster-kubeconfig=${member.kubeconfigPath}`);
    expectOneLine(out, /cluster pulled is registered in Pull mode/);
    expect(out.code).toBe(2);
    expect((await clusters().get('pulled')).spec.syncMode).toBe('Pull');
    expect(await inMember(SERVICE_ACCOUNTS).find('karmada-cluster/karmada-pulled')).toBeUndefined();
    const unjoin = await cli('unjoin', 'pulled');
    expectOneLine(unjoin, /cluster pulled is in Pull mode/);
    expect(unjoin.code).toBe(2);
  });
});

describe('controlplane unjoin', () => {
  it('removes the Cluster, its Secret and the member access; the token no longer works', async () => {
    const secret = await new ResourceClient<Secret>(fed.controlPlane.kubeConfig(), SECRETS).get(
      'karmada-cluster/pushed',
    );
    const asPushed = bearerKubeConfig(member, Buffer.from(secret.data?.token ?? '', 'base64').toString());

    const out = await cli('unjoin', 'pushed', `--cluster-kubeconfig=${member.kubeconfigPath}`);
    expect(out.code, out.stderr).toBe(0);
    // The credential Secret is owned by the Cluster: the garbage collector may take it first.
    expect(
      out.stdout
        .trim()
        .split('\n')
        .filter((line) => line !== 'Secret karmada-cluster/pushed'),
    ).toEqual([
      'Cluster pushed',
      'member ClusterRoleBinding/karmada-controller-manager:karmada-pushed',
      'member ClusterRole/karmada-controller-manager:karmada-pushed',
      'member Secret/karmada-cluster/karmada-pushed',
      'member ServiceAccount/karmada-cluster/karmada-pushed',
    ]);
    expect(await clusters().find('pushed')).toBeUndefined();
    expect(
      await new ResourceClient<Secret>(fed.controlPlane.kubeConfig(), SECRETS).find('karmada-cluster/pushed'),
    ).toBeUndefined();
    await expect(new ResourceClient<KubeObject>(asPushed, NAMESPACES).get('kube-system')).rejects.toSatisfy(
      // 401 once the API server's token cache has let go of it; 403 meanwhile (no role any more).
      (e: unknown) => e instanceof KubeError && (e.status === 401 || e.status === 403),
    );
  });

  it('says so, exit 2, for a cluster that is not there', async () => {
    const out = await cli('unjoin', 'pushed');
    expectOneLine(out, /no Cluster pushed/);
    expect(out.code).toBe(2);
  });
});
