/**
 * The workload half of the control plane: resource templates → bindings → schedule → Works →
 * status back into bindings and templates. `createWorkloadDeps` builds the caches and clients
 * these controllers share; the process runs its `runnables` (the caches, not leader-bound) and
 * registers `workloadControllers(deps)` (leader-bound).
 */
import { randomUUID } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  clusterKind,
  clusterPropagationPolicyKind,
  clusterResourceBindingKind,
  defaultSchedulerName,
  propagationPolicyKind,
  resourceBindingKind,
  resourceInterpreterCustomizationKind,
  workKind,
  type Cluster,
  type PropagationPolicy,
  type ResourceBinding,
  type ResourceInterpreterCustomization,
  type Work,
} from '@kf/api';
import type { ResourceClient } from '@kf/kube';
import {
  EventRecorder,
  WatchCache,
  type KubeObject,
  type ResourceDescriptor,
  type WatchCacheMetrics,
} from '@kf/kube';
import type { Clock, ControllerSpec, Logger, Runnable } from '@kf/runtime';
import type { SchedulerOptions } from '../scheduler/schedule.ts';
import { bindingStatusController } from './binding-status/controller.ts';
import { NAMESPACE_RESOURCE } from '../controllers/cluster/controller.ts';
import { bindingController } from './binding/controller.ts';
import { dependenciesDistributorController } from './dependencies/controller.ts';
import { interpreterFeed, type InterpreterFeed } from './interpreter/feed.ts';
import { namespaceSyncController } from './namespace-sync/controller.ts';
import type { NamespaceObject } from './namespace-sync/plan.ts';
import type { BindingStore } from '../bindings.ts';
import { discoveryKinds } from './kind-discovery/discovery-kinds.ts';
import type { KindCatalog } from './kinds.ts';
import { resourceDetectorController } from './resource-detector/controller.ts';
import { schedulerController } from './scheduler/controller.ts';
import { TemplateCaches } from './template-caches.ts';
import { CONTROL_PLANE_TRANSPORT, controlPlaneClient } from '../connections.ts';

export { builtInKinds, type KindCatalog, type KindResolver } from './kinds.ts';
export { DiscoveryKinds, discoveryKinds } from './kind-discovery/discovery-kinds.ts';
export { TemplateCaches } from './template-caches.ts';
export { InterpreterFeed } from './interpreter/feed.ts';
export type { BindingStore } from '../bindings.ts';

/** Everything the workload controllers read and write through. */
export interface WorkloadDeps {
  readonly templates: TemplateCaches;
  readonly propagationPolicies: WatchCache<PropagationPolicy>;
  readonly clusterPropagationPolicies: WatchCache<PropagationPolicy>;
  readonly bindings: BindingStore;
  readonly clusters: WatchCache<Cluster>;
  readonly works: WatchCache<Work>;
  readonly workClient: ResourceClient<Work>;
  /** The control plane's Namespaces, which every member gets (see namespace-sync). */
  readonly namespaces: WatchCache<NamespaceObject & KubeObject>;
  readonly events: EventRecorder;
  readonly log: Logger;
  /** A fresh binding permanent id. */
  readonly newId: () => string;
  /** `--scheduler-name`. */
  readonly schedulerName: string;
  readonly schedulerOptions?: Partial<Omit<SchedulerOptions, 'onNoClusterFit'>>;
  /** Gate StatefulFailoverInjection: preserved state is captured and injected. */
  readonly statefulFailoverInjection?: boolean;
  /** Gate PropagateDeps: the dependencies distributor runs unless false. */
  readonly propagateDeps?: boolean | undefined;
  /**
   * The ResourceInterpreterCustomizations' scripts: replicas (resource-detector), each cluster's
   * replicas (binding) and the template's status (binding-status) of the kinds they target.
   */
  readonly interpreter: InterpreterFeed;
}

export interface WorkloadDepsOptions {
  readonly schedulerName?: string;
  readonly schedulerOptions?: Partial<Omit<SchedulerOptions, 'onNoClusterFit'>>;
  /**
   * Template kinds a policy may select. Default: the built-in kinds plus whatever the API
   * server's discovery serves (custom resources, CRDs installed later), with the discovery loop
   * among the `runnables`.
   */
  readonly kinds?: KindCatalog;
  /** Event `source.component` (default `karmada-controller-manager`). */
  readonly component?: string;
  readonly clock?: Clock;
  readonly newId?: () => string;
  /**
   * Where the Cluster, policy, binding and Work caches come from. A process that already shares
   * caches between controllers passes its own (e.g. `(r) => caches.cache(r)`) and runs them
   * itself; without it the caches are created here and returned in `runnables`.
   */
  readonly cacheOf?: <T extends KubeObject>(resource: ResourceDescriptor) => WatchCache<T>;
  /** An event recorder to share (default: one made here). */
  readonly events?: EventRecorder;
  /** Restart and backoff metrics for the caches made here (the process's one set). */
  readonly watchMetrics?: WatchCacheMetrics;
  /** Gate StatefulFailoverInjection (default off). */
  readonly statefulFailoverInjection?: boolean;
  /** Gate PropagateDeps (default on). */
  readonly propagateDeps?: boolean;
}

