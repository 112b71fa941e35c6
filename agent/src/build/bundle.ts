/**
 * The production build of the agent: one ES module, `agent/dist/agent.mjs`, with every dependency
 * inside, run as `node <PRODUCTION_NODE_FLAGS> dist/agent.mjs run ...`.
 *
 * A bundle loads in a fraction of the memory of the source tree: no TypeScript stripping, no
 * thousand-module graph to resolve and keep, and only the parts of client-node the agent uses
 * (its kubeconfig loader and authenticators) instead of every generated API and model.
 */
import { stat } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';

const AGENT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const AGENT_ENTRY = join(AGENT_DIR, 'src', 'main.ts');
export const AGENT_BUNDLE = join(AGENT_DIR, 'dist', 'agent.mjs');

/**
 * The V8 settings the agent runs with in its container, sized to its workload (a few MB of live
 * objects, bursts of short-lived garbage when a LIST page or a status sync is processed):
 * - `--max-semi-space-size=1`: a 1 MiB young generation, collected often and cheaply. V8 sizes
 *   it from the machine's memory otherwise, up to 64 MiB per semi-space on a large node, which
 *   the agent's bursts fill and keep resident;
 * - `--optimize-for-size`: V8's memory-saving mode (smaller heap growth steps); status syncs
 *   take about twice as long, still a small fraction of their period.
 * The old generation keeps V8's limit: a member larger than planned must cost memory, not crash
 * the agent.
 */
export const PRODUCTION_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--optimize-for-size'];

/**
 * client-node's package index re-exports every module it has (generated APIs and models,
 * websockets, tar, port-forward...), and esbuild keeps a module whose exports are unused when it
 * cannot prove that loading it has no side effects. Its modules only declare classes and
 * functions (and the File polyfill for Node 18, which Node 24 does not need), so they are
 * declared free of side effects: the bundle keeps the ones the agent reaches.
 */
const clientNodeWithoutSideEffects: Plugin = {
  name: 'client-node-without-side-effects',
  setup(b) {
    const resolving = Symbol('resolving');
    b.onResolve({ filter: /.*/ }, async (args) => {
      const fromClientNode = args.importer.includes('/@kubernetes/client-node/');
      if (args.pluginData === resolving || (!fromClientNode && args.path !== '@kubernetes/client-node')) {
        return undefined;
      }
      const r = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: resolving,
      });
      if (r.errors.length > 0 || !r.path.includes('/@kubernetes/client-node/')) return r;
      return { ...r, sideEffects: false };
    });
  },
};

const BUILTINS = new Set(builtinModules.flatMap((m) => (m.startsWith('node:') ? [m] : [m, `node:${m}`])));

/**
 * Node's own modules are loaded with require() rather than import. An `import` of a built-in
 * module builds its namespace object, which reads every export, lazy ones included: importing
 * `node:http` that way reads its WebSocket, MessageEvent and CloseEvent exports and so loads
 * Node's internal copy of undici, which the agent never uses (2 to 3 MiB of RSS). require()
 * hands out the module object and leaves lazy exports unread.
 */
const builtinsByRequire: Plugin = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!BUILTINS.has(args.path) || args.kind === 'require-call') return undefined;
      return { path: args.path, namespace: 'builtin-by-require' };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin-by-require' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

export interface BundleResult {
  readonly outfile: string;
  readonly bytes: number;
  readonly metafile: Metafile;
}

/** Builds the agent bundle (and its source map and license notices beside it). */
export async function bundleAgent(outfile: string = AGENT_BUNDLE): Promise<BundleResult> {
  const result = await build({
    entryPoints: [AGENT_ENTRY],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // Whitespace and syntax only: identifiers keep their names for stack traces and logs.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'external',
    sourcemap: 'linked',
    // CommonJS dependencies bundled into an ES module still call require() for Node's modules.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    plugins: [builtinsByRequire, clientNodeWithoutSideEffects],
    metafile: true,
    logLevel: 'warning',
  });
  return { outfile, bytes: (await stat(outfile)).size, metafile: result.metafile };
}
