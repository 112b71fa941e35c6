/** Whether a set of labels matches a metav1.LabelSelector, as Kubernetes reads one. */
import type { LabelSelector, LabelSelectorRequirement } from './meta.ts';

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
  return (selector.matchExpressions ?? []).every((r) => matchesLabelRequirement(labels, r));
}

/**
 * One requirement of a label selector against `labels`, malformed ones matching nothing; also
 * how other key/value sets (a cluster's provider and region) are tested like labels.
 */
export function matchesLabelRequirement(
  labels: Readonly<Record<string, string>>,
  r: LabelSelectorRequirement,
): boolean {
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
