/**
 * The metric families of the member side. Cluster families keep upstream's names and
 * `member_cluster` label (dashboards work unchanged); the rest use the host's prefix. A host
 * makes the families once per registry and takes one handle per cluster it runs: the agent one,
 * the control plane one per Push cluster (whose series go when the cluster leaves).
 */
import type { Registry } from 'prom-client';
import { parseQuantity } from '@kf/api';
import { makeCounter, makeGauge, makeHistogram } from '@kf/runtime';
import { WORK_APPLY_RESULTS, WORK_DELETE_RESULTS, type MemberMetrics } from '../metrics.ts';

export interface MemberMetricFamilies {
  /** The metrics of one cluster, its series made at zero. */
  forCluster(cluster: string): MemberMetrics;
  /** Drops every series of `cluster`. */
  forget(cluster: string): void;
}

/** Registers the families in `registry`; `prefix` names the host's own (`karmada_failover_agent_`). */
export function memberMetricFamilies(registry: Registry, prefix: string): MemberMetricFamilies {
  const p = prefix;
  const byCluster = ['member_cluster'] as const;
  const gauge = (name: string, help: string) => makeGauge(registry, { name, help, labelNames: byCluster });
  const ready = gauge('cluster_ready_state', 'State of the cluster: 1 if Ready is True, else 0.');
  const nodes = gauge('cluster_node_number', 'Number of nodes in the cluster.');
  const readyNodes = gauge('cluster_ready_node_number', 'Number of ready nodes in the cluster.');
  const memAllocatable = gauge(
    'cluster_memory_allocatable_bytes',
    'Allocatable memory of the cluster in bytes.',
  );
  const cpuAllocatable = gauge('cluster_cpu_allocatable_number', 'Allocatable CPU of the cluster in cores.');
  const podAllocatable = gauge('cluster_pod_allocatable_number', 'Allocatable pods of the cluster.');
  const memAllocated = gauge(
    'cluster_memory_allocated_bytes',
    'Memory requested by scheduled pods in bytes.',
  );
  const cpuAllocated = gauge('cluster_cpu_allocated_number', 'CPU requested by scheduled pods in cores.');
  const podAllocated = gauge('cluster_pod_allocated_number', 'Pods scheduled in the cluster.');
  const syncSeconds = makeHistogram(registry, {
    name: 'cluster_sync_status_duration_seconds',
    help: 'Duration of one cluster status sync (probe, collection and write).',
    labelNames: byCluster,
  });
  const renewSeconds = makeHistogram(registry, {
    name: `${p}lease_renew_duration_seconds`,
    help: 'Duration of a successful renewal of the cluster heartbeat Lease.',
    labelNames: byCluster,
  });
  const renewFailures = makeCounter(registry, {
    name: `${p}lease_renew_failures_total`,
    help: 'Renewals of the cluster heartbeat Lease that failed.',
    labelNames: byCluster,
  });
  const applies = makeCounter(registry, {
    name: `${p}work_applies_total`,
    help: 'Work manifests applied to the member, by result (success, error, refused: an unmanaged object is in the way).',
    labelNames: ['member_cluster', 'result'] as const,
  });
  const deletes = makeCounter(registry, {
    name: `${p}work_deletes_total`,
    help: 'Member objects deleted because their Work was deleted, by result.',
    labelNames: ['member_cluster', 'result'] as const,
  });
  const fenced = makeCounter(registry, {
    name: `${p}fenced_works_total`,
    help: 'Works whose copies the agent deleted itself because it had not renewed its Lease for their fence timeout.',
    labelNames: byCluster,
  });
  const tracked = gauge(
    `${p}fence_tracked_works`,
    'Works with a fence timeout whose copies the fence record lists.',
  );
  const gauges = [
    ready,
    nodes,
    readyNodes,
    memAllocatable,
    cpuAllocatable,
    podAllocatable,
    memAllocated,
    cpuAllocated,
    podAllocated,
    tracked,
  ];
  const amount = (q: string | number | undefined, scale: number): number =>
    q === undefined ? 0 : Number(parseQuantity(q)?.milli ?? 0n) / scale;
  return {
    forCluster(cluster) {
      const l = { member_cluster: cluster };
      for (const g of gauges) g.set(l, 0);
      renewFailures.inc(l, 0);
      fenced.inc(l, 0);
      for (const result of WORK_APPLY_RESULTS) applies.inc({ ...l, result }, 0);
      for (const result of WORK_DELETE_RESULTS) deletes.inc({ ...l, result }, 0);
      return {
        observeCluster(c, isReady) {
          ready.set(l, isReady ? 1 : 0);
          const s = c?.status ?? {};
          const summary = s.resourceSummary ?? {};
          nodes.set(l, s.nodeSummary?.totalNum ?? 0);
          readyNodes.set(l, s.nodeSummary?.readyNum ?? 0);
          const alloc = summary.allocatable ?? {};
          const used = summary.allocated ?? {};
          memAllocatable.set(l, amount(alloc.memory, 1000));
          cpuAllocatable.set(l, amount(alloc.cpu, 1000));
          podAllocatable.set(l, amount(alloc.pods, 1000));
          memAllocated.set(l, amount(used.memory, 1000));
          cpuAllocated.set(l, amount(used.cpu, 1000));
          podAllocated.set(l, amount(used.pods, 1000));
        },
        statusSyncSeconds: (seconds) => {
          syncSeconds.observe(l, seconds);
        },
        leaseRenewed: (seconds) => {
          renewSeconds.observe(l, seconds);
        },
        leaseRenewFailed: () => {
          renewFailures.inc(l);
        },
        workApplied: (result) => {
          applies.inc({ ...l, result });
        },
        workDeleted: (result) => {
          deletes.inc({ ...l, result });
        },
        workFenced: () => {
          fenced.inc(l);
        },
        fenceTracked: (count) => {
          tracked.set(l, count);
        },
      };
    },
    forget(cluster) {
      const l = { member_cluster: cluster };
      for (const m of [...gauges, syncSeconds, renewSeconds, renewFailures, fenced]) m.remove(l);
      for (const result of WORK_APPLY_RESULTS) applies.remove({ ...l, result });
      for (const result of WORK_DELETE_RESULTS) deletes.remove({ ...l, result });
    },
  };
}
