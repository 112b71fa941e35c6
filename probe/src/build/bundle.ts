/**
 * The production build of the probe: one ES module, `probe/dist/probe.mjs`, with every dependency
 * inside, run as `node <PROBE_NODE_FLAGS> dist/probe.mjs ...` (see `@kf/runtime/bundle` for what
 * makes a bundle small).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRODUCTION_NODE_FLAGS, bundleProcess, type BundleResult } from '@kf/runtime/bundle';

const PROBE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PROBE_ENTRY = join(PROBE_DIR, 'src', 'main.ts');
export const PROBE_BUNDLE = join(PROBE_DIR, 'dist', 'probe.mjs');

/**
 * The processes' production flags plus `--lite-mode`: V8 without its optimizing compilers
 * (Maglev, TurboFan). The probe's work is a few DNS queries and API calls per period; compiling
 * its hot functions would touch about 7 MiB more of the node binary's compiler code and keep
 * the optimized code, for no measurable CPU saving (see the benchmark). Lite mode also leaves
 * V8 without WebAssembly, which undici's HTTP/1.1 parser needs: the probe sends its API calls
 * with Node's HTTP client instead (`setDefaultHttpClient('node')` in main.ts).
 */
export const PROBE_NODE_FLAGS: readonly string[] = [...PRODUCTION_NODE_FLAGS, '--lite-mode'];

export type { BundleResult };

/** Builds the probe bundle (and its source map and license notices beside it). */
export function bundleProbe(outfile: string = PROBE_BUNDLE): Promise<BundleResult> {
  return bundleProcess({ entry: PROBE_ENTRY, outfile, minifyIdentifiers: true });
}
