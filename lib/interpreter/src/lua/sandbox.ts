/**
 * One Lua VM in its own WebAssembly instance, bounded in time and memory, running compiled
 * scripts in the restricted environment the prelude builds.
 *
 * - Memory: every allocation of the Lua state goes through a JavaScript allocator that refuses to
 *   grow past the limit; Lua then raises "not enough memory", which ends the call (or is caught by
 *   the script), and the state stays sound.
 * - Time: a count hook runs every 1000 VM instructions and raises an error once the call's
 *   deadline has passed; the sandboxed pcall/xpcall pass that error on. A single library call that
 *   runs long inside C (a pathological string pattern) is not interrupted until it returns.
 * - Every step that may allocate runs inside a protected call, so a Lua error never unwinds
 *   past the host; an exception from the WebAssembly instance itself marks the VM crashed, to be
 *   replaced.
 */
import type { JsonValue } from '../json.ts';
import { type HostArgs, type HostFunction, badArgument } from './host.ts';
import { PRELUDE } from './prelude.ts';
import { LuaPusher } from './push.ts';
import {
  LUA_ERRMEM,
  LUA_MASKCOUNT,
  LUA_OK,
  LUA_REGISTRYINDEX,
  type LuaState,
  LuaType,
  type Pointer,
  type RawLua,
  isLuaUnwind,
  loadLuaModule,
  luaTypeName,
} from './raw.ts';
import { LuaReader, ResultConversionError } from './read.ts';
import { LuaStrings } from './strings.ts';

/** Functions offered to the prelude: `kube` (a table of functions), `print`, `time`, `date`. */
export interface HostLibrary {
  readonly kube: Readonly<Record<string, HostFunction>>;
  readonly print: HostFunction;
  readonly time: HostFunction;
  readonly date: HostFunction;
}

export type CallFailureKind = 'runtime' | 'timeout' | 'memory' | 'missing-function' | 'input';

/** One value a script returned: its Lua type, and its JSON form or why it has none. */
export interface LuaResult {
  readonly type: string;
  readonly json?: JsonValue;
  readonly notJson?: string;
}

export type CallOutcome =
  | { readonly ok: true; readonly results: readonly LuaResult[] }
  | { readonly ok: false; readonly kind: CallFailureKind; readonly message: string };

export type CompileOutcome =
  | { readonly ok: true; readonly script: CompiledScript }
  | { readonly ok: false; readonly kind: 'compile' | 'memory'; readonly message: string };

/** One call: the global function to call, its arguments, how many results, and the time limit. */
export interface CallRequest {
  readonly entry: string;
  readonly args: readonly unknown[];
  readonly nresults: number;
  readonly timeoutMs: number;
}

/** A script loaded into this VM: its main chunk and its own global table, by registry reference. */
export interface CompiledScript {
  readonly chunkRef: number;
  readonly envRef: number;
}

/** The WebAssembly instance failed underneath Lua; the sandbox can no longer be used. */
export class VmCrashedError extends Error {}

/** A failure raised from host code inside a protected call, with its kind. */
class SandboxFailure extends Error {
  readonly kind: CallFailureKind;

