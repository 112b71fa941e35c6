/**
 * The references InterpretDependency returns, checked and merged as Karmada does: each needs an
 * apiVersion, a kind, and a name or a label selector (a valid one); references from several
 * scripts are merged without duplicates and sorted by apiVersion, kind, namespace, then name.
 */
import type { LabelSelector } from '@kf/api';

export interface DependentObjectReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly labelSelector?: LabelSelector;
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Every problem with the references, as `dependencies[i].field: reason` lines; empty when valid. */
export function dependencyProblems(refs: readonly DependentObjectReference[]): string[] {
  const problems: string[] = [];
  refs.forEach((ref, i) => {
    const at = `dependencies[${i}]`;
    if (ref.apiVersion === '') problems.push(`${at}.apiVersion: missing required apiVersion`);
    if (ref.kind === '') problems.push(`${at}.kind: missing required kind`);
    if ((ref.name ?? '') === '' && ref.labelSelector === undefined) {
      problems.push(`${at}: dependency can not leave name and labelSelector all empty`);
    }
    if (ref.labelSelector !== undefined)
      problems.push(...selectorProblems(ref.labelSelector, `${at}.labelSelector`));
  });
  return problems;
}

function selectorProblems(selector: LabelSelector, at: string): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!isQualifiedName(key)) problems.push(`${at}.matchLabels: invalid label key "${key}"`);
    if (!isLabelValue(value)) problems.push(`${at}.matchLabels: invalid label value "${value}"`);
  }
  (selector.matchExpressions ?? []).forEach((r, i) => {
    const where = `${at}.matchExpressions[${i}]`;
    const values = r.values ?? [];
    if (!isQualifiedName(r.key)) problems.push(`${where}.key: invalid label key "${r.key}"`);
    const operator = r.operator as string;
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0)
        problems.push(`${where}.values: must be specified when operator is In or NotIn`);
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0)
        problems.push(`${where}.values: may not be specified when operator is Exists or DoesNotExist`);
    } else {
      problems.push(`${where}.operator: not a valid selector operator "${operator}"`);
    }
    for (const value of values) {
      if (!isLabelValue(value)) problems.push(`${where}.values: invalid label value "${value}"`);
    }
  });
  return problems;
}

function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

function isQualifiedName(key: string): boolean {
  const slash = key.indexOf('/');
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (slash !== -1) {
    const prefix = key.slice(0, slash);
    if (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) return false;
  }
  return name.length > 0 && name.length <= 63 && NAME_PART.test(name);
}

/** The union of `lists` without duplicates, in Karmada's order. */
export function mergeDependencies(
  lists: readonly (readonly DependentObjectReference[])[],
): DependentObjectReference[] {
  const unique = new Map<string, DependentObjectReference>();
  for (const ref of lists.flat()) unique.set(JSON.stringify(ref), ref);
  return [...unique.values()].sort(
    (a, b) =>
      compare(a.apiVersion, b.apiVersion) ||
      compare(a.kind, b.kind) ||
      compare(a.namespace ?? '', b.namespace ?? '') ||
      compare(a.name ?? '', b.name ?? ''),
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
