import { DEFAULT_METRIC_PREFIX, makeCounter, makeGauge, makeHistogram } from '@kf/runtime';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { LOOKUP_RESULT_KINDS } from './dns/resolver.ts';

const P = `${DEFAULT_METRIC_PREFIX}probe_`;

/** Results of a write to the API: `success`, `conflict` (lost a race; retried) or `error`. */
export type WriteResult = 'success' | 'conflict' | 'error';
const WRITE_RESULTS: readonly WriteResult[] = ['success', 'conflict', 'error'];

/** The probe's own metric families; every label set exists (at zero) from the start. */
export interface ProbeMetrics {
  /** One lookup of one configured name (all candidates, servers and attempts), by result. */
  readonly lookupSeconds: Histogram<'result'>;
  /** 1 for the verdict this node reports now (`True` or `False`), 0 for the other. */
  readonly nodeVerdict: Gauge<'status'>;
  /** Writes of this node's condition to its Node. */
  readonly nodeWrites: Counter<'result'>;
  /** Writes of the Cluster condition to the control plane (leader only). */
  readonly clusterWrites: Counter<'result'>;
  /** Nodes counted by the leader's last aggregation, by verdict (True, False, Unknown). */
  readonly clusterNodes: Gauge<'verdict'>;
  /** 1 while this process leads (aggregates and writes the Cluster condition). */
  readonly isLeader: Gauge;
  /** 0 while resolv.conf cannot be read or is not a resolv.conf (nothing is reported then), else 1. */
  readonly resolvConfUsable: Gauge;
}

export function createProbeMetrics(registry: Registry): ProbeMetrics {
  const m: ProbeMetrics = {
    lookupSeconds: makeHistogram(registry, {
      name: `${P}lookup_duration_seconds`,
      help: 'Time to resolve one configured name, search list and retries included, by result.',
      labelNames: ['result'] as const,
    }),
    nodeVerdict: makeGauge(registry, {
      name: `${P}node_verdict`,
      help: 'The debounced verdict this node reports: 1 on the status series in effect (True or False).',
      labelNames: ['status'] as const,
    }),
    nodeWrites: makeCounter(registry, {
      name: `${P}node_condition_writes_total`,
      help: 'Writes of the ServiceDomainNameResolutionReady condition to this Node, by result.',
      labelNames: ['result'] as const,
    }),
    clusterWrites: makeCounter(registry, {
      name: `${P}cluster_condition_writes_total`,
      help: 'Writes of the ServiceDomainNameResolutionReady condition to the Cluster in the control plane, by result.',
      labelNames: ['result'] as const,
    }),
    clusterNodes: makeGauge(registry, {
      name: `${P}cluster_nodes`,
      help: 'Ready nodes by verdict at the leader last aggregation (only the leader sets it).',
      labelNames: ['verdict'] as const,
    }),
    isLeader: makeGauge(registry, {
      name: `${DEFAULT_METRIC_PREFIX}leader_election_is_leader`,
      help: '1 while this process holds the leader Lease, else 0.',
    }),
    resolvConfUsable: makeGauge(registry, {
      name: `${P}resolv_conf_usable`,
      help: '0 while --resolv-conf cannot be read or is not a resolv.conf: the probe then reports nothing, else 1.',
    }),
  };
  for (const result of LOOKUP_RESULT_KINDS) m.lookupSeconds.zero({ result });
  for (const status of ['True', 'False']) m.nodeVerdict.set({ status }, 0);
  for (const result of WRITE_RESULTS) {
    m.nodeWrites.inc({ result }, 0);
    m.clusterWrites.inc({ result }, 0);
  }
  for (const verdict of ['True', 'False', 'Unknown']) m.clusterNodes.set({ verdict }, 0);
  m.isLeader.set(0);
  m.resolvConfUsable.set(1);
  return m;
}
