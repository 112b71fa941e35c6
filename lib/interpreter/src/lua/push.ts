/**
 * JSON → Lua, as Karmada hands objects to its scripts: objects and arrays become tables, nulls
 * disappear (a null field is an absent field; a null array item is skipped, so the items after it
 * move up), booleans and strings stay, whole numbers become Lua integers and others floats.
 */
import type { LuaStrings } from './strings.ts';
import type { LuaState, RawLua } from './raw.ts';

/** Deeper input is refused rather than risking the JavaScript or Lua stack. */
export const MAX_DEPTH = 512;

export class InputConversionError extends Error {}

export class LuaPusher {
  private readonly raw: RawLua;
  private readonly strings: LuaStrings;

  constructor(raw: RawLua, strings: LuaStrings) {
    this.raw = raw;
    this.strings = strings;
  }

  /** Pushes `value` onto L's stack; must run inside a protected call (tables allocate). */
  push(L: LuaState, value: unknown, depth = 0): void {
    switch (typeof value) {
      case 'string':
        this.strings.push(L, value);
        return;
      case 'number':
        this.pushNumber(L, value);
        return;
      case 'boolean':
        this.raw._lua_pushboolean(L, value ? 1 : 0);
        return;
      case 'undefined':
        this.raw._lua_pushnil(L);
        return;
      case 'object':
        this.pushObject(L, value, depth);
        return;
      case 'bigint':
      case 'function':
      case 'symbol':
        throw new InputConversionError(`cannot pass a ${typeof value} to Lua`);
    }
  }

  private pushNumber(L: LuaState, n: number): void {
    if (Number.isSafeInteger(n)) this.raw._lua_pushinteger(L, BigInt(n));
    else this.raw._lua_pushnumber(L, n);
  }

  private pushObject(L: LuaState, value: object | null, depth: number): void {
    if (value === null) {
      this.raw._lua_pushnil(L);
      return;
    }
    if (depth >= MAX_DEPTH) throw new InputConversionError(`input nested deeper than ${MAX_DEPTH} levels`);
    if (this.raw._lua_checkstack(L, 4) === 0) throw new InputConversionError('Lua stack exhausted');
    if (Array.isArray(value)) this.pushArray(L, value, depth);
    else this.pushRecord(L, value as Readonly<Record<string, unknown>>, depth);
  }

  private pushArray(L: LuaState, items: readonly unknown[], depth: number): void {
    this.raw._lua_createtable(L, items.length, 0);
    let index = 0;
    for (const item of items) {
      if (item === null || item === undefined) continue;
      this.push(L, item, depth + 1);
      this.raw._lua_rawseti(L, -2, BigInt(++index));
    }
  }

  private pushRecord(L: LuaState, record: Readonly<Record<string, unknown>>, depth: number): void {
    const keys = Object.keys(record);
    this.raw._lua_createtable(L, 0, keys.length);
    for (const key of keys) {
      const item = record[key];
      if (item === null || item === undefined) continue;
      this.strings.push(L, key);
      this.push(L, item, depth + 1);
      this.raw._lua_rawset(L, -3);
    }
  }
}
