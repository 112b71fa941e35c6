/**
 * Whether a cluster matches a ClusterAffinity: exclusions, label selector, field selector on
 * provider/region/zone, then the name list. Every set part must match.
 */
import {
  matchesLabelRequirement,
  matchesLabelSelector,
  type ClusterAffinity,
  type FieldSelectorRequirement,
} from '@kf/api';
import type { ClusterView } from './cluster-view.ts';

/** The parts of a cluster an affinity reads. */
export type AffinityTarget = Pick<ClusterView, 'name' | 'labels' | 'provider' | 'region' | 'zones'>;

export function matchesAffinity(cluster: AffinityTarget, affinity: ClusterAffinity): boolean {
  if (affinity.exclude?.includes(cluster.name) === true) return false;
  if (affinity.labelSelector !== undefined && !matchesLabelSelector(cluster.labels, affinity.labelSelector)) {
    return false;
  }
  const fields = affinity.fieldSelector?.matchExpressions ?? [];
  if (!fields.every((r) => matchesField(cluster, r))) return false;
  const names = affinity.clusterNames ?? [];
  return names.length === 0 || names.includes(cluster.name);
}

/**
 * `zone` tests the cluster's zone list; `provider` and `region` are tested like labels of a set
 * holding only the non-empty ones (so `NotIn` matches a cluster lacking the field, `In` does not).
 */
function matchesField(cluster: AffinityTarget, r: FieldSelectorRequirement): boolean {
  const values = r.values ?? [];
  if (r.key === 'zone') return matchesZones(cluster.zones, r.operator, values);
  const fields: Record<string, string> = {};
  if (cluster.provider !== '') fields['provider'] = cluster.provider;
  if (cluster.region !== '') fields['region'] = cluster.region;
  return matchesLabelRequirement(fields, r);
}

/** Operators beyond In/NotIn are refused by admission; they are still read as upstream reads them. */
function matchesZones(zones: readonly string[], operator: string, values: readonly string[]): boolean {
  switch (operator) {
    case 'In':
      return zones.some((z) => values.includes(z));
    case 'NotIn':
      return !zones.some((z) => values.includes(z));
    case 'Exists':
      return zones.length > 0;
    case 'DoesNotExist':
      return zones.length === 0;
    default:
      return false;
  }
}
