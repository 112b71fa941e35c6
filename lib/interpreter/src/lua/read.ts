/**
 * Lua → JSON, by the rules Karmada's encoder applies to what a script returns:
 *
 * - nil → null; booleans and strings as they are; numbers as numbers (NaN and ±inf are refused).
 * - A table with no entries → `[]`: Lua cannot tell an empty list from an empty object, so the
 *   caller decides afterwards what each `[]` was (see empty-fields.ts).
 * - A table whose keys are all numbers → an array; the keys must be exactly 1..n, or it is a
 *   sparse array and refused.
 * - A table whose keys are all strings → an object; mixing key types is refused.
 * - A table met twice while encoding (a cycle, but also the same table placed at two paths) is
 *   refused: scripts must copy a table they want at two places.
 * - Functions, userdata and threads are refused.
 */
import { type JsonObject, type JsonValue, setOwn } from '../json.ts';
import { MAX_DEPTH } from './push.ts';
import type { LuaStrings } from './strings.ts';
import { LUA_REGISTRYINDEX, type LuaState, LuaType, type RawLua, luaTypeName } from './raw.ts';

export class ResultConversionError extends Error {}

export class LuaReader {
  private readonly raw: RawLua;
  private readonly strings: LuaStrings;

  constructor(raw: RawLua, strings: LuaStrings) {
    this.raw = raw;
    this.strings = strings;
  }

  /** The JSON form of the value at `idx`; the stack is left as it was. */
  read(L: LuaState, idx: number): JsonValue {
    return this.value(L, this.absolute(L, idx), new Set(), 0);
  }

  private absolute(L: LuaState, idx: number): number {
    return idx < 0 && idx > LUA_REGISTRYINDEX ? this.raw._lua_gettop(L) + idx + 1 : idx;
  }

  private value(L: LuaState, idx: number, visited: Set<number>, depth: number): JsonValue {
    const type = this.raw._lua_type(L, idx);
    switch (type) {
      case LuaType.nil:
        return null;
      case LuaType.boolean:
        return this.raw._lua_toboolean(L, idx) !== 0;
      case LuaType.number:
        return this.number(L, idx);
      case LuaType.string:
        return this.strings.read(L, idx);
      case LuaType.table:
        return this.table(L, idx, visited, depth);
      default:
        throw new ResultConversionError(`cannot encode ${luaTypeName(type)} to JSON`);
    }
  }

  private number(L: LuaState, idx: number): number {
    if (this.raw._lua_isinteger(L, idx) !== 0) return Number(this.raw._lua_tointegerx(L, idx, 0));
    const n = this.raw._lua_tonumberx(L, idx, 0);
    if (!Number.isFinite(n)) throw new ResultConversionError(`cannot encode ${n} to JSON`);
    return n;
  }

  private table(L: LuaState, idx: number, visited: Set<number>, depth: number): JsonValue {
    const identity = this.raw._lua_topointer(L, idx);
    if (visited.has(identity)) {
      throw new ResultConversionError(
        'cannot encode recursively nested tables to JSON (a table is referenced twice; copy it instead)',
      );
    }
    visited.add(identity);
    if (depth >= MAX_DEPTH) throw new ResultConversionError(`result nested deeper than ${MAX_DEPTH} levels`);
    if (this.raw._lua_checkstack(L, 4) === 0) throw new ResultConversionError('Lua stack exhausted');
    const entries = new TableEntries();
    this.raw._lua_pushnil(L);
    while (this.raw._lua_next(L, idx) !== 0) {
      const top = this.raw._lua_gettop(L);
      entries.add(this.key(L, top - 1), this.value(L, top, visited, depth + 1));
      this.raw._lua_settop(L, -2);
    }
    return entries.toJson();
  }

  private key(L: LuaState, idx: number): string | number {
    const type = this.raw._lua_type(L, idx);
    if (type === LuaType.string) return this.strings.read(L, idx);
    if (type === LuaType.number) {
      if (this.raw._lua_isinteger(L, idx) !== 0) return Number(this.raw._lua_tointegerx(L, idx, 0));
      return this.raw._lua_tonumberx(L, idx, 0);
    }
    throw new ResultConversionError('cannot encode mixed or invalid key types');
  }
}

/** One table's entries while it is read; whether it is a list or an object is settled at the end. */
class TableEntries {
  private readonly numbered: [number, JsonValue][] = [];
  private readonly named: [string, JsonValue][] = [];

  add(key: string | number, value: JsonValue): void {
    if (typeof key === 'number') this.numbered.push([key, value]);
    else this.named.push([key, value]);
    if (this.numbered.length > 0 && this.named.length > 0) {
      throw new ResultConversionError('cannot encode mixed or invalid key types');
    }
  }

  toJson(): JsonValue {
    if (this.named.length > 0) {
      const object: JsonObject = {};
      for (const [key, value] of this.named) setOwn(object, key, value);
      return object;
    }
    const items: JsonValue[] = new Array<JsonValue>(this.numbered.length);
    for (const [key, value] of this.numbered) {
      if (!Number.isInteger(key) || key < 1 || key > this.numbered.length) {
        throw new ResultConversionError('cannot encode sparse array');
      }
      items[key - 1] = value;
    }
    return items;
  }
}
