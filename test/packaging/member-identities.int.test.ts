/**
 * The member chart's identities as a member's API server sees them: everything the chart renders
 * is applied to a member of a local federation, and the agent's and the probe's ServiceAccounts
 * act with real tokens from the TokenRequest API (the probe's bound to one of its DaemonSet's
 * pods, so to that pod's node). With the chart's defaults the agent cannot change RBAC (no `bind`,
 * no `escalate`, no RBAC writes) and still does what Works need, which includes reading every
 * Secret and acting as any ServiceAccount whose namespace it writes Secrets to, as the chart's
 * README says; the probe writes only its own Node's ServiceDomainNameResolutionReady condition.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeError, ResourceClient, type KubeObject } from '@kf/kube';
import {
  bearerKubeConfig,
  canI,
  eventually,
  startFederation,
  v1Resource,
  whoAmI,
  type LocalCluster,
  type LocalFederation,
} from '@kf/testing';
import {
  CLUSTER_ROLE_BINDING_RESOURCE,
  CLUSTER_ROLE_RESOURCE,
  SECRET_RESOURCE,
  SERVICE_ACCOUNT_NAME_ANNOTATION,
  SERVICE_ACCOUNT_RESOURCE,
  SERVICE_ACCOUNT_TOKEN_TYPE,
  type Secret,
} from '../../lib/member/src/registration/credentials-plan.ts';
import { markedFenced, withEntry } from '../../lib/member/src/fence/fence-plan.ts';
import { MemberFenceStore } from '../../lib/member/src/fence/fence-store.ts';
import { credentialNames } from '@kf/member';
import { NODE_CONDITION_TYPE, type NodeCondition } from '../../probe/src/health/node-condition.ts';
import { NODE_RESOURCE } from '../../probe/src/node/node-object.ts';
import { memberNodeStore } from '../../probe/src/node/node-status.ts';
import { MEMBER_CHART, helmBinary, renderChart, run } from './helm.ts';

const NS = 'karmada-system';
const AGENT_SA = 'kf-karmada-failover-member-agent';
const PROBE_SA = 'kf-karmada-failover-member-probe';
/** The ClusterRole of every verb behind --report-secrets=KubeCredentials (not rendered by default). */
const CREDENTIALS_ROLE = credentialNames('member1', 'karmada-cluster').clusterRole;

const PODS = v1Resource('', 'pods', 'Pod', true);
const DEPLOYMENTS = v1Resource('apps', 'deployments', 'Deployment', true);
const ROLE_BINDINGS = v1Resource('rbac.authorization.k8s.io', 'rolebindings', 'RoleBinding', true);

interface NodeObject extends KubeObject {
  readonly metadata?: KubeObject['metadata'] & { readonly labels?: Record<string, string> };
  readonly status?: {
    readonly allocatable?: Record<string, string>;
    readonly conditions?: readonly NodeCondition[];
  };
}
interface PodObject extends KubeObject {
  readonly spec?: { readonly nodeName?: string; readonly serviceAccountName?: string };
}

let fed: LocalFederation;
let member: LocalCluster;
let nodeA: string;
let nodeB: string;
/** Clients authenticated by a ServiceAccount token only. */
let asAgent: KubeConfig;
let asProbeOnA: KubeConfig;
let asProbeUnbound: KubeConfig;

const kubectl = (...args: string[]) => run(member.kubectlPath, member.kubectlArgs(...args));

/** A TokenRequest for a ServiceAccount of the chart, bound to a pod when one is named. */
async function token(serviceAccount: string, pod?: string): Promise<string> {
  const bound = pod === undefined ? [] : ['--bound-object-kind=Pod', `--bound-object-name=${pod}`];
  return (await kubectl('create', 'token', serviceAccount, '-n', NS, '--duration=1h', ...bound)).trim();
}

/** The HTTP status a call ends with (200 when it succeeds). */
const status = (p: Promise<unknown>): Promise<number | undefined> =>
  p.then(
    () => 200,
    (e: unknown) => (e instanceof KubeError ? e.status : undefined),
  );

const clusterRoleBinding = (name: string, role: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
  subjects: [{ kind: 'ServiceAccount', name: AGENT_SA, namespace: NS }],
});

