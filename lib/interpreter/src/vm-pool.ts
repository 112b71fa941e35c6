/**
 * Reuse of Lua VMs across calls. Calls are synchronous and Node runs one at a time, so one VM
 * serves them all: creating one (a WebAssembly instance, the standard library and the sandbox)
 * costs milliseconds, a call on a reused one microseconds. Each script is compiled once into
 * that VM and kept until the registry drops it.
 *
 * A second VM is made ready in advance: if the first one ever fails underneath Lua (a WebAssembly
 * trap rather than a script error), calls move to it at once and a new spare is prepared in the
 * background. A script that runs out of memory loses its compiled form and its globals (they are
 * rebuilt on its next call) and the VM collects its garbage, so one runaway script does not starve
 * the others.
 */
import { InterpreterScriptError } from './errors.ts';
import type { HostLibrary, LuaResult } from './lua/sandbox.ts';
import { type CompiledScript, LuaSandbox, VmCrashedError } from './lua/sandbox.ts';
import { kubeLibrary } from './kube/library.ts';
import { osDate, osTime } from './lua/os-time.ts';
import { isJsonObject } from './json.ts';
import { badArgument } from './lua/host.ts';
import { operationRules } from './operations.ts';
import type { ScriptSource } from './registry.ts';

export interface VmOptions {
  /** The limit of each call, as Karmada's: one second. */
  readonly timeoutMs?: number;
  /** What the Lua state of a VM may hold. */
  readonly memoryLimitBytes?: number;
  /** Where a script's `print` goes; discarded by default. */
  readonly print?: (line: string) => void;
}

export const DEFAULT_TIMEOUT_MS = 1000;
export const DEFAULT_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;

/** The name error messages give a script's chunk: `script:12: attempt to index a nil value`. */
const CHUNK_NAME = 'script';

export interface PoolStats {
  readonly vmsCreated: number;
  readonly compiledScripts: number;
  readonly memoryUsedBytes: number;
}

export class LuaVmPool {
  readonly timeoutMs: number;
  readonly memoryLimitBytes: number;
  private readonly host: HostLibrary;
  private active: LuaSandbox;
  private spare: LuaSandbox | undefined;
  private preparing: Promise<void> | undefined;
  private compiled = new Map<string, CompiledScript>();
  private created = 2;
  private closed = false;

  static async create(options: VmOptions = {}): Promise<LuaVmPool> {
    const memoryLimitBytes = options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES;
    const host = hostLibrary(options.print ?? (() => undefined));
    const [active, spare] = await Promise.all([
      LuaSandbox.create(memoryLimitBytes, host),
      LuaSandbox.create(memoryLimitBytes, host),
    ]);
    return new LuaVmPool(
      { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, memoryLimitBytes, host },
      active,
      spare,
    );
  }

  private constructor(
    settings: { timeoutMs: number; memoryLimitBytes: number; host: HostLibrary },
    active: LuaSandbox,
    spare: LuaSandbox,
  ) {
    this.timeoutMs = settings.timeoutMs;
    this.memoryLimitBytes = settings.memoryLimitBytes;
    this.host = settings.host;
    this.active = active;
    this.spare = spare;
  }

  get stats(): PoolStats {
    return {
      vmsCreated: this.created,
      compiledScripts: this.compiled.size,
      memoryUsedBytes: this.active.memoryUsed,
    };
  }

  /** Calls the operation's function of `source` with `args`; every failure is an InterpreterScriptError. */
  run(source: ScriptSource, args: readonly unknown[], nresults: number): readonly LuaResult[] {
    const vm = this.usableVm(source);
    try {
      const script = this.compiledFor(vm, source);
      const entry = operationRules[source.operation].entry;
      const outcome = vm.call(script, { entry, args, nresults, timeoutMs: this.timeoutMs });
      if (outcome.ok) return outcome.results;
      if (outcome.kind === 'memory') this.recoverMemory(vm, source);
      throw this.failure(source, outcome.kind, outcome.message);
    } catch (error) {
      if (!(error instanceof VmCrashedError)) throw error;
      this.replaceCrashed();
      throw new InterpreterScriptError(
        source.operation,
        source.customization,
        'unavailable',
        `the Lua VM failed while running the script (${error.message}); it has been replaced, so the call can be retried`,
      );
    }
  }

