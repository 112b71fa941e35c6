/**
 * Whether a Cluster is one a ClusterTaintPolicy manages (`spec.targetClusters`, a ClusterAffinity):
 * not excluded, label selector, field selector on provider/region/zone, then the name list. Every
 * set part must match; an unset affinity matches every cluster.
 */
import type {
  Cluster,
  ClusterAffinity,
  FieldSelectorRequirement,
  LabelSelector,
  LabelSelectorRequirement,
} from '@kf/api';

type Labels = Readonly<Record<string, string>>;

/** True when `cluster` matches `affinity` (the rules above); an unset affinity matches every cluster. */
export function isClusterTargeted(cluster: Cluster, affinity: ClusterAffinity | undefined): boolean {
  if (affinity === undefined) return true;
  const name = cluster.metadata.name ?? '';
  if (affinity.exclude?.includes(name) === true) return false;
  const selector = affinity.labelSelector;
  if (selector !== undefined && !isLabelSelectorMatched(cluster.metadata.labels ?? {}, selector))
    return false;
  const fields = affinity.fieldSelector?.matchExpressions ?? [];
  if (!fields.every((r) => isFieldMatched(cluster, r))) return false;
  return isNameListed(name, affinity.clusterNames);
}

/** An empty or absent name list does not restrict. */
function isNameListed(name: string, names: readonly string[] | undefined): boolean {
  return names === undefined || names.length === 0 || names.includes(name);
}

/**
 * Kubernetes label selector semantics: an empty selector matches everything; a requirement that
 * Kubernetes would refuse to build (`In` without values, `Exists` with values, an unknown
 * operator) matches nothing.
 */
export function isLabelSelectorMatched(labels: Labels, selector: LabelSelector): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  return (selector.matchExpressions ?? []).every((r) => isRequirementMatched(labels, r));
}

type RequirementTest = (value: string | undefined, values: readonly string[]) => boolean;

const requirementTests: Readonly<Record<string, RequirementTest>> = {
  In: (value, values) => values.length > 0 && value !== undefined && values.includes(value),
  NotIn: (value, values) => values.length > 0 && (value === undefined || !values.includes(value)),
  Exists: (value, values) => values.length === 0 && value !== undefined,
  DoesNotExist: (value, values) => values.length === 0 && value === undefined,
};

function isRequirementMatched(labels: Labels, r: LabelSelectorRequirement): boolean {
  const test = requirementTests[r.operator];
  if (test === undefined) return false;
  return test(Object.hasOwn(labels, r.key) ? labels[r.key] : undefined, r.values ?? []);
}

/**
 * `zone` tests the cluster's zones (`spec.zones`, or the deprecated `spec.zone`); `provider` and
 * `region` are tested as labels of a set holding only the non-empty ones, so `NotIn` matches a
 * cluster lacking the field and `In` does not (as upstream).
 */
function isFieldMatched(cluster: Cluster, r: FieldSelectorRequirement): boolean {
  const values = r.values ?? [];
  const { spec } = cluster;
  if (r.key === 'zone') {
    const zones = spec.zones ?? (spec.zone === undefined || spec.zone === '' ? [] : [spec.zone]);
    return isZoneMatched(zones, r.operator, values);
  }
  const fields: Record<string, string> = {};
  if (spec.provider !== undefined && spec.provider !== '') fields['provider'] = spec.provider;
  if (spec.region !== undefined && spec.region !== '') fields['region'] = spec.region;
  return isRequirementMatched(fields, r);
}

/** Admission only lets In/NotIn through; the other operators are read as upstream reads them. */
function isZoneMatched(zones: readonly string[], operator: string, values: readonly string[]): boolean {
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
