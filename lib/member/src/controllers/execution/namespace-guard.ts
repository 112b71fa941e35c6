/**
 * A member namespace that a deleted Work had propagated goes only when nothing in it is someone
 * else's: deleting a namespace deletes everything inside it. "Someone else's" is a top-level object
 * (no owner) that Karmada does not manage; what the namespace makes for itself (ServiceAccount
 * `default`, ConfigMap `kube-root-ca.crt`), Events and Endpoints (which Services make) do not count,
 * nor does anything with an owner (its owner is judged instead). When the agent cannot see every
 * kind (discovery partial, a kind it may not list), it cannot tell, and keeps the namespace.
 */
import { KubeError, isForbidden, isNotFound } from '@kf/kube';
import type { Mapping } from '../../member/rest-mapper.ts';
import { isManaged, type MemberObject } from './manifest-plan.ts';

export interface NamespaceLister {
  /** Every namespaced resource the member serves; undefined when that is not known for sure. */
  readonly resources: () => Promise<readonly Mapping[] | undefined>;
  readonly list: (
    mapping: Mapping,
    namespace: string,
    signal: AbortSignal,
  ) => Promise<readonly MemberObject[]>;
}

/** Kinds a namespace holds without anyone having put them there. */
const DERIVED_KINDS = new Set(['Event', 'Endpoints', 'EndpointSlice']);

/** Objects every namespace gets from the cluster itself. */
function isBuiltIn(obj: MemberObject): boolean {
  const name = obj.metadata?.name;
  return (
    (obj.kind === 'ServiceAccount' && name === 'default') ||
    (obj.kind === 'ConfigMap' && name === 'kube-root-ca.crt')
  );
}

/** Whether `obj` was put in the namespace by someone other than Karmada. */
export function isForeign(obj: MemberObject): boolean {
  const owners =
    (obj.metadata as { ownerReferences?: readonly unknown[] } | undefined)?.ownerReferences ?? [];
  return owners.length === 0 && !isManaged(obj) && !isBuiltIn(obj) && !DERIVED_KINDS.has(obj.kind ?? '');
}

export type NamespaceContents =
  | { readonly kind: 'ours' }
  | { readonly kind: 'foreign'; readonly examples: readonly string[] }
  | { readonly kind: 'unknown'; readonly why: string };

/** What `namespace` in the member holds, as far as deleting it is concerned. */
export async function namespaceContents(
  lister: NamespaceLister,
  namespace: string,
  signal: AbortSignal,
): Promise<NamespaceContents> {
  const resources = await lister.resources();
  if (resources === undefined) return { kind: 'unknown', why: 'the member’s discovery is incomplete' };
  const examples: string[] = [];
  for (const mapping of resources) {
    if (DERIVED_KINDS.has(mapping.kind)) continue;
    const items = await listIfAllowed(lister, mapping, { namespace, signal });
    if (items === 'forbidden') return { kind: 'unknown', why: `the agent may not list ${mapping.plural}` };
    for (const obj of items) {
      if (examples.length < 3 && isForeign({ ...obj, kind: obj.kind ?? mapping.kind })) {
        examples.push(`${mapping.kind} ${obj.metadata?.name ?? ''}`);
      }
    }
  }
  return examples.length === 0 ? { kind: 'ours' } : { kind: 'foreign', examples };
}

/** The objects of one kind in the namespace; none for a kind that cannot be listed at all. */
async function listIfAllowed(
  lister: NamespaceLister,
  mapping: Mapping,
  where: { readonly namespace: string; readonly signal: AbortSignal },
): Promise<readonly MemberObject[] | 'forbidden'> {
  try {
    return await lister.list(mapping, where.namespace, where.signal);
  } catch (err: unknown) {
    if (isNotFound(err) || (err instanceof KubeError && err.status === 405)) return [];
    if (isForbidden(err)) return 'forbidden';
    throw err;
  }
}
