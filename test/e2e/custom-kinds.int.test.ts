/**
 * Custom kinds end to end, driven by ResourceInterpreterCustomization scripts: Karmada's own
 * customizations for OpenKruise's CloneSet and Apache Flink's FlinkDeployment, applied unchanged,
 * and the project's for Argo Rollouts (deploy/customizations). Their CRDs are installed in the
 * control plane and both members; nothing runs them in the members, so a test makes an object
 * healthy or unhealthy by writing its status there, as its operator would.
 * - Health: each member's agent runs the kind's InterpretHealth script on the member's object,
 *   and application failover moves the workload once the script has found it Unhealthy for
 *   `tolerationSeconds`, not before.
 * - Replicas: a CloneSet and a Rollout divided 2:1 by static weights reach the members with the
 *   replicas their ReviseReplica script wrote; the template's status is what their AggregateStatus
 *   script made of the members' status.
 * - Components (gate MultiplePodTemplatesScheduling): a FlinkDeployment's job manager and task
 *   managers come from its InterpretComponent script and are placed together on one member, or not
 *   at all when no member has room for the whole set, though each pod alone would fit.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  annotations,
  findCondition,
  resourceInterpreterCustomizationKind,
  type ApplicationFailoverBehavior,
  type Placement,
  type PropagationPolicy,
  type ResourceBinding,
  type ResourceInterpreterCustomization,
} from '@kf/api';
import { parseCustomizations } from '@kf/interpreter';
import { thirdPartyCustomizationsFolder } from '@kf/interpreter/testing';
import { ResourceClient, type KubeObject, type ResourceDescriptor } from '@kf/kube';
import {
  REPO_ROOT,
  dividedByStaticWeights,
  freeFormCrd,
  installCrd,
  servedAs,
  startFailoverFederation,
  type FailoverFederation,
} from '@kf/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import { bindingNameFor } from '../../controlplane/src/names.ts';
import { NAMESPACE, until } from './support.ts';

type Status = Record<string, unknown>;

interface CustomObject extends KubeObject {
  readonly metadata: NonNullable<KubeObject['metadata']> & { readonly generation?: number };
  readonly apiVersion: string;
  readonly kind: string;
  readonly spec?: Record<string, unknown>;
  readonly status?: Status;
}

/** A custom kind as the tests use it: where it is served and the status its operator would write. */
interface CustomKind {
  readonly resource: ResourceDescriptor & { readonly kind: string };
  /** Where its customization comes from: Karmada's third-party folder, or the project's own. */
  readonly customization: { readonly thirdParty: string } | { readonly shipped: string };
  readonly template: (name: string, replicas: number) => CustomObject;
  readonly healthyStatus: (observed: CustomObject) => Status;
  readonly unhealthyStatus: (observed: CustomObject) => Status;
}

const TOLERATION_SECONDS = 5;

const counters = (n: number): Status => ({
  replicas: n,
  readyReplicas: n,
  updatedReplicas: n,
  availableReplicas: n,
  updatedReadyReplicas: n,
});

const podTemplate = (name: string): Record<string, unknown> => ({
  metadata: { labels: { app: name } },
  spec: {
    containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '250m', memory: '256Mi' } } }],
  },
});

const CLONESET: CustomKind = {
  resource: {
    group: 'apps.kruise.io',
    version: 'v1alpha1',
    plural: 'clonesets',
    namespaced: true,
    kind: 'CloneSet',
  },
  customization: { thirdParty: 'apps.kruise.io/v1alpha1/CloneSet' },
  template: (name, replicas) => ({
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name, namespace: NAMESPACE },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate(name) },
  }),
  healthyStatus: (o) => ({
    observedGeneration: o.metadata.generation,
    ...counters(Number(o.spec?.['replicas'] ?? 0)),
  }),
  // Updated but not available: the CloneSet's pods do not come up.
  unhealthyStatus: (o) => ({
    observedGeneration: o.metadata.generation,
    ...counters(Number(o.spec?.['replicas'] ?? 0)),
    readyReplicas: 0,
    availableReplicas: 0,
    updatedReadyReplicas: 0,
  }),
};

const FLINK_RUNNING: Status = {
  jobStatus: { state: 'RUNNING' },
  jobManagerDeploymentStatus: 'READY',
  lifecycleState: 'STABLE',
};

