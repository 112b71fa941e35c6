/**
 * Which propagation policy governs a resource template: the policy that already claimed
 * it while it still matches, otherwise the best matching PropagationPolicy of the template's
 * namespace, otherwise the best ClusterPropagationPolicy. "Best" is the highest explicit
 * `priority`, then the highest implicit priority (name 3 > label selector 2 > match-all 1), then
 * the smaller policy name.
 */
import {
  annotations,
  labels,
  matchesLabelSelector,
  type PropagationPolicy,
  type ResourceSelector,
} from '@kf/api';
import { compareNames } from '../../scheduler/name-order.ts';
import type { ResourceTemplate } from '../template.ts';

export type PolicyScope = 'Namespaced' | 'Cluster';

/** A policy as the detector sees it: its scope decides the claim keys it writes. */
export interface ScopedPolicy {
  readonly scope: PolicyScope;
  readonly policy: PropagationPolicy;
}

export type PolicyChoice =
  /** Propagate with this policy. */
  | ({ readonly kind: 'Apply' } & ScopedPolicy)
  /** The claiming policy is being deleted: retry later. */
  | { readonly kind: 'Wait'; readonly reason: string }
  /** The claiming policy no longer selects the template: leave the binding as it is. */
  | { readonly kind: 'Keep' }
  /** No policy selects the template. */
  | { readonly kind: 'None' };

/** Upstream's implicit priorities of a matching selector. */
export const implicitPriorities = { matchAll: 1, labelSelector: 2, name: 3 } as const;

/**
 * How specifically `sel` selects `t`: 0 when it does not, else one of {@link implicitPriorities}.
 * A name, when set, must match and the label selector is ignored.
 */
export function selectorPriority(sel: ResourceSelector, t: ResourceTemplate): number {
  if (!isSameTypeAndNamespace(sel, t)) return 0;
  if (sel.name !== undefined && sel.name !== '') {
    return sel.name === t.metadata.name ? implicitPriorities.name : 0;
  }
  if (sel.labelSelector === undefined) return implicitPriorities.matchAll;
  return matchesLabelSelector(t.metadata.labels ?? {}, sel.labelSelector)
    ? implicitPriorities.labelSelector
    : 0;
}

/** Same apiVersion and kind, and the selector's namespace (when it names one). */
function isSameTypeAndNamespace(sel: ResourceSelector, t: ResourceTemplate): boolean {
  if (sel.apiVersion !== t.apiVersion || sel.kind !== t.kind) return false;
  const ns = sel.namespace ?? '';
  return ns === '' || ns === (t.metadata.namespace ?? '');
}

/** The highest priority of any selector of `p` for `t`; 0 when none matches. */
export function policyPriority(p: PropagationPolicy, t: ResourceTemplate): number {
  return Math.max(0, ...p.spec.resourceSelectors.map((s) => selectorPriority(s, t)));
}

/** Whether a PropagationPolicy (namespace-bound) or a ClusterPropagationPolicy selects `t`. */
export function policySelects(sp: ScopedPolicy, t: ResourceTemplate): boolean {
  if (sp.scope === 'Namespaced' && sp.policy.metadata.namespace !== (t.metadata.namespace ?? ''))
    return false;
  return policyPriority(sp.policy, t) > 0;
}

/** The best policy among `candidates` for `t`, ignoring deleting ones and those not selecting it. */
export function bestPolicy(
  candidates: readonly PropagationPolicy[],
  scope: PolicyScope,
  t: ResourceTemplate,
): PropagationPolicy | undefined {
  const ranked = candidates
    .filter((p) => p.metadata.deletionTimestamp === undefined && policySelects({ scope, policy: p }, t))
    .map((p) => ({ p, explicit: p.spec.priority ?? 0, implicit: policyPriority(p, t) }))
    .sort(
      (a, b) =>
        b.explicit - a.explicit ||
        b.implicit - a.implicit ||
        compareNames(a.p.metadata.name ?? '', b.p.metadata.name ?? ''),
    );
  return ranked[0]?.p;
}

/** The policy that claimed `t` according to its claim annotations, if any. */
export function claimOf(
  t: ResourceTemplate,
): { readonly scope: PolicyScope; readonly key: string } | undefined {
  const a = t.metadata.annotations ?? {};
  const l = t.metadata.labels ?? {};
  const ppName = a[annotations.propagationPolicyName];
  const ppNamespace = a[annotations.propagationPolicyNamespace];
  if (
    ppName !== undefined &&
    ppNamespace !== undefined &&
    l[labels.propagationPolicyPermanentId] !== undefined
  ) {
    return { scope: 'Namespaced', key: `${ppNamespace}/${ppName}` };
  }
  const cppName = a[annotations.clusterPropagationPolicyName];
  if (cppName !== undefined && l[labels.clusterPropagationPolicyPermanentId] !== undefined) {
    return { scope: 'Cluster', key: cppName };
  }
  return undefined;
}

/**
 * Whether a change of the policy `sp` (its selectors, priority, or deletion) may change which
 * policy governs `t`: when it selects `t`, or when it is the policy that claimed `t`. Templates
 * that neither match it nor are claimed by it stay with whatever governs them now.
 */
export function policyConcerns(sp: ScopedPolicy, t: ResourceTemplate): boolean {
  const claim = claimOf(t);
  if (claim?.scope === sp.scope && claim.key === policyKey(sp)) return true;
  return policySelects(sp, t);
}

