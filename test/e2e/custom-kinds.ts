/**
 * Custom kinds the end-to-end tests propagate (OpenKruise's CloneSet, Apache Flink's
 * FlinkDeployment, Argo Rollouts' Rollout), with free-form CRDs and the customizations that teach
 * the federation about them, and what the tests read back from a federation.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  resourceInterpreterCustomizationKind,
  type Placement,
  type PropagationPolicy,
  type ResourceBinding,
  type ResourceInterpreterCustomization,
} from '@kf/api';
import { parseCustomizations } from '@kf/interpreter';
import { thirdPartyCustomizationsFolder } from '@kf/interpreter/testing';
import { ResourceClient, type KubeObject, type ResourceDescriptor } from '@kf/kube';
import { REPO_ROOT, freeFormCrd, installCrd, servedAs, type FailoverFederation } from '@kf/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import { bindingNameFor } from '../../controlplane/src/names.ts';
import { NAMESPACE, policyFor } from './support.ts';

export type Status = Record<string, unknown>;

export interface CustomObject extends KubeObject {
  readonly metadata: NonNullable<KubeObject['metadata']> & { readonly generation?: number };
  readonly apiVersion: string;
  readonly kind: string;
  readonly spec?: Record<string, unknown>;
  readonly status?: Status;
}

/** A custom kind as the tests use it: where it is served and the status its operator would write. */
export interface CustomKind {
  readonly resource: ResourceDescriptor & { readonly kind: string };
  /** Where its customization comes from: Karmada's third-party folder, or the project's own. */
  readonly customization: { readonly thirdParty: string } | { readonly shipped: string };
  readonly template: (name: string, replicas: number) => CustomObject;
  readonly healthyStatus: (observed: CustomObject) => Status;
  readonly unhealthyStatus: (observed: CustomObject) => Status;
  /** Its pod template mounts the ConfigMap {@link configMapOf}, a dependency its scripts name. */
  readonly mountsConfigMap: boolean;
}

/** The ConfigMap the pod template of `name` mounts. */
export const configMapOf = (name: string): string => `${name}-config`;

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
    containers: [
      {
        name: 'app',
        image: 'nginx',
        resources: { requests: { cpu: '250m', memory: '256Mi' } },
        volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
      },
    ],
    volumes: [{ name: 'config', configMap: { name: configMapOf(name) } }],
  },
});

