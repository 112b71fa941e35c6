/**
 * Name ordering as upstream's Go code orders strings (byte-wise, not by locale), and the
 * per-binding direction used to break apportionment ties.
 */

/** Byte-wise comparison of two names (UTF-16 code units; identical for Kubernetes names). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Which name wins an apportionment tie. */
export type NameOrder = 'ascending' | 'descending';

const FNV_OFFSET_BASIS = 2166136261;
const FNV_PRIME = 16777619;
const utf8 = new TextEncoder();

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET_BASIS;
  for (const byte of utf8.encode(text)) hash = Math.imul(hash ^ byte, FNV_PRIME) >>> 0;
  return hash;
}

/**
 * Spreads tie-breaking over bindings instead of always favouring the first names: ascending
 * when the resource UID is empty or hashes to an even number, descending when it hashes odd.
 */
export function nameOrderFor(uid: string): NameOrder {
  return uid !== '' && (fnv1a32(uid) & 1) === 1 ? 'descending' : 'ascending';
}
