/** A copy of `obj` without `keys` (for dropping fields before a write or a comparison). */
export function without<T extends object, K extends keyof T>(obj: T, ...keys: readonly K[]): Omit<T, K> {
  const copy: Partial<T> = { ...obj };
  for (const key of keys) Reflect.deleteProperty(copy, key);
  return copy as Omit<T, K>;
}