export interface Workload {
  readonly deps: WorkloadDeps;
  /**
   * The caches, to run for the life of the process (`needLeaderElection: false`); the
   * controllers' workers start once they have listed.
   */
  readonly runnables: readonly Runnable[];
}

/** The `metrics` option of the watch caches made here, when the process has them. */
function watchMetricsOf(opts: WorkloadDepsOptions): { readonly metrics?: WatchCacheMetrics } {
  return opts.watchMetrics === undefined ? {} : { metrics: opts.watchMetrics };
}

/** Builds the caches, clients and event recorder of the workload controllers. */
export function createWorkloadDeps(
  kubeConfig: KubeConfig,
  log: Logger,
  opts: WorkloadDepsOptions = {},
): Workload {
  const own: { readonly name: string; readonly cache: WatchCache<KubeObject> }[] = [];
  const cache = <T extends KubeObject>(resource: ResourceDescriptor): WatchCache<T> => {
    if (opts.cacheOf !== undefined) return opts.cacheOf<T>(resource);
    const c = new WatchCache<T>({
      kubeConfig,
      transport: CONTROL_PLANE_TRANSPORT,
      resource,
      log,
      ...(opts.clock === undefined ? {} : { clock: opts.clock }),
      ...watchMetricsOf(opts),
    });
    own.push({ name: resource.plural, cache: c as unknown as WatchCache<KubeObject> });
    return c;
  };
  const discovery =
    opts.kinds === undefined
      ? discoveryKinds(kubeConfig, log.child({ component: 'kind-discovery' }), {
          ...(opts.clock === undefined ? {} : { clock: opts.clock }),
        })
      : { kinds: opts.kinds, run: undefined };
  const templates = new TemplateCaches({
    kubeConfig,
    log,
    kinds: discovery.kinds,
    initial: [['apps/v1', 'Deployment']],
    ...watchMetricsOf(opts),
  });
  // The scripts of ResourceInterpreterCustomizations: the controllers wait for the interpreter
  // (and so for the customizations' cache) before their first key.
  const interpreter = interpreterFeed(
    cache<ResourceInterpreterCustomization>(resourceInterpreterCustomizationKind),
  );
  const deps: WorkloadDeps = {
    templates,
    propagationPolicies: cache<PropagationPolicy>(propagationPolicyKind),
    clusterPropagationPolicies: cache<PropagationPolicy>(clusterPropagationPolicyKind),
    bindings: {
      resourceBindings: cache<ResourceBinding>(resourceBindingKind),
      clusterResourceBindings: cache<ResourceBinding>(clusterResourceBindingKind),
      resourceBindingClient: controlPlaneClient<ResourceBinding>(kubeConfig, resourceBindingKind),
      clusterResourceBindingClient: controlPlaneClient<ResourceBinding>(
        kubeConfig,
        clusterResourceBindingKind,
      ),
    },
    clusters: cache<Cluster>(clusterKind),
    works: cache<Work>(workKind),
    workClient: controlPlaneClient<Work>(kubeConfig, workKind),
    namespaces: cache<NamespaceObject & KubeObject>(NAMESPACE_RESOURCE),
    events:
      opts.events ??
      new EventRecorder({
        kubeConfig,
        transport: CONTROL_PLANE_TRANSPORT,
        component: opts.component ?? 'karmada-controller-manager',
        log,
        ...(opts.clock === undefined ? {} : { clock: opts.clock }),
      }),
    log,
    newId: opts.newId ?? randomUUID,
    schedulerName: opts.schedulerName ?? defaultSchedulerName,
    ...(opts.schedulerOptions === undefined ? {} : { schedulerOptions: opts.schedulerOptions }),
    statefulFailoverInjection: opts.statefulFailoverInjection ?? false,
    propagateDeps: opts.propagateDeps,
    interpreter,
  };
  templates.followSelectors(deps.propagationPolicies);
  templates.followSelectors(deps.clusterPropagationPolicies);
  const run = (name: string, c: { run(signal: AbortSignal): Promise<void> }): Runnable => ({
    name,
    needLeaderElection: false,
    start: (signal) => c.run(signal),
  });
  return {
    deps,
    runnables: [
      ...(discovery.run === undefined ? [] : [run('kind-discovery', { run: discovery.run })]),
      run('templates', templates),
      run('resource-interpreter', interpreter),
      ...own.map((o) => run(o.name, o.cache)),
    ],
  };
}

/**
 * The workload controllers in pipeline order: resource-detector, scheduler,
 * dependencies-distributor (gate PropagateDeps), binding, binding-status; and namespace, which
 * gives the members the namespaces workloads land in.
 */
export function workloadControllers(deps: WorkloadDeps): ControllerSpec[] {
  return [
    resourceDetectorController(deps),
    schedulerController({
      bindings: deps.bindings,
      clusters: deps.clusters,
      events: deps.events,
      schedulerName: deps.schedulerName,
      ...(deps.schedulerOptions === undefined ? {} : { options: deps.schedulerOptions }),
    }),
    ...(deps.propagateDeps === false ? [] : [dependenciesDistributorController(deps)]),
    bindingController(deps),
    bindingStatusController(deps),
    namespaceSyncController(deps),
  ];
}
