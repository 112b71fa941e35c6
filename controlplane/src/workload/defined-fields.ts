/**
 * Objects for the API with `exactOptionalPropertyTypes`: an absent field is left out, never
 * written as `undefined`.
 */

/** A copy of `fields` without the keys whose value is undefined. */
export function definedFields<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** A copy of `obj` without the listed keys. */
export function withoutKeys<T extends object>(obj: T, keys: readonly string[]): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!keys.includes(k)) out[k] = v;
  return out as Partial<T>;
}
