/**
 * How an attached binding records which bindings depend on it: a label
 * `resourcebinding.karmada.io/depended-by-<reference key>` per dependant, valued with the
 * dependant's permanent id, as upstream's dependencies distributor labels them. The reference
 * key is upstream's `GenerateBindingReferenceKey`: the FNV-1a-32 hash of `<namespace>/<name>`,
 * its decimal digits encoded like `rand.SafeEncodeString`.
 */
import { safeEncodedHash } from '../../names.ts';

const DEPENDED_BY_LABEL_PREFIX = 'resourcebinding.karmada.io/depended-by-';

/** Upstream's `GenerateBindingReferenceKey(namespace, name)`. */
export function bindingReferenceKey(namespace: string | undefined, name: string): string {
  return safeEncodedHash(namespace === undefined || namespace === '' ? name : `${namespace}/${name}`);
}

/** The label an attached binding carries for the dependant binding `namespace/name`. */
export function dependedByLabel(namespace: string | undefined, name: string): string {
  return DEPENDED_BY_LABEL_PREFIX + bindingReferenceKey(namespace, name);
}
