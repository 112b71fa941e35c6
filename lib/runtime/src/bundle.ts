/**
 * Production builds of the karmada-failover processes: one ES module per process (`dist/*.mjs`)
 * with every dependency inside, run as `node <PRODUCTION_NODE_FLAGS> dist/<name>.mjs ...`.
 * Imported as `@kf/runtime/bundle` by each product's build script, never by a running process.
 *
 * A bundle loads in a fraction of the memory of the source tree: no TypeScript stripping, no
 * module graph of a thousand files to resolve and keep, and only the parts of large libraries a
 * process reaches (of client-node, the kubeconfig loader and its authenticators instead of every
 * generated API and model).
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import { build, type Metafile, type Plugin } from 'esbuild';

const execFileAsync = promisify(execFile);

/**
 * The V8 settings the processes run with in their containers, sized to their workloads (a few
 * MB of live objects, bursts of short-lived garbage when a LIST page, a status sync or a DNS
 * round is processed):
 * - `--max-semi-space-size=1`: a 1 MiB young generation, collected often and cheaply. V8 sizes
 *   it from the machine's memory otherwise, up to 64 MiB per semi-space on a large node, which
 *   the bursts fill and keep resident;
 * - `--optimize-for-size`: V8's memory-saving mode (smaller heap growth steps); work done in
 *   bursts takes about twice as long, still a small fraction of its period;
 * - `--liftoff-only`: WebAssembly is compiled by V8's baseline compiler only, never tiered up to
 *   TurboFan. undici's HTTP/1.1 parser (llhttp) is WebAssembly: against an API server or proxy
 *   without HTTP/2, its tier-up costs 13 to 18 MiB and saves no measurable CPU (a 45 KB response
 *   parses in the same 420 µs either way); over HTTP/2 it is never loaded.
 * The old generation keeps V8's limit: a cluster larger than planned must cost memory, not crash
 * the process. They belong on the command line: `NODE_OPTIONS` refuses `--optimize-for-size`.
 * Whatever they become, they must leave WebAssembly on: see {@link webAssemblyProblem}.
 */
export const PRODUCTION_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=1',
  '--optimize-for-size',
  '--liftoff-only',
];

/**
 * A WebAssembly module of one function, in hex: `(func (export "add") (param i32 i32)
 * (result i32) local.get 0 local.get 1 i32.add)`.
 */
const ADD_MODULE_HEX = [
  '0061736d01000000', // magic, version 1
  '01070160027f7f017f', // type section: (i32, i32) -> i32
  '03020100', // function section: one function of that type
  '070701036164640000', // export section: "add"
  '0a09010700200020016a0b', // code section: local.get 0, local.get 1, i32.add
].join('');

/**
 * Whether `node <nodeFlags>` compiles and runs WebAssembly: undefined when it does, else what
 * went wrong. undici's HTTP/1.1 parser (llhttp) is WebAssembly, so flags that turn it off (V8's
 * `--lite-mode` and `--jitless` do) leave the processes unable to call an API server or proxy
 * that does not offer HTTP/2 (ERR_WEBASSEMBLY_NOT_SUPPORTED on every request), while the
 * kube-apiservers of tests, reached over HTTP/2, would never show it.
 */
export async function webAssemblyProblem(nodeFlags: readonly string[]): Promise<string | undefined> {
  const program = `const m = new WebAssembly.Module(Buffer.from('${ADD_MODULE_HEX}', 'hex'));
process.stdout.write(String(new WebAssembly.Instance(m).exports.add(2, 3)));`;
  try {
    const { stdout } = await execFileAsync(process.execPath, [...nodeFlags, '-e', program]);
    return stdout === '5' ? undefined : `add(2, 3) returned ${JSON.stringify(stdout)}`;
  } catch (err) {
    const { stderr } = err as { stderr?: string };
    // node prints the failing line first; the error itself is the first line naming one.
    const line = stderr?.split('\n').find((l) => /^\w*Error\b/.test(l));
    return line ?? (err instanceof Error ? err.message : String(err));
  }
}

/** The package whose modules are declared free of side effects by default. */
export const CLIENT_NODE = '@kubernetes/client-node';

/**
 * A package index that re-exports every module of the package (client-node's: generated APIs
 * and models, websockets, tar, port-forward...) keeps them all in a bundle: esbuild keeps a
 * module whose exports are unused when it cannot prove that loading it has no side effects.
 * client-node's modules only declare classes and functions (and the File polyfill for Node 18,
 * which Node 24 does not need), so they are declared free of side effects: the bundle keeps the
 * ones the process reaches.
 */
