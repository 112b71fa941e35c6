/**
 * Two equalities of JSON values, for the two questions a controller asks before it writes.
 *
 * - {@link jsonEqual} when comparing objects exactly as the API server holds them (a fetched
 *   object against one about to be sent): a `null` or an empty list is a value of its own.
 * - {@link isSameJson} when comparing values that went through Go's `omitempty`, where an absent
 *   field, `null`, and an empty list or object all serialise alike and so mean the same.
 *
 * In both, object key order does not matter and list order does.
 */

/**
 * Equality of JSON values as the API server sees them: object key order does not matter, array
 * order does, and a key holding `undefined` is the same as a missing key.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) return arraysEqual(a, b);
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const key of keys) if (!jsonEqual(ra[key], rb[key])) return false;
  return true;
}

function arraysEqual(a: unknown, b: unknown): boolean {
  return (
    Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]))
  );
}

/**
 * Equality of JSON values where an absent field, `undefined`, `null` and an empty list or object
 * are the same (they serialise alike under Go's `omitempty`); lists compare in order.
 */
export function isSameJson(a: unknown, b: unknown): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => isSameJson(x, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => isSameJson(a[k], b[k]));
  }
  return a === b;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isRecord(v) && Object.keys(v).length === 0;
}

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A string that two values share when {@link isSameJson} holds for them: keys sorted, and every
 * absent, `null`, empty-list and empty-object value left out (list elements become `null`, so
 * positions still count). Used where one side is kept only as a digest of this string. It is
 * slightly looser than {@link isSameJson} in one corner: an object holding only empty values
 * counts as absent at any depth, where {@link isSameJson} tells `{a: {b: null}}` from `{}`.
 */
export function sameJsonKey(v: unknown): string {
  return canonicalOf(v) ?? 'null';
}

/**
 * The canonical text of `v`, or undefined when `v` is empty in the sense of isSameJson. Built by
 * appending, not by joining arrays of parts: a Work's manifests go through it twice per Work at a
 * cold start (its cached form, then the binding controller's comparison).
 */
function canonicalOf(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object') return JSON.stringify(v);
  return Array.isArray(v) ? canonicalList(v) : canonicalRecord(v);
}

function canonicalList(v: readonly unknown[]): string | undefined {
  if (v.length === 0) return undefined;
  let text = '[';
  for (let i = 0; i < v.length; i++) text += `${i === 0 ? '' : ','}${canonicalOf(v[i]) ?? 'null'}`;
  return `${text}]`;
}

function canonicalRecord(v: object): string | undefined {
  const record = v as Readonly<Record<string, unknown>>;
  // An object read from the API server mostly is its own canonical form already (Go writes the
  // keys of a map sorted): JSON.stringify then writes the same text several times faster than
  // the appending below, which at a cold start ran once for each of 60,000 Works' manifests.
  // Checked at each object the appending visits, not once on the whole value: a manifest the
  // control plane built has its top keys out of order and most subtrees in order. That walks a
  // subtree again for each object above it, a few levels in a manifest, and still wins: 60,000
  // such digests took 1.2 to 1.5 s checked here, 1.7 to 1.9 s checked once on the whole.
  if (isCanonical(record)) return JSON.stringify(record);
  let text: string | undefined;
  for (const k of sortedKeys(record)) {
    const c = canonicalOf(record[k]);
    if (c !== undefined) text = `${text === undefined ? '{' : `${text},`}${JSON.stringify(k)}:${c}`;
  }
  return text === undefined ? undefined : `${text}}`;
}

/** The keys of `o` in sort order; objects from the API server mostly have them sorted already. */
function sortedKeys(o: object): string[] {
  const keys = Object.keys(o);
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] ?? '') > (keys[i] ?? '')) return keys.sort();
  }
  return keys;
}

/**
 * Whether JSON.stringify writes `v` exactly as {@link canonicalOf} does: every object's keys in
 * sort order, and no absent, `null`, empty-list or empty-object value at any depth, in an object
 * or a list. JSON.stringify writes keys in the order Object.keys gives them, which this checks.
 */
function isCanonical(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'object') return Array.isArray(v) ? isCanonicalList(v) : isCanonicalRecord(v);
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function isCanonicalList(v: readonly unknown[]): boolean {
  if (v.length === 0) return false;
  for (let i = 0; i < v.length; i++) if (!isCanonical(v[i])) return false;
  return true;
}

/** A plain object only: another kind may write itself otherwise (a `toJSON`, say). */
function isCanonicalRecord(v: object): boolean {
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  const record = v as Readonly<Record<string, unknown>>;
  const keys = Object.keys(record);
  if (keys.length === 0) return false;
  let previous = '';
  for (const k of keys) {
    if (previous > k || !isCanonical(record[k])) return false;
    previous = k;
  }
  return true;
}