/** Job manager 1 × 1 CPU; task managers ⌈parallelism / slots⌉ = 2 × `replicas` CPU each. */
const FLINK: CustomKind = {
  resource: {
    group: 'flink.apache.org',
    version: 'v1beta1',
    plural: 'flinkdeployments',
    namespaced: true,
    kind: 'FlinkDeployment',
  },
  customization: { thirdParty: 'flink.apache.org/v1beta1/FlinkDeployment' },
  template: (name, cpu) => ({
    apiVersion: 'flink.apache.org/v1beta1',
    kind: 'FlinkDeployment',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      image: 'flink:1.20',
      flinkVersion: 'v1_20',
      flinkConfiguration: { 'taskmanager.numberOfTaskSlots': '2' },
      jobManager: { replicas: 1, resource: { cpu: 1, memory: '1024m' } },
      taskManager: { resource: { cpu, memory: '1024m' } },
      job: { jarURI: 'local:///opt/flink/examples/streaming/StateMachineExample.jar', parallelism: 4 },
    },
  }),
  healthyStatus: () => FLINK_RUNNING,
  // Stuck reconciling with no error a user caused: the script calls that unhealthy.
  unhealthyStatus: () => ({
    jobStatus: { state: 'RECONCILING' },
    jobManagerDeploymentStatus: 'DEPLOYING',
    lifecycleState: 'DEPLOYED',
  }),
};

const ROLLOUT: CustomKind = {
  resource: {
    group: 'argoproj.io',
    version: 'v1alpha1',
    plural: 'rollouts',
    namespaced: true,
    kind: 'Rollout',
  },
  customization: { shipped: 'argoproj.io_v1alpha1_rollout.yaml' },
  template: (name, replicas) => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: podTemplate(name),
      strategy: { canary: { steps: [{ setWeight: 50 }, { pause: { duration: '1m' } }] } },
    },
  }),
  // Argo Rollouts writes observedGeneration as a string.
  healthyStatus: (o) => ({
    observedGeneration: String(o.metadata.generation),
    phase: 'Healthy',
    ...counters(Number(o.spec?.['replicas'] ?? 0)),
  }),
  unhealthyStatus: (o) => ({
    observedGeneration: String(o.metadata.generation),
    phase: 'Degraded',
    message: 'ProgressDeadlineExceeded: ReplicaSet "web-6d4f" has timed out progressing.',
    ...counters(Number(o.spec?.['replicas'] ?? 0)),
    availableReplicas: 0,
  }),
};

const KINDS = [CLONESET, FLINK, ROLLOUT] as const;

let fed: FailoverFederation;

beforeAll(async () => {
  fed = await startFailoverFederation({
    members: 2,
    nodes: 1,
    controlPlaneFlags: ['--feature-gates=MultiplePodTemplatesScheduling=true'],
  });
  const kubeConfigs = [
    fed.controlPlaneKubeConfig(),
    ...fed.memberNames.map((m) => fed.member(m).kubeConfig()),
  ];
  await Promise.all(
    kubeConfigs.flatMap((kc) =>
      KINDS.map(({ resource: r }) =>
        installCrd(kc, servedAs(freeFormCrd(r.group, r.kind, r.plural, 'Namespaced'), r.version)),
      ),
    ),
  );
  const customizations = new ResourceClient<ResourceInterpreterCustomization>(
    fed.controlPlaneKubeConfig(),
    resourceInterpreterCustomizationKind,
  );
  for (const kind of KINDS) {
    for (const c of await customizationsOf(kind)) await customizations.create(c);
  }
}, 240_000);

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

async function customizationsOf(kind: CustomKind): Promise<ResourceInterpreterCustomization[]> {
  const file =
    'thirdParty' in kind.customization
      ? join(await thirdPartyCustomizationsFolder(), kind.customization.thirdParty, 'customizations.yaml')
      : join(REPO_ROOT, 'deploy/customizations', kind.customization.shipped);
  return parseCustomizations(await readFile(file, 'utf8'));
}

function client(kind: CustomKind, kc: KubeConfig): ResourceClient<CustomObject> {
  return new ResourceClient<CustomObject>(kc, kind.resource);
}

function onMember(kind: CustomKind, member: string): ResourceClient<CustomObject> {
  return client(kind, fed.member(member).kubeConfig());
}

function policyFor(
  kind: CustomKind,
  name: string,
  placement: Placement,
  extra: Partial<PropagationPolicy['spec']> = {},
): PropagationPolicy {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: `${name}-propagation`, namespace: NAMESPACE },
    spec: {
      resourceSelectors: [{ apiVersion: kind.template(name, 1).apiVersion, kind: kind.resource.kind, name }],
      placement,
      ...extra,
    },
  };
}

