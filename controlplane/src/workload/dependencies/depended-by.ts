/**
 * How an attached binding records which bindings depend on it: a label
 * `resourcebinding.karmada.io/depended-by-<reference key>` per dependant, valued with the
 * dependant's permanent id, as upstream's dependencies distributor labels them. The reference
 * key is upstream's `GenerateBindingReferenceKey`: the FNV-1a-32 hash of `<namespace>/<name>`,
 * its decimal digits encoded like `rand.SafeEncodeString`.
 */
import { fnv1a32 } from '../../scheduler/name-order.ts';

export const DEPENDED_BY_LABEL_PREFIX = 'resourcebinding.karmada.io/depended-by-';

/** The alphabet `k8s.io/apimachinery/pkg/util/rand.SafeEncodeString` maps bytes into. */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** Upstream's `GenerateBindingReferenceKey(namespace, name)`. */
export function bindingReferenceKey(namespace: string | undefined, name: string): string {
  const text = namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
  let encoded = '';
  for (const d of String(fnv1a32(text)))
    encoded += SAFE_ALPHABET.charAt(d.charCodeAt(0) % SAFE_ALPHABET.length);
  return encoded;
}

/** The label an attached binding carries for the dependant binding `namespace/name`. */
export function dependedByLabel(namespace: string | undefined, name: string): string {
  return DEPENDED_BY_LABEL_PREFIX + bindingReferenceKey(namespace, name);
}
