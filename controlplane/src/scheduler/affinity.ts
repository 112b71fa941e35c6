/**
 * Whether a cluster matches a ClusterAffinity: exclusions, label selector, field selector on
 * provider/region/zone, then the name list. Every set part must match.
 */
import type {
  ClusterAffinity,
  FieldSelectorRequirement,
  LabelSelector,
  LabelSelectorRequirement,
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
 * Kubernetes label selector semantics; an empty selector matches everything. A malformed
 * requirement (`In` without values, `Exists` with values, an unknown operator) matches nothing,
 * since Kubernetes refuses to build such a selector.
 */
export function matchesLabelSelector(
  labels: Readonly<Record<string, string>>,
  selector: LabelSelector,
): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  return (selector.matchExpressions ?? []).every((r) => matchesRequirement(labels, r));
}

function matchesRequirement(labels: Readonly<Record<string, string>>, r: LabelSelectorRequirement): boolean {
  const values = r.values ?? [];
  if (!isWellFormed(r.operator, values)) return false;
  const value = Object.hasOwn(labels, r.key) ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
  }
}

/** `In`/`NotIn` need values, `Exists`/`DoesNotExist` take none, other operators are unknown. */
function isWellFormed(operator: string, values: readonly string[]): boolean {
  if (operator === 'In' || operator === 'NotIn') return values.length > 0;
  return (operator === 'Exists' || operator === 'DoesNotExist') && values.length === 0;
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
  return matchesRequirement(fields, r);
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