function policyKey(sp: ScopedPolicy): string {
  const name = sp.policy.metadata.name ?? '';
  return sp.scope === 'Namespaced' ? `${sp.policy.metadata.namespace ?? ''}/${name}` : name;
}

/**
 * What the detector can look up: policies by key, and the policies that may select a template (a
 * superset of those that do, found through {@link selectorIndexKeys}: with a thousand policies,
 * matching each template against all of them cost more than placing it).
 */
export interface PolicyIndex {
  readonly propagationPolicy: (key: string) => PropagationPolicy | undefined;
  readonly clusterPropagationPolicy: (name: string) => PropagationPolicy | undefined;
  /** PropagationPolicies of `t`'s namespace that may select it. */
  readonly propagationPoliciesFor: (t: ResourceTemplate) => readonly PropagationPolicy[];
  /** ClusterPropagationPolicies that may select `t`. */
  readonly clusterPropagationPoliciesFor: (t: ResourceTemplate) => readonly PropagationPolicy[];
}

/**
 * The index keys of a policy, made of the policy's namespace ('' for a ClusterPropagationPolicy),
 * a selector's type and what a template must carry to match it: the name when the selector names
 * one, else each of its `matchLabels` (a key per label), else nothing more (the selector may match
 * any template of the type). {@link candidatePolicies} finds from these every policy that may
 * select a template.
 */
export function selectorIndexKeys(p: PropagationPolicy): readonly string[] {
  const ns = p.metadata.namespace ?? '';
  return p.spec.resourceSelectors.flatMap((sel) => {
    const type = typeKey(ns, sel.apiVersion, sel.kind);
    if (sel.name !== undefined && sel.name !== '') return [`${type}name\u0000${sel.name}`];
    const matchLabels = Object.entries(sel.labelSelector?.matchLabels ?? {});
    if (matchLabels.length === 0) return [`${type}any`];
    return matchLabels.map(([k, v]) => labelKey(type, k, v));
  });
}

/**
 * The policies of the namespace `ns` ('' for cluster-scoped ones) that may select `t`: a superset
 * of those that do, from an index by {@link selectorIndexKeys}. A policy filed under the type's
 * `any` key or `t`'s name may; one filed by labels may when `t` carries as many of the labels it
 * was filed under as its selector with the fewest `matchLabels` asks for. Counting, not matching:
 * when a thousand policies share one label and differ by another, a template costs a thousand
 * additions instead of a thousand selector matches.
 */
export function candidatePolicies(
  t: ResourceTemplate,
  ns: string,
  lookUp: (key: string) => readonly PropagationPolicy[],
): readonly PropagationPolicy[] {
  const type = typeKey(ns, t.apiVersion ?? '', t.kind ?? '');
  const found = new Set<PropagationPolicy>([
    ...lookUp(`${type}any`),
    ...lookUp(`${type}name\u0000${t.metadata.name}`),
  ]);
  const hits = new Map<PropagationPolicy, number>();
  for (const [k, v] of Object.entries(t.metadata.labels ?? {})) {
    for (const p of lookUp(labelKey(type, k, v))) hits.set(p, (hits.get(p) ?? 0) + 1);
  }
  for (const [p, n] of hits) if (n >= fewestMatchLabels(p)) found.add(p);
  return [...found];
}

/** The fewest `matchLabels` of the policy's selectors filed by labels. */
function fewestMatchLabels(p: PropagationPolicy): number {
  let fewest = Infinity;
  for (const sel of p.spec.resourceSelectors) {
    if (sel.name !== undefined && sel.name !== '') continue;
    const n = Object.keys(sel.labelSelector?.matchLabels ?? {}).length;
    if (n > 0 && n < fewest) fewest = n;
  }
  return fewest;
}

function labelKey(type: string, key: string, value: string): string {
  return `${type}label\u0000${key}\u0000${value}`;
}

function typeKey(ns: string, apiVersion: string, kind: string): string {
  return `${ns}\u0000${apiVersion}\u0000${kind}\u0000`;
}

/** Decides which policy governs `t`, as the module comment says. */
export function choosePolicy(t: ResourceTemplate, index: PolicyIndex): PolicyChoice {
  const claim = claimOf(t);
  if (claim !== undefined) {
    const policy =
      claim.scope === 'Namespaced'
        ? index.propagationPolicy(claim.key)
        : index.clusterPropagationPolicy(claim.key);
    if (policy !== undefined) {
      if (policy.metadata.deletionTimestamp !== undefined) {
        return { kind: 'Wait', reason: `policy ${claim.key} is being deleted` };
      }
      return policySelects({ scope: claim.scope, policy }, t)
        ? { kind: 'Apply', scope: claim.scope, policy }
        : { kind: 'Keep' };
    }
    // The claiming policy is gone: choose afresh (the new claim replaces the stale one).
  }
  const ns = t.metadata.namespace ?? '';
  const pp = ns === '' ? undefined : bestPolicy(index.propagationPoliciesFor(t), 'Namespaced', t);
  if (pp !== undefined) return { kind: 'Apply', scope: 'Namespaced', policy: pp };
  const cpp = bestPolicy(index.clusterPropagationPoliciesFor(t), 'Cluster', t);
  if (cpp !== undefined) return { kind: 'Apply', scope: 'Cluster', policy: cpp };
  return { kind: 'None' };
}