  constructor(kind: CallFailureKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

const HOOK_INSTRUCTIONS = 1000;
const TIMEOUT_MESSAGE = 'the script ran past its time limit';

export class LuaSandbox {
  readonly memoryLimitBytes: number;
  private readonly raw: RawLua;
  private readonly L: LuaState;
  private readonly strings: LuaStrings;
  private readonly pusher: LuaPusher;
  private readonly reader: LuaReader;
  private readonly functions: Pointer[] = [];
  private readonly trampoline: Pointer;
  private readonly textMode: Pointer;
  private used = 0;
  private deadline = Number.POSITIVE_INFINITY;
  private expired = false;
  private failure: SandboxFailure | undefined;
  private inside: ((L: LuaState) => number) | undefined;
  private newEnvRef = 0;
  private collectRef = 0;
  private closed = false;
  private crashedWith: unknown;

  static async create(memoryLimitBytes: number, host: HostLibrary): Promise<LuaSandbox> {
    return new LuaSandbox(await loadLuaModule(), memoryLimitBytes, host);
  }

  private constructor(raw: RawLua, memoryLimitBytes: number, host: HostLibrary) {
    this.raw = raw;
    this.memoryLimitBytes = memoryLimitBytes;
    this.strings = new LuaStrings(raw);
    this.pusher = new LuaPusher(raw, this.strings);
    this.reader = new LuaReader(raw, this.strings);
    this.textMode = raw._malloc(2);
    raw.HEAPU8.set([0x74, 0], this.textMode);
    this.trampoline = this.addFunction((L) => this.enter(L), 'ii');
    this.L = raw._lua_newstate(
      this.addFunction((_ud, ptr, oldSize, newSize) => this.allocate(ptr, oldSize, newSize), 'iiiii'),
      0,
    );
    if (this.L === 0) throw new VmCrashedError('could not create a Lua state');
    raw._lua_sethook(
      this.L,
      this.addFunction((L) => this.onHook(L), 'vii'),
      LUA_MASKCOUNT,
      HOOK_INSTRUCTIONS,
    );
    this.loadPrelude(host);
  }

  /** Bytes the Lua state holds now (live data and garbage not yet collected). */
  get memoryUsed(): number {
    return this.used;
  }

  get crashed(): boolean {
    return this.crashedWith !== undefined;
  }

  /** Loads `source` as a text chunk named `name` (as error messages show it) with its own globals. */
  compile(source: string, name: string): CompileOutcome {
    this.usable();
    const raw = this.raw;
    const L = this.L;
    raw._lua_settop(L, 0);
    raw._lua_pushcclosure(L, this.trampoline, 0);
    const bytes = new TextEncoder().encode(source);
    const buffer = raw._malloc(bytes.length + 1);
    raw.HEAPU8.set(bytes, buffer);
    let status: number;
    try {
      status = raw._luaL_loadbufferx(
        L,
        buffer,
        bytes.length,
        this.strings.cString(`=${name}`),
        this.textMode,
      );
    } finally {
      raw._free(buffer);
    }
    if (status !== LUA_OK) {
      const message = this.errorText(-1);
      raw._lua_settop(L, 0);
      return { ok: false, kind: status === LUA_ERRMEM ? 'memory' : 'compile', message };
    }
    const refs = { chunkRef: 0, envRef: 0 };
    const outcome = this.protect(1, 0, (S) => {
      raw._lua_rawgeti(S, LUA_REGISTRYINDEX, BigInt(this.newEnvRef));
      raw._lua_callk(S, 0, 1, 0, 0);
      raw._lua_pushvalue(S, -1);
      raw._lua_setupvalue(S, 1, 1);
      refs.envRef = raw._luaL_ref(S, LUA_REGISTRYINDEX);
      refs.chunkRef = raw._luaL_ref(S, LUA_REGISTRYINDEX);
      return 0;
    });
    if (!outcome.ok) return { ok: false, kind: 'memory', message: outcome.message };
    return { ok: true, script: refs };
  }

  /**
   * Runs the script's main chunk (as Karmada does before every call, so its top-level code sees a
   * fresh start), then calls the global function `request.entry` within the time limit.
   */
  call(script: CompiledScript, request: CallRequest): CallOutcome {
    this.usable();
    this.raw._lua_settop(this.L, 0);
    this.raw._lua_pushcclosure(this.L, this.trampoline, 0);
    this.deadline = Date.now() + request.timeoutMs;
    this.expired = false;
    try {
      const outcome = this.protect(0, request.nresults, (S) => this.invoke(S, script, request));
      if (!outcome.ok) return outcome;
      return { ok: true, results: this.results(request.nresults) };
    } finally {
      this.deadline = Number.POSITIVE_INFINITY;
      if (!this.crashed) this.raw._lua_settop(this.L, 0);
    }
  }

  /** Forgets a compiled script, so its chunk and globals can be collected. */
  release(script: CompiledScript): void {
    if (this.closed || this.crashed) return;
    this.raw._luaL_unref(this.L, LUA_REGISTRYINDEX, script.chunkRef);
    this.raw._luaL_unref(this.L, LUA_REGISTRYINDEX, script.envRef);
  }

  /** A full garbage collection, e.g. after a script ran out of memory. */
  collectGarbage(): void {
    this.usable();
    this.raw._lua_settop(this.L, 0);
    this.raw._lua_pushcclosure(this.L, this.trampoline, 0);
    this.protect(0, 0, (S) => {
      this.raw._lua_rawgeti(S, LUA_REGISTRYINDEX, BigInt(this.collectRef));
      this.raw._lua_callk(S, 0, 0, 0, 0);
      return 0;
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.crashed) this.raw._lua_close(this.L);
    for (const fn of this.functions) this.raw.removeFunction(fn);
  }

  private invoke(L: LuaState, script: CompiledScript, { entry, args, nresults }: CallRequest): number {
    const raw = this.raw;
    raw._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(script.chunkRef));
    raw._lua_callk(L, 0, 0, 0, 0);
    raw._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(script.envRef));
    this.strings.push(L, entry);
    const type = raw._lua_rawget(L, -2);
    if (type !== LuaType.function) {
      const message =
        type === LuaType.nil
          ? `not found function ${entry}`
          : `${entry} is not a function: ${luaTypeName(type)}`;
      throw new SandboxFailure('missing-function', message);
    }
    for (const arg of args) this.pusher.push(L, arg);
    raw._lua_callk(L, args.length, nresults, 0, 0);
    return nresults;
  }

  private results(nresults: number): LuaResult[] {
    const results: LuaResult[] = [];
    for (let i = 1; i <= nresults; i++) {
      const type = luaTypeName(this.raw._lua_type(this.L, i));
      try {
        results.push({ type, json: this.reader.read(this.L, i) });
      } catch (error) {
        if (!(error instanceof ResultConversionError)) throw error;
        results.push({ type, notJson: error.message });
      }
    }
    return results;
  }

  /**
   * Calls `body` as a C function under lua_pcall; the trampoline and its `nargs` arguments must
   * already be on the stack. Lua errors come back as a failure; a crash of the instance throws.
   */
  private protect(
    nargs: number,
    nresults: number,
    body: (L: LuaState) => number,
  ): { ok: true } | { ok: false; kind: CallFailureKind; message: string } {
    this.inside = body;
    this.failure = undefined;
    let status: number;
    try {
      status = this.raw._lua_pcallk(this.L, nargs, nresults, 0, 0, 0);
    } catch (error) {
      this.crashedWith = error;
      throw new VmCrashedError(`the Lua VM crashed: ${String(error)}`);
    } finally {
      this.inside = undefined;
    }
    if (status === LUA_OK) return { ok: true };
    return { ok: false, ...this.classify(status) };
  }

  private classify(status: number): { kind: CallFailureKind; message: string } {
    if (this.expired) return { kind: 'timeout', message: TIMEOUT_MESSAGE };
    if (status === LUA_ERRMEM) return { kind: 'memory', message: 'not enough memory' };
    const failure = this.failure;
    if (failure !== undefined) return { kind: failure.kind, message: failure.message };
    return { kind: 'runtime', message: this.errorText(-1) };
  }

  /** The error value at `idx` as text, as Lua would print an uncaught error. */
  private errorText(idx: number): string {
    const type = this.raw._lua_type(this.L, idx);
    if (type === LuaType.string) return this.strings.read(this.L, idx);
    if (type === LuaType.number) return String(this.raw._lua_tonumberx(this.L, idx, 0));
    return `(error object is a ${luaTypeName(type)} value)`;
  }

  /** The trampoline: runs the pending body; host errors become Lua errors. */
  private enter(L: LuaState): number {
    const body = this.inside;
    if (body === undefined) return 0;
    try {
      return body(L);
    } catch (error) {
      if (isLuaUnwind(error)) throw error;
      this.failure =
        error instanceof SandboxFailure ? error : new SandboxFailure('input', errorMessage(error));
      return this.raise(L, this.failure.message, false);
    }
  }

  private onHook(L: LuaState): number {
    return this.pastDeadline() ? this.raise(L, TIMEOUT_MESSAGE, false) : 0;
  }

  private pastDeadline(): boolean {
    if (Date.now() > this.deadline) this.expired = true;
    return this.expired;
  }

  /** Raises `message` as a Lua error, prefixed with the calling script line when `where`. */
  private raise(L: LuaState, message: string, where: boolean): number {
    if (where) this.raw._luaL_where(L, 1);
    this.strings.push(L, message);
    if (where) this.raw._lua_concat(L, 2);
    return this.raw._lua_error(L);
  }

  private allocate(ptr: Pointer, oldSize: number, newSize: number): Pointer {
    if (newSize === 0) {
      if (ptr !== 0) {
        this.used -= oldSize;
        this.raw._free(ptr);
      }
      return 0;
    }
    const delta = ptr !== 0 ? newSize - oldSize : newSize;
    if (delta > 0 && this.used + delta > this.memoryLimitBytes) return 0;
    const moved = this.raw._realloc(ptr, newSize);
    if (moved !== 0) this.used += delta;
    return moved;
  }

  private loadPrelude(host: HostLibrary): void {
    const raw = this.raw;
    const L = this.L;
    raw._lua_settop(L, 0);
    raw._lua_pushcclosure(L, this.trampoline, 0);
    const outcome = this.protect(0, 0, (S) => {
      raw._luaL_openlibs(S);
      const bytes = new TextEncoder().encode(PRELUDE);
      const buffer = raw._malloc(bytes.length);
      raw.HEAPU8.set(bytes, buffer);
      const status = raw._luaL_loadbufferx(
        S,
        buffer,
        bytes.length,
        this.strings.cString('=[sandbox]'),
        this.textMode,
      );
      raw._free(buffer);
      if (status !== LUA_OK) throw new Error(`the sandbox prelude does not load: ${this.errorText(-1)}`);
      this.pushHostTable(S, host);
      raw._lua_callk(S, 1, 2, 0, 0);
      this.collectRef = raw._luaL_ref(S, LUA_REGISTRYINDEX);
      this.newEnvRef = raw._luaL_ref(S, LUA_REGISTRYINDEX);
      return 0;
    });
    if (!outcome.ok) throw new VmCrashedError(`could not prepare the Lua sandbox: ${outcome.message}`);
  }

  private pushHostTable(L: LuaState, host: HostLibrary): void {
    const raw = this.raw;
    raw._lua_createtable(L, 0, 5);
    this.setField(L, 'kube', () => {
      raw._lua_createtable(L, 0, Object.keys(host.kube).length);
      for (const [name, fn] of Object.entries(host.kube)) {
        this.setField(L, name, () => {
          this.pushHost(L, name, fn);
        });
      }
    });
    const functions: Readonly<Record<string, HostFunction>> = {
      print: host.print,
      time: host.time,
      date: host.date,
      expired: () => this.pastDeadline(),
    };
    for (const [name, fn] of Object.entries(functions)) {
      this.setField(L, name, () => {
        this.pushHost(L, name, fn);
      });
    }
  }

  private setField(L: LuaState, name: string, pushValue: () => void): void {
    this.strings.push(L, name);
    pushValue();
    this.raw._lua_rawset(L, -3);
  }

  private pushHost(L: LuaState, name: string, fn: HostFunction): void {
    const pointer = this.addFunction((S) => this.callHost(S, name, fn), 'ii');
    this.raw._lua_pushcclosure(L, pointer, 0);
  }

  private callHost(L: LuaState, name: string, fn: HostFunction): number {
    try {
      const result = fn(this.hostArgs(L, name));
      if (result === undefined) return 0;
      this.pusher.push(L, result);
      return 1;
    } catch (error) {
      if (isLuaUnwind(error)) throw error;
      return this.raise(L, errorMessage(error), true);
    }
  }

  private hostArgs(L: LuaState, fn: string): HostArgs {
    const raw = this.raw;
    const typeOf = (i: number): number => raw._lua_type(L, i);
    return {
      count: raw._lua_gettop(L),
      type: (i) => luaTypeName(typeOf(i)),
      json: (i) => this.reader.read(L, i),
      string: (i) => {
        const type = typeOf(i);
        if (type !== LuaType.string && type !== LuaType.number)
          throw badArgument(i, fn, 'string', luaTypeName(type));
        return this.strings.read(L, i);
      },
      number: (i) => {
        const type = typeOf(i);
        const value =
          type === LuaType.number
            ? this.reader.read(L, i)
            : type === LuaType.string
              ? Number(this.strings.read(L, i))
              : NaN;
        if (typeof value !== 'number' || Number.isNaN(value))
          throw badArgument(i, fn, 'number', luaTypeName(type));
        return value;
      },
    };
  }

  private addFunction(fn: (...args: number[]) => number, signature: string): Pointer {
    const pointer = this.raw.addFunction(fn, signature);
    this.functions.push(pointer);
    return pointer;
  }

  private usable(): void {
    if (this.closed) throw new VmCrashedError('the Lua VM is closed');
    if (this.crashed) throw new VmCrashedError(`the Lua VM crashed earlier: ${String(this.crashedWith)}`);
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
