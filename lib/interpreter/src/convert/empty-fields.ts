/**
 * What an empty Lua table was meant to be. Lua has one empty table for `{}` and `[]`, and the
 * encoder writes both as `[]`; Karmada settles each one the same way afterwards:
 *
 * - The whole result empty → `{}` when the operation expects an object, `[]` when a list.
 * - An empty field at a path (array indices left out of the path) where one of the objects the
 *   script was given had an empty object → `{}`; where one had an empty list → kept as `[]` (an
 *   empty object wins when both did).
 * - Any other empty field → removed: the script added it, and nothing says which it was.
 *
 * The "objects the script was given" are the desired object for ReviseReplica, the desired and
 * observed objects for Retain, and nothing for the other operations, whose empty fields all go.
 */
import { type JsonObject, type JsonValue, isJsonObject, setOwn } from '../json.ts';

export type ResultShape = 'object' | 'list';

export function settleEmptyTables(
  result: JsonValue,
  shape: ResultShape,
  references: readonly unknown[] = [],
): JsonValue {
  if (Array.isArray(result) && result.length === 0) return shape === 'object' ? {} : [];
  if (typeof result !== 'object' || result === null) return result;
  const known = new EmptyFields();
  for (const reference of references) known.collect(reference, []);
  return known.settle(result, []);
}

class EmptyFields {
  private readonly lists = new Set<string>();
  private readonly objects = new Set<string>();

  /** Records the paths of the empty lists and objects in `value`. */
  collect(value: unknown, path: readonly string[]): void {
    if (Array.isArray(value)) {
      for (const item of value) this.collectChild(item, path);
    } else if (isJsonObject(value)) {
      for (const [key, item] of Object.entries(value)) this.collectChild(item, [...path, key]);
    }
  }

  private collectChild(value: unknown, path: readonly string[]): void {
    if (Array.isArray(value) && value.length === 0) this.lists.add(pathKey(path));
    else if (isJsonObject(value) && Object.keys(value).length === 0) this.objects.add(pathKey(path));
    else this.collect(value, path);
  }

  settle(value: JsonObject | JsonValue[], path: readonly string[]): JsonObject | JsonValue[] {
    if (Array.isArray(value)) {
      const kept: JsonValue[] = [];
      for (const item of value) {
        const settled = this.settleChild(item, path);
        if (settled !== REMOVE) kept.push(settled);
      }
      return kept;
    }
    for (const [key, item] of Object.entries(value)) {
      const settled = this.settleChild(item, [...path, key]);
      if (settled === REMOVE) Reflect.deleteProperty(value, key);
      else if (settled !== item) setOwn(value, key, settled);
    }
    return value;
  }

  private settleChild(value: JsonValue, path: readonly string[]): JsonValue | typeof REMOVE {
    if (Array.isArray(value) && value.length === 0) {
      const key = pathKey(path);
      if (this.objects.has(key)) return {};
      return this.lists.has(key) ? value : REMOVE;
    }
    if (typeof value === 'object' && value !== null) return this.settle(value, path);
    return value;
  }
}

const REMOVE = Symbol('remove');

function pathKey(path: readonly string[]): string {
  return JSON.stringify(path);
}
