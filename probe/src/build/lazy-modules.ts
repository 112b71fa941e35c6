/**
 * Modules of the probe's dependencies that its bundle loads on first use instead of at start-up.
 * A bundle runs the top-level code of every module it imports when it starts, and V8 keeps what
 * that code builds (classes, prototypes, compiled functions, the modules they load in turn) for
 * the life of the process. These modules serve features a probe pod uses rarely or never, so
 * they cost memory for nothing until then (probe/README.md gives the figures):
 * - client-node's proxy support (`proxy-url` in a kubeconfig): socks-proxy-agent (with
 *   agent-base and debug), socks (with ip-address and smart-buffer), hpagent;
 * - jsonpath-plus, which client-node's gcp and azure authenticators read their tokens with;
 * - prom-client's exemplars (@opentelemetry/api, read only when a metric enables exemplars) and
 *   its push gateway client (which loads zlib, http and https);
 * - pino's transports (thread-stream, which loads worker_threads).
 * Every one stays in the bundle and behaves as before once used: the importer gets a stand-in
 * whose exports load the real module when first read (a class is constructed through it).
 * Not openid-client (client-node's oidc authenticator): the stand-in loads a module whole, and
 * of openid-client and its dependencies the bundle keeps only what the authenticator calls;
 * whole, they would add more source than their start-up costs.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Plugin } from 'esbuild';

/** Module specifiers, as their importers write them, loaded on first use. */
export const LAZY_MODULES: readonly string[] = [
  'socks-proxy-agent',
  'socks',
  'hpagent',
  'jsonpath-plus',
  '@opentelemetry/api',
  'thread-stream',
  './lib/pushgateway',
];

const NAMESPACE = 'lazy-module';

/**
 * The stand-in for the module at `path`, shaped after its exports (read here, at build time): an
 * object whose properties are getters, or, for a module that exports a class or function, a
 * function that calls or constructs it. `require(path)` inside it is bundled like any require.
 */
export function lazyStandIn(path: string): string {
  const real: unknown = createRequire(import.meta.url)(path);
  const names = Object.keys(real as object).filter((n) => n !== '__esModule');
  const getters = names.map((n) => `get ${JSON.stringify(n)}() { return load()[${JSON.stringify(n)}]; }`);
  const head = `let real;\nconst load = () => (real ??= require(${JSON.stringify(path)}));\n`;
  if (typeof real !== 'function') {
    const esModule = (real as { __esModule?: unknown }).__esModule === true ? '__esModule: true, ' : '';
    return `${head}module.exports = { ${esModule}${getters.join(', ')} };\n`;
  }
  return (
    `${head}module.exports = function (...args) {\n` +
    `  return new.target === undefined ? Reflect.apply(load(), this, args) : Reflect.construct(load(), args);\n` +
    `};\n` +
    `Object.defineProperties(module.exports, Object.getOwnPropertyDescriptors({ ${getters.join(', ')} }));\n`
  );
}

/** Resolves each of `specifiers` as esbuild would, then hands its importer a lazy stand-in. */
export function lazyModules(specifiers: readonly string[] = LAZY_MODULES): Plugin {
  const wanted = new Set(specifiers);
  return {
    name: 'lazy-modules',
    setup(b) {
      const resolving = Symbol('resolving');
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === resolving || !wanted.has(args.path) || args.namespace !== 'file') {
          return undefined;
        }
        const r = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: resolving,
        });
        if (r.errors.length > 0) return r;
        // A CommonJS name, whatever the real module is: esbuild takes the format from it.
        return { path: `${r.path}.lazy.cjs`, namespace: NAMESPACE, pluginData: r.path };
      });
      b.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const real = args.pluginData as string;
        return { contents: lazyStandIn(real), resolveDir: dirname(real), loader: 'js' };
      });
    },
  };
}