/** Creates the policy first (so the detector matches at once), then the template. */
async function propagate(kind: CustomKind, policy: PropagationPolicy, template: CustomObject): Promise<void> {
  await fed.policies.create(policy);
  await client(kind, fed.controlPlaneKubeConfig()).create(template);
}

function bindingOf(kind: CustomKind, name: string): Promise<ResourceBinding | undefined> {
  return fed.bindings.find(`${NAMESPACE}/${bindingNameFor(kind.resource.kind, name)}`);
}

async function placedOn(kind: CustomKind, name: string): Promise<string[]> {
  const b = await bindingOf(kind, name);
  return (b?.spec.clusters ?? []).map((c) => c.name).sort();
}

/** The health the member's agent reported in the workload's Work on `member`. */
async function workHealth(kind: CustomKind, name: string, member: string): Promise<string | undefined> {
  const { items } = await fed.works.list({ namespace: `karmada-es-${member}` });
  const work = items.find(
    (w) =>
      w.metadata.annotations?.['resourcebinding.karmada.io/name'] ===
      bindingNameFor(kind.resource.kind, name),
  );
  return work?.status?.manifestStatuses?.[0]?.health;
}

/** Writes the status the kind's operator would on the member's copy (its status subresource). */
async function setMemberStatus(
  kind: CustomKind,
  member: string,
  name: string,
  status: (observed: CustomObject) => Status,
): Promise<void> {
  const copies = onMember(kind, member);
  const key = `${NAMESPACE}/${name}`;
  const observed = await copies.get(key);
  await copies.patchStatus(key, { status: status(observed) });
}

async function memberCopy(kind: CustomKind, member: string, name: string): Promise<CustomObject | undefined> {
  return onMember(kind, member).find(`${NAMESPACE}/${name}`);
}

const ONE_CLUSTER: Placement = {
  clusterAffinity: { clusterNames: ['member1', 'member2'] },
  spreadConstraints: [{ spreadByField: 'cluster', minGroups: 1, maxGroups: 1 }],
  replicaScheduling: { replicaSchedulingType: 'Duplicated' },
};

const FAILOVER: ApplicationFailoverBehavior = {
  decisionConditions: { tolerationSeconds: TOLERATION_SECONDS },
  purgeMode: 'Directly',
};

describe('custom kinds on real members', () => {
  it.concurrent.each(KINDS.map((k) => [k.resource.kind, k] as const))(
    'moves a %s its InterpretHealth script finds Unhealthy, after tolerationSeconds',
    async (_, kind) => {
      const name = `moving-${kind.resource.kind.toLowerCase()}`;
      await propagate(
        kind,
        policyFor(kind, name, ONE_CLUSTER, { propagateDeps: true, failover: { application: FAILOVER } }),
        kind.template(name, 2),
      );
      await until(`${name} placed on one member`, async () => (await placedOn(kind, name)).length === 1);
      const [from = ''] = await placedOn(kind, name);
      const to = from === 'member1' ? 'member2' : 'member1';
      await until(`${name} on ${from}`, async () => (await memberCopy(kind, from, name)) !== undefined);

      await setMemberStatus(kind, from, name, kind.healthyStatus);
      await until(
        `${name} Healthy in its Work on ${from}`,
        async () => (await workHealth(kind, name, from)) === 'Healthy',
      );
      // Only a workload seen Healthy on a cluster is failed over from it.
      await until(`${name} recorded as seen Healthy on ${from}`, async () => {
        const b = await bindingOf(kind, name);
        return (b?.metadata.annotations?.[annotations.applicationFailoverHealthyClusters] ?? '')
          .split(',')
          .includes(from);
      });

      await setMemberStatus(kind, from, name, kind.unhealthyStatus);
      const unhealthyAtMs = await until(
        `${name} Unhealthy in its Work on ${from}`,
        async () => (await workHealth(kind, name, from)) === 'Unhealthy',
      );
      const movedAtMs = await until(
        `${name} moved to ${to}`,
        async () => (await placedOn(kind, name)).join() === to,
      );
      expect(movedAtMs - unhealthyAtMs).toBeGreaterThanOrEqual(TOLERATION_SECONDS * 1000 - 1000);
      await until(`${name} on ${to}`, async () => (await memberCopy(kind, to, name)) !== undefined);
      await until(
        `${name} gone from ${from}`,
        async () => (await memberCopy(kind, from, name)) === undefined,
      );
    },
    180_000,
  );
});