beforeAll(async () => {
  fed = await startFederation({ members: 1, member: { nodes: 2 }, installCrds: false });
  member = fed.members[0]!;
  const rendered = await renderChart(
    await helmBinary(),
    MEMBER_CHART,
    'clusterName=member1',
    'karmadaKubeconfig.kubeconfig=unused',
  );
  const file = join(fed.runDir, 'member-chart.yaml');
  await writeFile(file, rendered);
  await kubectl('create', 'namespace', NS);
  await kubectl('apply', '-f', file);

  // The probe's DaemonSet places a pod on every node; their tokens carry those nodes.
  const pods = new ResourceClient<PodObject>(member.kubeConfig(), PODS);
  let probePods: PodObject[] = [];
  await eventually('a probe pod on each node', async () => {
    probePods = (await pods.list({ namespace: NS })).items.filter(
      (p) => p.spec?.serviceAccountName === PROBE_SA && (p.spec.nodeName ?? '') !== '',
    );
    return probePods.length === 2;
  });
  probePods.sort((a, b) => (a.spec?.nodeName ?? '').localeCompare(b.spec?.nodeName ?? ''));
  nodeA = probePods[0]!.spec!.nodeName!;
  nodeB = probePods[1]!.spec!.nodeName!;
  asProbeOnA = bearerKubeConfig(member, await token(PROBE_SA, probePods[0]!.metadata?.name));
  asProbeUnbound = bearerKubeConfig(member, await token(PROBE_SA));
  asAgent = bearerKubeConfig(member, await token(AGENT_SA));
}, 180_000);

afterAll(async () => {
  await (fed as LocalFederation | undefined)?.destroy();
});

