/**
 * Member clusters without member API servers: Pull Clusters registered on the Karmada control
 * plane whose status and heartbeat Lease are written by this process, as their agents would.
 * For benchmarks that need many Works scheduled and moved but nothing applied.
 */
import { performance } from 'node:perf_hooks';
import { clusterKind, namespaces, setCondition, type Cluster, type ConditionStatus } from '@kf/api';
import {
  LEASE_RESOURCE,
  ResourceClient,
  formatMicroTime,
  isNotFound,
  updateWithRetry,
  type Lease,
} from '@kf/kube';
import type { KubeConfig } from '@kubernetes/client-node';

export interface SimulatedMembersOptions {
  /** How often Leases are renewed (default 1,000 ms). */
  readonly renewIntervalMs?: number;
  /** `spec.leaseDurationSeconds` written to the Leases (default 4). */
  readonly leaseDurationSeconds?: number;
  /**
   * Each member renews on its own schedule, starting at a random point of the first interval, as
   * independent agents do (default false: all together, one round per interval).
   */
  readonly stagger?: boolean;
}

export class SimulatedMembers {
  readonly clusters: ResourceClient<Cluster>;
  readonly #leases: ResourceClient<Lease>;
  readonly #alive = new Set<string>();
  readonly #leaseDurationSeconds: number;
  readonly #renewIntervalMs: number;
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #staggered: boolean;
  /** performance.now() of each member's last renewal the API server accepted. */
  readonly #renewedAt = new Map<string, number>();

  constructor(karmada: KubeConfig, opts: SimulatedMembersOptions = {}) {
    this.clusters = new ResourceClient<Cluster>(karmada, clusterKind);
    this.#leases = new ResourceClient<Lease>(karmada, LEASE_RESOURCE);
    this.#leaseDurationSeconds = opts.leaseDurationSeconds ?? 4;
    this.#renewIntervalMs = opts.renewIntervalMs ?? 1_000;
    this.#staggered = opts.stagger ?? false;
    if (!this.#staggered) {
      this.#timers.push(
        setInterval(() => {
          void Promise.allSettled([...this.#alive].map((n) => this.#renew(n)));
        }, this.#renewIntervalMs),
      );
    }
  }

  /** When the member's last renewal was accepted (performance.now()); undefined before the first. */
  lastRenewedAt(name: string): number | undefined {
    return this.#renewedAt.get(name);
  }

  /**
   * Registers a Pull cluster that serves apps/v1 Deployments with room for `pods` pods, reports
   * Ready=True and renews its Lease from now on.
   */
  async register(name: string, pods = 10_000): Promise<void> {
    await this.clusters.create({ metadata: { name }, spec: { syncMode: 'Pull' } });
    await this.#renew(name);
    this.#alive.add(name);
    if (this.#staggered) this.#schedule(name);
    await this.clusters.patchStatus(name, {
      status: {
        conditions: setCondition(
          undefined,
          {
            type: 'Ready',
            status: 'True',
            reason: 'ClusterReady',
            message: 'cluster is healthy and ready to accept workloads',
          },
          Date.now(),
        ),
        apiEnablements: [
          { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] },
        ],
        resourceSummary: {
          allocatable: { cpu: String(pods), memory: `${pods}Gi`, pods: String(pods) },
          allocated: { cpu: '0', memory: '0', pods: '0' },
        },
      },
    });
  }

  /** Sets a condition on the Cluster's status, as the agent would report it. */
  async setCondition(
    name: string,
    condition: {
      readonly type: string;
      readonly status: ConditionStatus;
      readonly reason: string;
      readonly message?: string;
    },
  ): Promise<void> {
    const { type, status, reason, message = '' } = condition;
    await updateWithRetry({
      read: () => this.clusters.get(name),
      mutate: (c) => ({
        ...c,
        status: {
          ...c.status,
          conditions: setCondition(c.status?.conditions, { type, status, reason, message }, Date.now()),
        },
      }),
      write: (c) => this.clusters.replaceStatus(c),
    });
  }

  /** Stops renewing the Lease (the agent died). */
  silence(name: string): void {
    this.#alive.delete(name);
  }

  revive(name: string): void {
    this.#alive.add(name);
  }

  stop(): void {
    for (const t of this.#timers) clearTimeout(t);
  }

  /** The member's own renewals: from a random point of the first interval, then every interval. */
  #schedule(name: string): void {
    const tick = (): void => {
      if (this.#alive.has(name)) void this.#renew(name).catch(() => undefined);
    };
    this.#timers.push(
      setTimeout(() => {
        tick();
        this.#timers.push(setInterval(tick, this.#renewIntervalMs));
      }, Math.random() * this.#renewIntervalMs),
    );
  }

  async #renew(name: string): Promise<void> {
    const spec = {
      holderIdentity: name,
      leaseDurationSeconds: this.#leaseDurationSeconds,
      renewTime: formatMicroTime(Date.now()),
    };
    const key = `${namespaces.cluster}/${name}`;
    try {
      const lease = await this.#leases.get(key);
      await this.#leases.replace({ ...lease, spec: { ...lease.spec, ...spec } });
    } catch (err: unknown) {
      if (!isNotFound(err)) throw err;
      await this.#leases.create({ metadata: { name, namespace: namespaces.cluster }, spec });
    }
    this.#renewedAt.set(name, performance.now());
  }
}