describe('replicas and status of custom kinds', () => {
  it.concurrent.each([CLONESET, ROLLOUT].map((k) => [k.resource.kind, k] as const))(
    'divides a %s 2:1 through its ReviseReplica script and aggregates its status',
    async (_, kind) => {
      const name = `divided-${kind.resource.kind.toLowerCase()}`;
      await propagate(
        kind,
        policyFor(kind, name, dividedByStaticWeights({ member1: 2, member2: 1 })),
        kind.template(name, 6),
      );
      const want = { member1: 4, member2: 2 };
      for (const [member, replicas] of Object.entries(want)) {
        await until(`${name} with ${replicas} replicas on ${member}`, async () => {
          return (await memberCopy(kind, member, name))?.spec?.['replicas'] === replicas;
        });
        await setMemberStatus(kind, member, name, kind.healthyStatus);
      }
      const templates = client(kind, fed.controlPlaneKubeConfig());
      await until(`${name}'s status aggregated from both members`, async () => {
        const status = (await templates.get(`${NAMESPACE}/${name}`)).status;
        return status?.['replicas'] === 6 && status['availableReplicas'] === 6;
      });
      const b = await bindingOf(kind, name);
      expect(Object.fromEntries((b?.spec.clusters ?? []).map((c) => [c.name, c.replicas]))).toEqual(want);
      expect(b?.spec.replicaRequirements?.resourceRequest).toEqual({ cpu: '250m', memory: '256Mi' });
      expect(findCondition(b?.status?.conditions, 'ReplicasInterpreted')?.status).toBe('True');
      expect((b?.status?.aggregatedStatus ?? []).map((i) => [i.clusterName, i.health]).sort()).toEqual([
        ['member1', 'Healthy'],
        ['member2', 'Healthy'],
      ]);
    },
    120_000,
  );
});

describe('multi-template workloads (gate MultiplePodTemplatesScheduling)', () => {
  it("places a FlinkDeployment's job manager and task managers together on one member", async () => {
    const name = 'whole-flink';
    await propagate(FLINK, policyFor(FLINK, name, ONE_CLUSTER), FLINK.template(name, 2));
    await until(`${name} placed`, async () => (await placedOn(FLINK, name)).length === 1);
    const b = await bindingOf(FLINK, name);
    // Flink's "1024m" (MiB) passes through the script as a Kubernetes quantity, as upstream's does.
    expect(b?.spec.components).toEqual([
      {
        name: 'jobmanager',
        replicas: 1,
        replicaRequirements: { resourceRequest: { cpu: '1', memory: '1024m' } },
      },
      {
        name: 'taskmanager',
        replicas: 2,
        replicaRequirements: { resourceRequest: { cpu: '2', memory: '1024m' } },
      },
    ]);
    expect(b?.spec.replicas).toBeUndefined();
    const [member = ''] = await placedOn(FLINK, name);
    await until(`${name} on ${member}`, async () => (await memberCopy(FLINK, member, name)) !== undefined);
    // The member's status comes back through the agent's ReflectStatus and the AggregateStatus script.
    await setMemberStatus(FLINK, member, name, FLINK.healthyStatus);
    const templates = client(FLINK, fed.controlPlaneKubeConfig());
    await until(`${name}'s status aggregated`, async () => {
      const status = (await templates.get(`${NAMESPACE}/${name}`)).status;
      return status?.['lifecycleState'] === 'STABLE';
    });
    expect((await templates.get(`${NAMESPACE}/${name}`)).status).toMatchObject(FLINK_RUNNING);
  });

  it('places none of a FlinkDeployment no member has room for as a whole, though each pod would fit', async () => {
    // Each member has one 32-CPU node: a 20-CPU task manager fits, two of them and the job manager do not.
    const name = 'oversized-flink';
    await propagate(FLINK, policyFor(FLINK, name, ONE_CLUSTER), FLINK.template(name, 20));
    await until(`${name} found unschedulable`, async () => {
      const scheduled = findCondition((await bindingOf(FLINK, name))?.status?.conditions, 'Scheduled');
      return scheduled?.status === 'False';
    });
    const b = await bindingOf(FLINK, name);
    expect(b?.spec.components?.map((c) => c.replicas)).toEqual([1, 2]);
    expect(b?.spec.clusters ?? []).toEqual([]);
    expect(findCondition(b?.status?.conditions, 'Scheduled')?.message).toMatch(/insufficient|resource|fit/i);
  });
});
