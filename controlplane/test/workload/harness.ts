/**
 * A control plane (kube-apiserver + etcd + GC, CRDs installed) with the workload controllers
 * running in-process, and builders for the objects the tests create.
 */
import { createLogger, runController } from '@kf/runtime';
import { ResourceClient, type ResourceDescriptor } from '@kf/kube';
import {
  clusterKind,
  clusterPropagationPolicyKind,
  clusterResourceBindingKind,
  executionNamespaceFor,
  findCondition,
  propagationPolicyKind,
  resourceBindingKind,
  workKind,
  type Cluster,
  type PropagationPolicy,
  type ResourceBinding,
  type Work,
} from '@kf/api';
import {
  appliedWorkStatus,
  demoDeployment,
  startControlPlane,
  waitUntil,
  type LocalCluster,
} from '@kf/testing';
import { applicationFailoverController } from '../../src/controllers/application-failover/controller.ts';
import { gracefulEvictionController } from '../../src/controllers/graceful-eviction/controller.ts';
import { createWorkloadDeps, workloadControllers, type WorkloadDeps } from '../../src/workload/index.ts';
import type { ResourceTemplate } from '../../src/workload/template.ts';

export const DEPLOYMENTS: ResourceDescriptor = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
};
const CLUSTER_ROLES: ResourceDescriptor = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural: 'clusterroles',
  namespaced: false,
  kind: 'ClusterRole',
};
const NAMESPACES: ResourceDescriptor = {
  group: '',
  version: 'v1',
  plural: 'namespaces',
  namespaced: false,
  kind: 'Namespace',
};

export interface Harness {
  readonly cp: LocalCluster;
  /** The caches and clients the controllers run on (read-only use: what they have seen). */
  readonly workload: WorkloadDeps;
  readonly clusterPolicies: ResourceClient<PropagationPolicy>;
  readonly clusterBindings: ResourceClient<ResourceBinding>;
  readonly clusterRoles: ResourceClient<ResourceTemplate>;
  readonly clusters: ResourceClient<Cluster>;
  readonly policies: ResourceClient<PropagationPolicy>;
  readonly bindings: ResourceClient<ResourceBinding>;
  readonly works: ResourceClient<Work>;
  readonly deployments: ResourceClient<ResourceTemplate>;
  /** Stops application-failover and starts a fresh one (its in-memory timers gone), as a restart does. */
  restartApplicationFailover(): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  /** Also run application-failover and graceful-eviction (with this timeout). */
  readonly failover?: { readonly gracefulEvictionTimeoutMs: number };
  /** Gate StatefulFailoverInjection. */
  readonly statefulFailoverInjection?: boolean;
}

export async function startHarness(
  memberNames: readonly string[],
  options: HarnessOptions = {},
): Promise<Harness> {
  const cp = await startControlPlane();
  const kc = cp.kubeConfig();
  const namespaces = new ResourceClient(kc, NAMESPACES);
  for (const m of memberNames) await namespaces.create({ metadata: { name: executionNamespaceFor(m) } });
  const log = createLogger({
    component: 'workload-test',
    level: process.env['KF_TEST_LOG'] === '1' ? 'debug' : 'silent',
  });
  const stateful = options.statefulFailoverInjection ?? false;
  const workload = createWorkloadDeps(kc, log, { statefulFailoverInjection: stateful });
  const { bindings, events } = workload.deps;
  const gracefulEviction =
    options.failover === undefined
      ? []
      : [
          gracefulEvictionController({
            bindings,
            events,
            timeoutMs: options.failover.gracefulEvictionTimeoutMs,
          }),
        ];
  const abort = new AbortController();
  const running = [
    ...workload.runnables.map((r) => r.start(abort.signal)),
    ...[...workloadControllers(workload.deps), ...gracefulEviction].map((c) =>
      runController(c, { log }, abort.signal),
    ),
  ];
  // application-failover runs under its own signal so that a test can restart it.
  let appFailover: { abort: AbortController; done: Promise<void> } | undefined;
  const startApplicationFailover = (): void => {
    if (options.failover === undefined) return;
    const own = new AbortController();
    const controller = applicationFailoverController({
      bindings,
      events,
      gates: { gracefulEviction: true, statefulFailoverInjection: stateful },
    });
    appFailover = { abort: own, done: runController(controller, { log }, own.signal) };
  };
  const stopApplicationFailover = async (): Promise<void> => {
    appFailover?.abort.abort();
    await appFailover?.done.catch(() => undefined);
  };
  startApplicationFailover();
  return {
    cp,
    workload: workload.deps,
    clusters: new ResourceClient<Cluster>(kc, clusterKind),
    policies: new ResourceClient<PropagationPolicy>(kc, propagationPolicyKind),
    clusterPolicies: new ResourceClient<PropagationPolicy>(kc, clusterPropagationPolicyKind),
    clusterBindings: new ResourceClient<ResourceBinding>(kc, clusterResourceBindingKind),
    clusterRoles: new ResourceClient<ResourceTemplate>(kc, CLUSTER_ROLES),
    bindings: new ResourceClient<ResourceBinding>(kc, resourceBindingKind),
    works: new ResourceClient<Work>(kc, workKind),
    deployments: new ResourceClient<ResourceTemplate>(kc, DEPLOYMENTS),
    restartApplicationFailover: async () => {
      await stopApplicationFailover();
      startApplicationFailover();
    },
    stop: async () => {
      await stopApplicationFailover();
      abort.abort();
      await Promise.allSettled(running);
      await workload.deps.events.flush();
      await cp.destroy();
    },
  };
}