describe('the agent ServiceAccount', () => {
  it('holds no wildcard, bind, escalate, impersonate or RBAC write', async () => {
    const rbac = 'rbac.authorization.k8s.io';
    for (const [verb, what] of [
      ['*', { group: '*', resource: '*' }],
      ['bind', { group: rbac, resource: 'clusterroles' }],
      ['bind', { group: rbac, resource: 'clusterroles', name: CREDENTIALS_ROLE }],
      ['bind', { group: rbac, resource: 'clusterroles', name: 'cluster-admin' }],
      ['escalate', { group: rbac, resource: 'clusterroles' }],
      ['create', { group: rbac, resource: 'clusterroles' }],
      ['create', { group: rbac, resource: 'clusterrolebindings' }],
      ['create', { group: rbac, resource: 'rolebindings', namespace: NS }],
      ['update', { group: rbac, resource: 'clusterroles', name: CREDENTIALS_ROLE }],
      ['impersonate', { resource: 'users' }],
      ['create', { resource: 'serviceaccounts/token', namespace: NS }],
    ] as const) {
      expect(
        await canI(asAgent, verb, what),
        `${verb} ${what.resource} ${'name' in what ? what.name : ''}`,
      ).toBe(false);
    }
  });

  it('applies what its Works carry', async () => {
    // A Work's Deployment, applied as the agent applies it.
    const deployments = new ResourceClient<KubeObject>(asAgent, DEPLOYMENTS);
    const applied = await deployments.apply(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'web', image: 'nginx' }] },
          },
        },
      } as KubeObject,
      { fieldManager: 'execution-controller' },
    );
    expect(applied.metadata?.uid).toBeTruthy();
    await deployments.delete('default/web');
  });

  it('reads every Secret of its member, since Works carry Secrets (as the chart README says)', async () => {
    const admin = new ResourceClient<Secret>(member.kubeConfig(), SECRET_RESOURCE);
    await admin.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'admin-only', namespace: 'kube-system' },
      data: { password: Buffer.from('s3cret').toString('base64') },
    });
    const secrets = new ResourceClient<Secret>(asAgent, SECRET_RESOURCE);
    expect((await secrets.get('kube-system/admin-only')).data?.password).toBe(
      Buffer.from('s3cret').toString('base64'),
    );
    const all = (await secrets.list()).items.map(
      (x) => `${x.metadata.namespace ?? ''}/${x.metadata.name ?? ''}`,
    );
    expect(all).toContain('kube-system/admin-only');
    await admin.delete('kube-system/admin-only');
  });

  it('acts as another ServiceAccount of a namespace it writes Secrets to (as the chart README says)', async () => {
    await new ResourceClient<KubeObject>(member.kubeConfig(), SERVICE_ACCOUNT_RESOURCE).create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'someone-else', namespace: 'kube-system' },
    });
    // A token Secret made by the agent for that ServiceAccount: the token controller fills it.
    const secrets = new ResourceClient<Secret>(asAgent, SECRET_RESOURCE);
    await secrets.create({
      apiVersion: 'v1',
      kind: 'Secret',
      type: SERVICE_ACCOUNT_TOKEN_TYPE,
      metadata: {
        name: 'someone-else-token',
        namespace: 'kube-system',
        annotations: { [SERVICE_ACCOUNT_NAME_ANNOTATION]: 'someone-else' },
      },
    });
    let minted = '';
    await eventually('the token controller fills the Secret', async () => {
      minted = (await secrets.get('kube-system/someone-else-token')).data?.token ?? '';
      return minted !== '';
    });
    const minter = await whoAmI(bearerKubeConfig(member, Buffer.from(minted, 'base64').toString()));
    expect(minter.username).toBe('system:serviceaccount:kube-system:someone-else');
    await secrets.delete('kube-system/someone-else-token');
  });

  it('keeps its self-fence record in its own namespace', async () => {
    const store = new MemberFenceStore(asAgent, NS);
    const entry = {
      work: 'karmada-es-member1/web-deployment',
      uid: 'u-1',
      fenceSeconds: 30,
      objects: [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' }],
    };
    await store.update((r) => ({
      ...withEntry(r, entry),
      lastRenewalMs: Date.parse('2026-11-26T00:00:00Z'),
    }));
    await store.update((r) => markedFenced(r, new Set(['u-1']), Date.parse('2026-11-26T00:01:00Z')));
    const { record, problems } = await store.load();
    expect(problems).toEqual([]);
    expect(record).toEqual({
      lastRenewalMs: Date.parse('2026-11-26T00:00:00Z'),
      entries: [{ ...entry, fencedAt: '2026-11-26T00:01:00.000Z' }],
    });
  });

  it('answers 403 when the agent binds cluster-admin, or the credentials role, to itself', async () => {
    const bindings = new ResourceClient<KubeObject>(asAgent, CLUSTER_ROLE_BINDING_RESOURCE);
    const roleBindings = new ResourceClient<KubeObject>(asAgent, ROLE_BINDINGS);
    const roles = new ResourceClient<KubeObject>(asAgent, CLUSTER_ROLE_RESOURCE);
    for (const [what, attempt] of [
      ['bind cluster-admin', () => bindings.create(clusterRoleBinding('agent-admin', 'cluster-admin'))],
      [
        'bind the credentials role',
        () => bindings.create(clusterRoleBinding('agent-credentials', CREDENTIALS_ROLE)),
      ],
      [
        'bind cluster-admin in its namespace',
        () =>
          roleBindings.create({
            ...clusterRoleBinding('agent-admin', 'cluster-admin'),
            kind: 'RoleBinding',
            metadata: { name: 'agent-admin', namespace: NS },
          }),
      ],
      [
        'create a role of every verb',
        () =>
          roles.create({
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: { name: 'agent-everything' },
            rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
          } as KubeObject),
      ],
      [
        'change the credentials role',
        () => roles.mergePatch(CREDENTIALS_ROLE, { metadata: { labels: { x: 'y' } } }),
      ],
    ] as const) {
      expect(await status(attempt()), what).toBe(403);
    }
    expect(await canI(asAgent, '*', { group: '*', resource: '*' })).toBe(false);
    // With the chart's defaults there is no role of every verb to read, nor a token bound to one.
    expect(
      await status(new ResourceClient<KubeObject>(asAgent, CLUSTER_ROLE_RESOURCE).get(CREDENTIALS_ROLE)),
    ).toBe(403);
    expect(
      await new ResourceClient<KubeObject>(member.kubeConfig(), CLUSTER_ROLE_RESOURCE).find(CREDENTIALS_ROLE),
    ).toBeUndefined();
  });
});