function withoutSideEffects(packages: readonly string[]): Plugin {
  const dirs = packages.map((p) => `/node_modules/${p}/`);
  const inPackage = (path: string): boolean => dirs.some((d) => path.includes(d));
  return {
    name: 'packages-without-side-effects',
    setup(b) {
      const resolving = Symbol('resolving');
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === resolving) return undefined;
        if (!inPackage(args.importer) && !packages.includes(args.path)) return undefined;
        const r = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: resolving,
        });
        if (r.errors.length > 0 || !inPackage(r.path)) return r;
        return { ...r, sideEffects: false };
      });
    },
  };
}

const BUILTINS = new Set(builtinModules.flatMap((m) => (m.startsWith('node:') ? [m] : [m, `node:${m}`])));

/**
 * Node's own modules are loaded with require() rather than import. An `import` of a built-in
 * module builds its namespace object, which reads every export, lazy ones included: importing
 * `node:http` that way reads its WebSocket, MessageEvent and CloseEvent exports and so loads
 * Node's internal copy of undici, which the processes never use (2 to 3 MiB of RSS). require()
 * hands out the module object and leaves lazy exports unread.
 *
 * Each import resolves to a small ES module around that require(): its default export is the
 * module object and each named export one of its properties, read once, when the process starts,
 * and only if some importer names it (the exports are marked pure, so esbuild drops the others).
 * Lazy exports (getters) are not among them: an importer naming one fails to build, and must
 * read it from the module object when it needs it.
 * A CommonJS wrapper would do instead, but every module importing it would then get its own copy
 * of the module object, a getter per export (esbuild's interop): about 1,800 closures and 0.3 MiB
 * of heap in the probe, which imports `node:fs`, `node:http`... from dozens of modules.
 */
const builtinsByRequire: Plugin = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!BUILTINS.has(args.path) || args.kind === 'require-call') return undefined;
      return { path: args.path, namespace: 'builtin-by-require' };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin-by-require' }, (args) => ({
      contents: builtinModuleSource(args.path),
      loader: 'js',
    }));
  },
};

/** The ES module standing for built-in module `name` (see {@link builtinsByRequire}). */
function builtinModuleSource(name: string): string {
  const real = createRequire(import.meta.url)(name) as object;
  const exported = Object.keys(real).filter(
    (n) => n !== 'default' && Object.getOwnPropertyDescriptor(real, n)?.get === undefined,
  );
  return [
    `const m = require(${JSON.stringify(name)});`,
    'export default m;',
    ...exported.map((n, i) => {
      const key = JSON.stringify(n);
      return `const e${i} = /* @__PURE__ */ (() => m[${key}])();\nexport { e${i} as ${key} };`;
    }),
  ].join('\n');
}

/**
 * undici's package index loads all of undici when it is required: fetch, WebSocket, EventSource,
 * the HTTP cache and its CacheStorage instance, cookies, mocks and every interceptor, about
 * 900 KB of code that a bundle keeps and runs (esbuild cannot shake CommonJS). The processes and
 * client-node use its dispatchers (`Agent`, `ProxyAgent`) and `request()` only, so a bare
 * `undici` import resolves to an index of those; anything else it exported is left undefined.
 * `request(url, { dispatcher, ...options })` takes the URL as a string or URL, as the full one
 * does, and runs on the given dispatcher (the global one otherwise).
 *
 * Each dispatcher is loaded when first used (esbuild evaluates a bundled CommonJS module at its
 * first require): a process that reaches its API servers directly never loads `ProxyAgent`
 * (nor `Socks5ProxyAgent`), and one that passes its own dispatcher to every request (as `@kf/kube`'s
 * `KubeTransport` does) never builds the global Agent.
 */
const UNDICI_DISPATCHERS_ONLY = `'use strict'
const Dispatcher = require('./lib/dispatcher/dispatcher')
const api = require('./lib/api')
Object.assign(Dispatcher.prototype, api)
const getGlobalDispatcher = () => require('./lib/global').getGlobalDispatcher()
const setGlobalDispatcher = (d) => require('./lib/global').setGlobalDispatcher(d)
function request (url, opts = {}) {
  const u = new URL(url)
  const { dispatcher = getGlobalDispatcher(), ...rest } = opts
  const method = rest.method || (rest.body ? 'PUT' : 'GET')
  return api.request.call(dispatcher, { ...rest, origin: u.origin, path: u.pathname + u.search, method })
}
module.exports = {
  Dispatcher,
  get Client () { return require('./lib/dispatcher/client') },
  get Pool () { return require('./lib/dispatcher/pool') },
  get Agent () { return require('./lib/dispatcher/agent') },
  get ProxyAgent () { return require('./lib/dispatcher/proxy-agent') },
  get Socks5ProxyAgent () { return require('./lib/dispatcher/socks5-proxy-agent') },
  get buildConnector () { return require('./lib/core/connect') },
  errors: require('./lib/core/errors'),
  getGlobalDispatcher,
  setGlobalDispatcher,
  request
}
`;