/** A Ready member as its agent would report it: serving Deployments, with room for 100 pods. */
export async function createReadyCluster(h: Harness, name: string): Promise<void> {
  await h.clusters.create({ metadata: { name }, spec: { syncMode: 'Pull' } });
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await h.clusters.patchStatus(name, {
    status: {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'ClusterReady',
          message: 'cluster is healthy and ready to accept workloads',
          lastTransitionTime: now,
        },
      ],
      apiEnablements: [
        { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] },
        { groupVersion: 'v1', resources: [{ name: 'services', kind: 'Service' }] },
        {
          groupVersion: 'rbac.authorization.k8s.io/v1',
          resources: [{ name: 'clusterroles', kind: 'ClusterRole' }],
        },
      ],
      resourceSummary: {
        allocatable: { cpu: '64', memory: '256Gi', pods: '100' },
        allocated: { cpu: '0', memory: '0', pods: '0' },
      },
    },
  });
  // A binding scheduled before the controllers' own cache has seen this status would leave the
  // cluster out (on a loaded machine the watch event can lag the test's next step).
  await waitUntil(
    `${name} Ready in the controllers' cache`,
    async () =>
      Promise.resolve(
        findCondition(h.workload.clusters.get(name)?.status?.conditions, 'Ready')?.status === 'True',
      ),
    { timeoutMs: 30_000, intervalMs: 50 },
  );
}

/** The Deployment template a user would apply (KWOK-friendly; the image is never pulled). */
export function deployment(name: string, replicas: number, namespace = 'default'): ResourceTemplate {
  // As JSON, the way it reaches the API server (client-node's types carry Dates, templates strings).
  return JSON.parse(JSON.stringify(demoDeployment(name, replicas, namespace))) as ResourceTemplate;
}

/** Works of a binding, as `{ cluster: replicas }` of their Deployment manifest. */
export async function workReplicas(h: Harness, bindingName: string): Promise<Record<string, number>> {
  const { items } = await h.works.list();
  const out: Record<string, number> = {};
  for (const w of items) {
    if (w.metadata.annotations?.['resourcebinding.karmada.io/name'] !== bindingName) continue;
    const manifest = w.spec.workload?.manifests?.[0] as { spec?: { replicas?: number } } | undefined;
    out[(w.metadata.namespace ?? '').replace('karmada-es-', '')] = manifest?.spec?.replicas ?? -1;
  }
  return out;
}

/**
 * Does what the agent does for a deleted Work once the member objects are gone: releases its
 * finalizer. Returns how many Works remain for the binding.
 */
export async function releaseDeletedWorks(h: Harness, bindingName: string): Promise<number> {
  const { items } = await h.works.list();
  const mine = items.filter(
    (w) => w.metadata.annotations?.['resourcebinding.karmada.io/name'] === bindingName,
  );
  for (const w of mine) {
    if (w.metadata.deletionTimestamp === undefined) continue;
    await h.works
      .mergePatch(`${w.metadata.namespace}/${w.metadata.name}`, { metadata: { finalizers: null } })
      .catch(() => undefined);
  }
  return mine.length;
}

/**
 * What the agent reports for a Work carrying one object (a Deployment `deployment` unless `kind`
 * says otherwise): applied, with this reflected status and health.
 */
export async function reportWork(
  h: Harness,
  work: {
    readonly cluster: string;
    readonly name: string;
    readonly deployment: string;
    readonly kind?: { readonly group: string; readonly version: string; readonly kind: string };
  },
  report: { readonly health: 'Healthy' | 'Unhealthy'; readonly status: Record<string, unknown> },
): Promise<void> {
  const kind = work.kind ?? { group: 'apps', version: 'v1', kind: 'Deployment' };
  await h.works.patchStatus(`${executionNamespaceFor(work.cluster)}/${work.name}`, {
    status: appliedWorkStatus({ ...kind, namespace: 'default', name: work.deployment }, report),
  });
}
