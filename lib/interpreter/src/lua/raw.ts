/**
 * The Lua 5.4 C API as the WebAssembly build exports it, called directly: the library's own
 * wrappers convert every string through the wasm stack and look up type extensions on each push,
 * which costs more than the scripts themselves on a Kubernetes object. Integers (lua_Integer) are
 * 64-bit and travel as bigint; pointers and sizes are 32-bit numbers.
 */
import { LuaWasm } from 'wasmoon';

export type LuaState = number;
export type Pointer = number;

/** The exports this package calls, by their C names with emscripten's leading underscore. */
export interface RawLua {
  readonly HEAPU8: Uint8Array;
  readonly HEAPU32: Uint32Array;
  _malloc(size: number): Pointer;
  _free(ptr: Pointer): void;
  _realloc(ptr: Pointer, size: number): Pointer;
  addFunction(fn: (...args: number[]) => number | undefined, signature: string): Pointer;
  removeFunction(ptr: Pointer): void;
  _lua_newstate(alloc: Pointer, ud: Pointer): LuaState;
  _lua_close(L: LuaState): void;
  _luaL_openlibs(L: LuaState): void;
  _lua_gettop(L: LuaState): number;
  _lua_settop(L: LuaState, idx: number): void;
  _lua_checkstack(L: LuaState, n: number): number;
  _lua_type(L: LuaState, idx: number): number;
  _lua_pushnil(L: LuaState): void;
  _lua_pushboolean(L: LuaState, b: number): void;
  _lua_pushinteger(L: LuaState, n: bigint): void;
  _lua_pushnumber(L: LuaState, n: number): void;
  _lua_pushlstring(L: LuaState, s: Pointer, len: number): Pointer;
  _lua_pushvalue(L: LuaState, idx: number): void;
  _lua_pushcclosure(L: LuaState, fn: Pointer, n: number): void;
  _lua_createtable(L: LuaState, narr: number, nrec: number): void;
  _lua_rawset(L: LuaState, idx: number): void;
  _lua_rawseti(L: LuaState, idx: number, n: bigint): void;
  _lua_rawget(L: LuaState, idx: number): number;
  _lua_rawgeti(L: LuaState, idx: number, n: bigint): number;
  _lua_next(L: LuaState, idx: number): number;
  _lua_toboolean(L: LuaState, idx: number): number;
  _lua_isinteger(L: LuaState, idx: number): number;
  _lua_tointegerx(L: LuaState, idx: number, isnum: Pointer): bigint;
  _lua_tonumberx(L: LuaState, idx: number, isnum: Pointer): number;
  _lua_tolstring(L: LuaState, idx: number, len: Pointer): Pointer;
  _lua_topointer(L: LuaState, idx: number): Pointer;
  _lua_pcallk(L: LuaState, nargs: number, nresults: number, msgh: number, ctx: number, k: Pointer): number;
  _lua_callk(L: LuaState, nargs: number, nresults: number, ctx: number, k: Pointer): void;
  _lua_error(L: LuaState): number;
  _lua_setupvalue(L: LuaState, funcindex: number, n: number): Pointer;
  _lua_sethook(L: LuaState, fn: Pointer, mask: number, count: number): void;
  _luaL_loadbufferx(L: LuaState, buf: Pointer, size: number, name: Pointer, mode: Pointer): number;
  _luaL_ref(L: LuaState, t: number): number;
  _luaL_where(L: LuaState, level: number): void;
  _lua_concat(L: LuaState, n: number): void;
  _luaL_unref(L: LuaState, t: number, ref: number): void;
}

export const LUA_OK = 0;
export const LUA_ERRRUN = 2;
export const LUA_ERRSYNTAX = 3;
export const LUA_ERRMEM = 4;
export const LUA_ERRERR = 5;
export const LUA_MULTRET = -1;
export const LUA_REGISTRYINDEX = -1_001_000;
export const LUA_MASKCOUNT = 8;

export const LuaType = {
  none: -1,
  nil: 0,
  boolean: 1,
  lightuserdata: 2,
  number: 3,
  string: 4,
  table: 5,
  function: 6,
  userdata: 7,
  thread: 8,
} as const;

const TYPE_NAMES = [
  'nil',
  'boolean',
  'userdata',
  'number',
  'string',
  'table',
  'function',
  'userdata',
  'thread',
];

/** Lua's own name for a type code (`nil`, `table`, ...), as its error messages spell it. */
export function luaTypeName(type: number): string {
  return TYPE_NAMES[type] ?? 'no value';
}

/** A fresh WebAssembly instance of Lua: its own linear memory, shared by no other VM. */
export async function loadLuaModule(): Promise<RawLua> {
  const wasm = await LuaWasm.initialize();
  return wasm.module as unknown as RawLua;
}

/**
 * Emscripten unwinds a Lua error (a C longjmp) through JavaScript frames by throwing a number;
 * whatever catches exceptions around Lua API calls must let those through untouched.
 */
export function isLuaUnwind(error: unknown): boolean {
  return typeof error === 'number';
}