  /** Drops the compiled form of scripts no customization holds any more. */
  forget(sources: readonly ScriptSource[]): void {
    for (const source of sources) {
      const script = this.compiled.get(source.key);
      if (script === undefined) continue;
      this.compiled.delete(source.key);
      this.active.release(script);
    }
  }

  close(): void {
    this.closed = true;
    this.active.close();
    this.spare?.close();
  }

  private compiledFor(vm: LuaSandbox, source: ScriptSource): CompiledScript {
    const known = this.compiled.get(source.key);
    if (known !== undefined) return known;
    const outcome = vm.compile(source.script, CHUNK_NAME);
    if (!outcome.ok) throw this.failure(source, outcome.kind, outcome.message);
    this.compiled.set(source.key, outcome.script);
    return outcome.script;
  }

  private recoverMemory(vm: LuaSandbox, source: ScriptSource): void {
    this.forget([source]);
    vm.collectGarbage();
  }

  private usableVm(source: ScriptSource): LuaSandbox {
    if (this.closed) {
      throw new InterpreterScriptError(
        source.operation,
        source.customization,
        'unavailable',
        'the interpreter is closed',
      );
    }
    if (!this.active.crashed || this.replaceCrashed()) return this.active;
    throw new InterpreterScriptError(
      source.operation,
      source.customization,
      'unavailable',
      'the Lua VM failed and its replacement is not ready yet; retry shortly',
    );
  }

  /** Moves calls to the spare VM if one is ready (true then) and prepares the next spare. */
  private replaceCrashed(): boolean {
    const spare = this.spare;
    if (spare !== undefined) {
      this.spare = undefined;
      this.adopt(spare);
    }
    this.preparing ??= LuaSandbox.create(this.memoryLimitBytes, this.host).then(
      (vm) => {
        this.created++;
        this.preparing = undefined;
        if (this.closed) vm.close();
        else if (this.active.crashed) this.adopt(vm);
        else this.spare = vm;
      },
      () => {
        this.preparing = undefined;
      },
    );
    return spare !== undefined;
  }

  private adopt(vm: LuaSandbox): void {
    this.active.close();
    this.active = vm;
    this.compiled = new Map();
  }

  private failure(source: ScriptSource, kind: string, message: string): InterpreterScriptError {
    const rule = operationRules[source.operation];
    const op = source.operation;
    const name = source.customization;
    switch (kind) {
      case 'compile':
        return new InterpreterScriptError(
          op,
          name,
          'compile',
          `does not compile: ${message}; fix the Lua syntax`,
        );
      case 'timeout':
        return new InterpreterScriptError(
          op,
          name,
          'timeout',
          `did not return within ${this.timeoutMs} ms; each call must finish within that limit (look for a loop that never ends)`,
        );
      case 'memory':
        return new InterpreterScriptError(
          op,
          name,
          'memory',
          `ran out of the ${this.memoryLimitBytes / 1024 / 1024} MiB the Lua VM may use; build smaller tables and strings`,
        );
      case 'missing-function':
        return new InterpreterScriptError(
          op,
          name,
          'missing-function',
          `${message}; define function ${rule.signature}`,
        );
      case 'input':
        return new InterpreterScriptError(
          op,
          name,
          'input',
          `the object could not be passed to Lua: ${message}`,
        );
      default:
        return new InterpreterScriptError(op, name, 'runtime', `failed: ${message}`);
    }
  }
}

function hostLibrary(print: (line: string) => void): HostLibrary {
  return {
    kube: kubeLibrary,
    print: (args) => {
      print(args.count > 0 ? args.string(1) : '');
      return undefined;
    },
    time: (args) => {
      if (args.count === 0) return osTime();
      if (args.type(1) !== 'table') throw badArgument(1, 'time', 'table', args.type(1));
      const fields = args.json(1);
      return osTime(isJsonObject(fields) ? fields : {});
    },
    date: (args) => {
      const format = args.count >= 1 && args.type(1) !== 'nil' ? args.string(1) : undefined;
      const time = args.count >= 2 ? args.number(2) : undefined;
      return osDate(format, time);
    },
  };
}