describe('the probe ServiceAccount', () => {
  const condition = (status: 'True' | 'False'): NodeCondition => ({
    type: NODE_CONDITION_TYPE,
    status,
    reason: status === 'True' ? 'ServiceDomainNameResolutionReady' : 'ServiceDomainNameResolutionFailed',
    message: 'test',
    lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  });
  const adminNodes = () => new ResourceClient<NodeObject>(member.kubeConfig(), NODE_RESOURCE);

  it('carries its pod node in its token (authentication.kubernetes.io/node-name)', async () => {
    const probe = await whoAmI(asProbeOnA);
    expect(probe.username).toBe(`system:serviceaccount:${NS}:${PROBE_SA}`);
    expect(probe.extra?.['authentication.kubernetes.io/node-name']).toEqual([nodeA]);
  });

  it('writes its own Node condition with its token, and 403 on another Node', async () => {
    const onB = memberNodeStore(asProbeOnA, nodeB, 10_000);
    // The policy is in force shortly after it is created.
    await eventually(
      'the admission policy is in force',
      async () => (await status(onB.write(condition('False'), AbortSignal.timeout(10_000)))) === 403,
    );
    // A write made before the policy took hold may have landed on B; what counts is that none lands now.
    const onBBefore = (await adminNodes().get(nodeB)).status?.conditions?.find(
      (c) => c.type === NODE_CONDITION_TYPE,
    );
    const kubeletConditions = (await adminNodes().get(nodeA)).status?.conditions?.filter(
      (c) => c.type !== NODE_CONDITION_TYPE,
    );
    const written = await memberNodeStore(asProbeOnA, nodeA, 10_000).write(
      condition('False'),
      AbortSignal.timeout(10_000),
    );
    expect(written?.status).toBe('False');
    const a = await adminNodes().get(nodeA);
    expect(a.status?.conditions?.find((c) => c.type === NODE_CONDITION_TYPE)?.status).toBe('False');
    expect(a.status?.conditions?.filter((c) => c.type !== NODE_CONDITION_TYPE)).toEqual(kubeletConditions);
    expect(await status(onB.write(condition('True'), AbortSignal.timeout(10_000)))).toBe(403);
    const b = await adminNodes().get(nodeB);
    expect(b.status?.conditions?.find((c) => c.type === NODE_CONDITION_TYPE)).toEqual(onBBefore);
  });

  it('answers 403 to any other change of its own Node', async () => {
    const asProbe = new ResourceClient<NodeObject>(asProbeOnA, NODE_RESOURCE);
    const before = await adminNodes().get(nodeA);
    const ready = before.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready?.status).toBe('True');
    for (const [what, patch] of [
      ['allocatable pods 0', { status: { allocatable: { pods: '0' } } }],
      ['capacity', { status: { capacity: { cpu: '1000' } } }],
      // A merge patch replaces the whole list: the kubelet's conditions would go.
      ['only its condition, as a merge patch', { status: { conditions: [condition('True')] } }],
      ['a label', { metadata: { labels: { 'node-role.kubernetes.io/control-plane': '' } } }],
      ['an annotation', { metadata: { annotations: { x: 'y' } } }],
    ] as const) {
      expect(await status(asProbe.patchStatus(nodeA, patch)), what).toBe(403);
    }
    const after = await adminNodes().get(nodeA);
    expect(after.status?.allocatable).toEqual(before.status?.allocatable);
    expect(after.metadata?.labels).toEqual(before.metadata?.labels);
    // The kubelet's Ready condition, in the probe's own strategic merge patch: still 403.
    const store = memberNodeStore(asProbeOnA, nodeA, 10_000);
    const notReady = { ...condition('False'), type: 'Ready', reason: 'KubeletNotReady' };
    expect(await status(store.write(notReady, AbortSignal.timeout(10_000)))).toBe(403);
    expect((await adminNodes().get(nodeA)).status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe(
      'True',
    );
  });

  it('answers 403 when its token is bound to no node (fail closed)', async () => {
    const err = await memberNodeStore(asProbeUnbound, nodeA, 10_000)
      .write(condition('True'), AbortSignal.timeout(10_000))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeError);
    expect((err as KubeError).status).toBe(403);
    expect((err as KubeError).message).toMatch(/authentication.kubernetes.io\/node-name/);
  });
});
