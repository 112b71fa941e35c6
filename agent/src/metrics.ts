/** The agent's metric families: the member side's, for the one cluster it runs for. */
import type { Registry } from 'prom-client';
import { DEFAULT_METRIC_PREFIX } from '@kf/runtime';
import { memberMetricFamilies, type MemberMetrics } from '@kf/member';

export type AgentMetrics = MemberMetrics;

/** Upstream's cluster families, and the agent's own under `karmada_failover_agent_`. */
export function createAgentMetrics(registry: Registry, cluster: string): AgentMetrics {
  return memberMetricFamilies(registry, `${DEFAULT_METRIC_PREFIX}agent_`).forCluster(cluster);
}