export const CLONESET: CustomKind = {
  resource: {
    group: 'apps.kruise.io',
    version: 'v1alpha1',
    plural: 'clonesets',
    namespaced: true,
    kind: 'CloneSet',
  },
  customization: { thirdParty: 'apps.kruise.io/v1alpha1/CloneSet' },
  mountsConfigMap: true,
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

export const FLINK_RUNNING: Status = {
  jobStatus: { state: 'RUNNING' },
  jobManagerDeploymentStatus: 'READY',
  lifecycleState: 'STABLE',
};

/** Job manager 1 × 1 CPU; task managers ⌈parallelism / slots⌉ = 2 × `replicas` CPU each. */
export const FLINK: CustomKind = {
  resource: {
    group: 'flink.apache.org',
    version: 'v1beta1',
    plural: 'flinkdeployments',
    namespaced: true,
    kind: 'FlinkDeployment',
  },
  customization: { thirdParty: 'flink.apache.org/v1beta1/FlinkDeployment' },
  mountsConfigMap: false,
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

export const ROLLOUT: CustomKind = {
  resource: {
    group: 'argoproj.io',
    version: 'v1alpha1',
    plural: 'rollouts',
    namespaced: true,
    kind: 'Rollout',
  },
  customization: { shipped: 'argoproj.io_v1alpha1_rollout.yaml' },
  mountsConfigMap: true,
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

/** One copy, on member1 or member2. */
export const ONE_CLUSTER: Placement = {
  clusterAffinity: { clusterNames: ['member1', 'member2'] },
  spreadConstraints: [{ spreadByField: 'cluster', minGroups: 1, maxGroups: 1 }],
  replicaScheduling: { replicaSchedulingType: 'Duplicated' },
};

/** The customizations of `kind`: Karmada's own, unchanged, or the one the project ships. */
async function customizationsOf(kind: CustomKind): Promise<ResourceInterpreterCustomization[]> {
  const file =
    'thirdParty' in kind.customization
      ? join(await thirdPartyCustomizationsFolder(), kind.customization.thirdParty, 'customizations.yaml')
      : join(REPO_ROOT, 'deploy/customizations', kind.customization.shipped);
  return parseCustomizations(await readFile(file, 'utf8'));
}

/** A PropagationPolicy selecting the object `name` of `kind`. */
export function policyOf(
  kind: CustomKind,
  name: string,
  placement: Placement,
  extra: Partial<PropagationPolicy['spec']> = {},
): PropagationPolicy {
  return policyFor(name, placement, extra, {
    apiVersion: kind.template(name, 1).apiVersion,
    kind: kind.resource.kind,
  });
}

/** Custom kinds on a federation: their installation, and the objects of the tests. */
export class CustomKinds {
  readonly fed: FailoverFederation;

  constructor(fed: FailoverFederation) {
    this.fed = fed;
  }

  /** CRDs on the control plane and every member; the customizations on the control plane. */
  async install(kinds: readonly CustomKind[]): Promise<void> {
    const { fed } = this;
    const kubeConfigs = [
      fed.controlPlaneKubeConfig(),
      ...fed.memberNames.map((m) => fed.member(m).kubeConfig()),
    ];
    await Promise.all(
      kubeConfigs.flatMap((kc) =>
        kinds.map(({ resource: r }) =>
          installCrd(kc, servedAs(freeFormCrd(r.group, r.kind, r.plural, 'Namespaced'), r.version)),
        ),
      ),
    );
    const customizations = new ResourceClient<ResourceInterpreterCustomization>(
      fed.controlPlaneKubeConfig(),
      resourceInterpreterCustomizationKind,
    );
    for (const kind of kinds) {
      for (const c of await customizationsOf(kind)) await customizations.create(c);
    }
  }

  /** Templates of `kind` on the control plane. */
  templates(kind: CustomKind): ResourceClient<CustomObject> {
    return client(kind, this.fed.controlPlaneKubeConfig());
  }

  /** Creates the policy first (so the detector matches at once), then the template. */
  async propagate(kind: CustomKind, policy: PropagationPolicy, template: CustomObject): Promise<void> {
    await this.fed.policies.create(policy);
    await this.templates(kind).create(template);
  }

  bindingOf(kind: CustomKind, name: string): Promise<ResourceBinding | undefined> {
    return this.fed.bindings.find(`${NAMESPACE}/${bindingNameFor(kind.resource.kind, name)}`);
  }

  async placedOn(kind: CustomKind, name: string): Promise<string[]> {
    const b = await this.bindingOf(kind, name);
    return (b?.spec.clusters ?? []).map((c) => c.name).sort();
  }

  /** The health the member's agent reported in the workload's Work on `member`. */
  async workHealth(kind: CustomKind, name: string, member: string): Promise<string | undefined> {
    const { items } = await this.fed.works.list({ namespace: `karmada-es-${member}` });
    const binding = bindingNameFor(kind.resource.kind, name);
    const work = items.find((w) => w.metadata.annotations?.['resourcebinding.karmada.io/name'] === binding);
    return work?.status?.manifestStatuses?.[0]?.health;
  }

  /** Writes the status the kind's operator would on the member's copy (its status subresource). */
  async setMemberStatus(
    kind: CustomKind,
    member: string,
    name: string,
    status: (observed: CustomObject) => Status,
  ): Promise<void> {
    const copies = this.#onMember(kind, member);
    const key = `${NAMESPACE}/${name}`;
    const observed = await copies.get(key);
    await copies.patchStatus(key, { status: status(observed) });
  }

  memberCopy(kind: CustomKind, member: string, name: string): Promise<CustomObject | undefined> {
    return this.#onMember(kind, member).find(`${NAMESPACE}/${name}`);
  }

  #onMember(kind: CustomKind, member: string): ResourceClient<CustomObject> {
    return client(kind, this.fed.member(member).kubeConfig());
  }
}

function client(kind: CustomKind, kc: KubeConfig): ResourceClient<CustomObject> {
  return new ResourceClient<CustomObject>(kc, kind.resource);
}
