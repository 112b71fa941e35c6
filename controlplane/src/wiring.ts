/**
 * What every controller of the control plane is built from: the configuration, the process's
 * logger, clock, registry and event recorder, and shared watch caches. A cache is created on first
 * use only, so disabled controllers cost no watch; every cache created is run by the app on every
 * replica (followers keep warm caches for a fast takeover).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import {
  clusterKind,
  clusterResourceBindingKind,
  clusterTaintPolicyKind,
  multiClusterIngressKind,
  namespaces,
  remedyKind,
  resourceBindingKind,
  workloadRebalancerKind,
  type Cluster,
  type ClusterResourceBinding,
  type MultiClusterIngress,
  type Remedy,
  type ResourceBinding,
  type WorkloadRebalancer,
} from '@kf/api';
import {
  LEASE_RESOURCE,
  WatchCache,
  type EventRecorder,
  type KubeObject,
  type Lease,
  type ResourceDescriptor,
  type WatchCacheMetrics,
} from '@kf/kube';
import type { Clock, ControllerSpec, Logger, Runnable, RunnerDeps } from '@kf/runtime';
import { cachedFormFor } from './cached-forms.ts';
import type { ControlPlaneConfig } from './cli.ts';
import type { HeldClusterTaintPolicy } from './controllers/taint-policy/policy-taints.ts';
import { CONTROL_PLANE_TRANSPORT } from './connections.ts';

export interface ControlPlaneWiring {
  readonly config: ControlPlaneConfig;
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  readonly clock: Clock;
  readonly random: () => number;
  readonly registry: Registry;
  readonly events: EventRecorder;
  readonly caches: SharedCaches;
  /** How the process runs controllers (logger, clock, controller metrics): for those a set starts itself. */
  readonly runner: RunnerDeps;
}

/** What a controller set brings: its controllers (leader-bound) and what they run on (every replica). */
export interface ControllerSetParts {
  readonly controllers: readonly ControllerSpec[];
  /** Caches and the like the set owns, run on every replica for the life of the process. */
  readonly runnables?: readonly Runnable[];
  /** What the set reads through that has not listed yet, by name: /readyz waits for it too. */
  readonly unsynced?: () => readonly string[];
  /**
   * Resolves once every cache the set owns has ended its first list (listed, or failed to): the
   * process is warm only then (see SharedCaches.firstListsEnded).
   */
  readonly firstListsEnded?: () => Promise<void>;
}

/** A set of controllers built from the shared wiring (see extra-controllers.ts). */
export type ControllerSet = (wiring: ControlPlaneWiring) => ControllerSetParts;

export interface CacheOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface SharedCachesOptions {
  readonly clock: Clock;
  readonly random: () => number;
  /** Restart and backoff metrics of every watch cache of the process (made once per registry). */
  readonly metrics?: WatchCacheMetrics;
}

/**
 * Watch caches shared by every controller of the process, created on first use, each keeping its
 * objects in the form the controllers read (see cached-forms.ts).
 */
export class SharedCaches {
  /** What every watch cache of the process reports to, these and those built elsewhere. */
  readonly metrics: WatchCacheMetrics | undefined;
  readonly #kubeConfig: KubeConfig;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #caches = new Map<string, WatchCache<KubeObject>>();

  constructor(kubeConfig: KubeConfig, log: Logger, options: SharedCachesOptions) {
    this.#kubeConfig = kubeConfig;
    this.#log = log;
    this.#clock = options.clock;
    this.#random = options.random;
    this.metrics = options.metrics;
  }

  /** The one cache of `resource` (with these options) in this process. */
  cache<T extends KubeObject>(resource: ResourceDescriptor, options: CacheOptions = {}): WatchCache<T> {
    const id = JSON.stringify([resource.group, resource.version, resource.plural, options]);
    let cache = this.#caches.get(id);
    if (cache === undefined) {
      cache = new WatchCache<KubeObject>({
        kubeConfig: this.#kubeConfig,
        transport: CONTROL_PLANE_TRANSPORT,
        resource,
        log: this.#log,
        clock: this.#clock,
        random: this.#random,
        ...(this.metrics === undefined ? {} : { metrics: this.metrics }),
        transform: cachedFormFor(resource),
        ...options,
      });
      this.#caches.set(id, cache);
    }
    return cache as unknown as WatchCache<T>;
  }

  /**
   * Resolves once every cache created so far has ended its first list, filled or failed (a
   * resource not served must not hold back the controllers that do not read it): the process is
   * warm, and the controllers' first passes over every key may take the thread (RunnerDeps.warm).
   */
  async firstListsEnded(): Promise<void> {
    await Promise.all([...this.#caches.values()].map((c) => c.firstListEnded()));
  }

  /** Every cache created so far, with a name for the manager. */
  created(): readonly { readonly name: string; readonly cache: WatchCache<KubeObject> }[] {
    return [...this.#caches.entries()].map(([id, cache], i) => ({
      name: `cache-${i}-${shortName(id)}`,
      cache,
    }));
  }

  clusters(): WatchCache<Cluster> {
    return this.cache<Cluster>(clusterKind);
  }

  /** Cluster heartbeat Leases (namespace `karmada-cluster`). */
  clusterLeases(): WatchCache<Lease> {
    return this.cache<Lease>(LEASE_RESOURCE, { namespace: namespaces.cluster });
  }

  resourceBindings(): WatchCache<ResourceBinding> {
    return this.cache<ResourceBinding>(resourceBindingKind);
  }

  clusterResourceBindings(): WatchCache<ClusterResourceBinding> {
    return this.cache<ClusterResourceBinding>(clusterResourceBindingKind);
  }

  clusterTaintPolicies(): WatchCache<HeldClusterTaintPolicy> {
    return this.cache<HeldClusterTaintPolicy>(clusterTaintPolicyKind);
  }

  remedies(): WatchCache<Remedy> {
    return this.cache<Remedy>(remedyKind);
  }

  multiClusterIngresses(): WatchCache<MultiClusterIngress> {
    return this.cache<MultiClusterIngress>(multiClusterIngressKind);
  }

  workloadRebalancers(): WatchCache<WorkloadRebalancer> {
    return this.cache<WorkloadRebalancer>(workloadRebalancerKind);
  }
}

function shortName(id: string): string {
  const [group, , plural] = JSON.parse(id) as [string, string, string];
  return group === '' ? plural : `${plural}.${group}`;
}
