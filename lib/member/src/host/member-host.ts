/**
 * The member side's controllers for one cluster, built the same way by both hosts: the agent (its
 * own cluster, from inside it) and the control plane (each Push cluster, from outside). What
 * differs between the two is passed in: the Work cache, the field manager, the Event recorder, the
 * self-fence (the agent's alone) and what the host does after a renewal.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { clusterKind, workKind, type Cluster, type Work } from '@kf/api';
import {
  DEFAULT_PING_INTERVAL_MS,
  LEASE_RESOURCE,
  ResourceClient,
  type EventRecorder,
  type Lease,
  type TransportOptions,
  type WatchCache,
} from '@kf/kube';
import type { Clock, ControllerSpec, Logger, Runnable } from '@kf/runtime';
import { clusterStatusController } from '../controllers/cluster-status/controller.ts';
import type { WorkDeps } from '../controllers/execution/controller.ts';
import type { FenceWiring } from '../controllers/execution/fenced-apply.ts';
import type { MemberObject } from '../controllers/execution/manifest-plan.ts';
import { heartbeatRunnable } from '../controllers/heartbeat/heartbeat.ts';
import { renewIntervalMs } from '../controllers/heartbeat/lease-plan.ts';
import { KeyTrigger } from '../controllers/key-trigger.ts';
import type { InterpreterCustomizations } from '../interpreter/customizations.ts';
import { discoverMember, memberVersion } from '../member/discovery.ts';
import { probeMemberHealth } from '../member/health-probe.ts';
import type { MemberMetrics } from '../metrics.ts';
import type { MemberHostConfig } from './host-config.ts';
import type { MemberConnection } from './member-connection.ts';

/** What every part of one cluster's member side is built from. */
export interface MemberHostDeps {
  readonly clusterName: string;
  readonly config: MemberHostConfig;
  /** The control plane, where the Cluster, its Lease, its Works and their Events are. */
  readonly karmada: KubeConfig;
  /** How connections to the control plane are made (default: HTTP/2 offered, as the agent does). */
  readonly karmadaTransport?: TransportOptions;
  /** A cache holding this cluster's Cluster (it may hold others). */
  readonly clusters: WatchCache<Cluster>;
  readonly member: MemberConnection;
  readonly metrics: MemberMetrics;
  readonly log: Logger;
  readonly clock: Clock;
  readonly random: () => number;
}

export interface StatusParts {
  /** The status sync: probe, Ready thresholds, summaries, write-on-change. */
  readonly controller: ControllerSpec;
  /** The heartbeat Lease `karmada-cluster/<cluster>`. */
  readonly heartbeat: Runnable;
}

/** The status controller and the heartbeat; `onRenewed` hears of each renewal (the agent's fence). */
export function memberStatusParts(
  d: MemberHostDeps,
  onRenewed?: (tickStartMono: number) => void,
): StatusParts {
  const { config, member, log } = d;
  // Fired by the heartbeat when it reconnects; the status controller then reasserts at once.
  const reconnected = new KeyTrigger();
  const inventory = (s: AbortSignal) => member.inventory.views(config.clusterCacheSyncTimeoutMs, s);
  const controller = clusterStatusController({
    clusterName: d.clusterName,
    clusters: d.clusters,
    // Its own client, whose default timeout leaves the sync's deadline (up to the Lease duration)
    // in charge, and whose connections do not queue behind others'.
    clusterClient: new ResourceClient<Cluster>(d.karmada, clusterKind, {
      timeoutMs: config.clusterLeaseDurationMs,
      transport: d.karmadaTransport,
    }),
    member: {
      probe: (s) => probeMemberHealth(member.http, s),
      version: (s) => memberVersion(member.http, log, s),
      discover: (s) => discoverMember(member.http, log, s),
      ...(config.enableClusterResourceModeling ? { inventory } : {}),
    },
    thresholds: { successMs: config.clusterSuccessThresholdMs, failureMs: config.clusterFailureThresholdMs },
    periodMs: config.clusterStatusUpdateFrequencyMs,
    leaseDurationMs: config.clusterLeaseDurationMs,
    metrics: d.metrics,
    onDiscovery: (found) => {
      member.mapper.update(found);
    },
    monotonic: () => d.clock.monotonic(),
    reconnected,
  });
  const heartbeat = heartbeatRunnable({
    clusterName: d.clusterName,
    // The client's default timeout leaves each renewal's deadline (under the Lease duration) in charge.
    leases: new ResourceClient<Lease>(d.karmada, LEASE_RESOURCE, {
      timeoutMs: config.clusterLeaseDurationMs,
      transport: d.karmadaTransport,
    }),
    clusterUid: () => d.clusters.get(d.clusterName)?.metadata.uid,
    leaseDurationMs: config.clusterLeaseDurationMs,
    renewIntervalMs: memberRenewIntervalMs(config),
    clock: d.clock,
    random: d.random,
    log,
    metrics: d.metrics,
    onReconnected: () => {
      reconnected.fire(d.clusterName);
    },
    ...(onRenewed === undefined ? {} : { onRenewed }),
  });
  return { controller, heartbeat };
}

export function memberRenewIntervalMs(config: MemberHostConfig): number {
  return renewIntervalMs(config.clusterLeaseDurationMs, config.clusterLeaseRenewIntervalFraction);
}

/**
 * How often the process PINGs its HTTP/2 connections: the default (5 s), or the renew interval
 * when the Lease is renewed more often, so that a connection fallen silent is given up (three
 * intervals and two round trips after it was asked something) well before the Lease lapses.
 */
export function connectionPingIntervalMs(config: MemberHostConfig): number {
  return Math.min(DEFAULT_PING_INTERVAL_MS, memberRenewIntervalMs(config));
}

/** What the Work controllers get that differs between hosts. */
export interface WorkHosting {
  /** The cluster's Works (`karmada-es-<cluster>`). */
  readonly works: WatchCache<Work>;
  readonly fieldManager: string;
  readonly events: Pick<EventRecorder, 'record'>;
  readonly fence?: FenceWiring;
  /** Why fenced Works are refused when there is no fence. */
  readonly noFence?: string;
  readonly customizations?: InterpreterCustomizations;
}

/** The dependencies of the execution and work-status controllers of one cluster. */
export function memberWorkDeps(d: MemberHostDeps, h: WorkHosting): WorkDeps {
  const { member } = d;
  return {
    clusterName: d.clusterName,
    works: h.works,
    workClient: new ResourceClient<Work>(d.karmada, workKind, { transport: d.karmadaTransport }),
    memberObjects: member.objects,
    mapper: member.mapper,
    fieldManager: h.fieldManager,
    metrics: d.metrics,
    workers: d.config.concurrentWorkSyncs,
    events: h.events,
    namespaces: {
      resources: () => member.mapper.namespacedResources(),
      list: async (mapping, namespace, signal) =>
        (await new ResourceClient<MemberObject>(member.kubeConfig, mapping).list({ namespace, signal }))
          .items,
    },
    ...(h.fence === undefined ? {} : { fence: h.fence }),
    ...(h.noFence === undefined ? {} : { noFence: h.noFence }),
    ...(h.customizations === undefined ? {} : { customizations: h.customizations }),
  };
}
