/**
 * Names the workload controllers derive from a resource template, as upstream derives them
 * (`pkg/util/names`), so that bindings and Works line up with what Karmada itself would create.
 */
import { fnv1a32 } from './scheduler/name-order.ts';

/** `<name>-<kind>` lowercased, `:` in the name replaced by `.`: Deployment `nginx` → `nginx-deployment`. */
export function bindingNameFor(kind: string, name: string): string {
  return `${name.replaceAll(':', '.')}-${kind}`.toLowerCase();
}

/** What upstream encodes hash digits with (`k8s.io/apimachinery/pkg/util/rand.SafeEncodeString`). */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * The Work name of a template: the lowercased name plus an encoded FNV-1a-32 hash of
 * `[namespace-]name-kind`, e.g. Deployment `default/nginx` → `nginx-687f7fb96f`.
 */
export function workNameFor(kind: string, name: string, namespace: string | undefined): string {
  const n = name.replaceAll(':', '.').toLowerCase();
  const key = (
    namespace === undefined || namespace === '' ? `${n}-${kind}` : `${namespace}-${n}-${kind}`
  ).toLowerCase();
  return `${n}-${safeEncodedHash(key)}`;
}

/** The FNV-1a-32 hash of `text`, its decimal digits encoded as upstream's names encode them. */
export function safeEncodedHash(text: string): string {
  let encoded = '';
  for (const d of String(fnv1a32(text)))
    encoded += SAFE_ALPHABET.charAt(d.charCodeAt(0) % SAFE_ALPHABET.length);
  return encoded;
}