/**
 * undici ships two HTTP/1 parsers as WebAssembly in base64 source: llhttp, its default, and the
 * experimental milo, used only when `UNDICI_USE_MILO` is set. It leaves milo out of bundles that
 * define `esbuildDetection` (as Node's own copy of undici is built); without it, milo's two
 * builds are 150 KB of source that V8 would keep for nothing.
 */
const UNDICI_DEFINES = { esbuildDetection: 'true' };

const undiciDispatchersOnly: Plugin = {
  name: 'undici-dispatchers-only',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, (args) => ({
      // undici's own index, as the importer would load it (resolved here, not through
      // esbuild's plugins, so that no other plugin's hook runs for it).
      path: createRequire(join(args.resolveDir, 'index.js')).resolve('undici'),
      namespace: 'undici-dispatchers-only',
    }));
    b.onLoad({ filter: /.*/, namespace: 'undici-dispatchers-only' }, (args) => ({
      contents: UNDICI_DISPATCHERS_ONLY,
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * undici's HTTP/1.1 parser, llhttp, is WebAssembly shipped as base64 in two builds (with and
 * without SIMD): 141 KB of source, which V8 keeps in memory with the rest of the bundle although
 * a process reaching its API servers over HTTP/2 never loads either. Bundled brotli-compressed
 * instead (40 KB), each is decompressed when undici first needs it, to the same bytes.
 */
const undiciWasmCompressed: Plugin = {
  name: 'undici-wasm-compressed',
  setup(b) {
    b.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]llhttp[\\/]llhttp(_simd)?-wasm\.js$/ }, (args) => {
      const wasm = createRequire(import.meta.url)(args.path) as Buffer;
      const packed = brotliCompressSync(wasm, {
        params: { [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY },
      });
      return {
        contents: `'use strict'\nmodule.exports = require('node:zlib').brotliDecompressSync(Buffer.from('${packed.toString('base64')}', 'base64'))\n`,
        loader: 'js',
      };
    });
  },
};

export interface BundleOptions {
  /** The process's main module. */
  readonly entry: string;
  /** Where the bundle goes; its source map and license notices are written beside it. */
  readonly outfile: string;
  /** Shorten local identifiers (default false: whitespace and syntax only). */
  readonly minifyIdentifiers?: boolean;
  /** Packages declared free of side effects (default: client-node). */
  readonly sideEffectFree?: readonly string[];
  /** A process's own esbuild plugins, run before these (their resolutions win). */
  readonly plugins?: readonly Plugin[];
}

export interface BundleResult {
  readonly outfile: string;
  readonly bytes: number;
  readonly metafile: Metafile;
}

/** Builds one process bundle. */
export async function bundleProcess(opts: BundleOptions): Promise<BundleResult> {
  const result = await build({
    entryPoints: [opts.entry],
    outfile: opts.outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minifyWhitespace: true,
    minifySyntax: true,
    // Short local names make a smaller source, which V8 keeps in memory for as long as the
    // process runs; functions and classes keep their names (`keepNames`) for stack traces and
    // the error types in logs; the source map restores the rest.
    minifyIdentifiers: opts.minifyIdentifiers ?? false,
    keepNames: opts.minifyIdentifiers ?? false,
    define: UNDICI_DEFINES,
    legalComments: 'external',
    sourcemap: 'linked',
    // CommonJS dependencies bundled into an ES module still call require() for Node's modules.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    plugins: [
      ...(opts.plugins ?? []),
      builtinsByRequire,
      undiciDispatchersOnly,
      undiciWasmCompressed,
      withoutSideEffects(opts.sideEffectFree ?? [CLIENT_NODE]),
    ],
    metafile: true,
    logLevel: 'warning',
  });
  return { outfile: opts.outfile, bytes: (await stat(opts.outfile)).size, metafile: result.metafile };
}

/** The input files that contributed code to the bundle (esbuild also lists the ones shaken out). */
export function bundledInputs(result: BundleResult): string[] {
  return Object.values(result.metafile.outputs).flatMap((o) =>
    Object.entries(o.inputs)
      .filter(([, i]) => i.bytesInOutput > 0)
      .map(([f]) => f),
  );
}
