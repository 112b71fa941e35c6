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
 * The processes' production flags plus two that keep V8's compilers off code the probe runs
 * rarely, each worth more memory than the probe's own code and state (probe/README.md):
 * - `--max-opt=0`: V8 keeps its interpreter and baseline compiler but never runs its optimizing
 *   tiers (Maglev, TurboFan), whose code and compiler pages would add about 15 MiB once the
 *   probe's loop is hot, for no CPU the probe needs;
 * - `--liftoff-only`: WebAssembly is compiled by V8's baseline compiler only, never tiered up to
 *   TurboFan. undici's HTTP/1.1 parser (llhttp) is WebAssembly: against a server or proxy without
 *   HTTP/2, its tier-up costs about 14 MiB (`probe/bench/floor.bench.ts`).
 * Not `--lite-mode`, which saves the same: it also turns WebAssembly off, so every API call to a
 * server or proxy that does not offer HTTP/2 would fail with ERR_WEBASSEMBLY_NOT_SUPPORTED
 * (`bundle.test.ts` runs WebAssembly under these flags, and the bundle against such a server).
 */
export const PROBE_NODE_FLAGS: readonly string[] = [
  ...PRODUCTION_NODE_FLAGS,
  '--max-opt=0',
  '--liftoff-only',
];

export type { BundleResult };

/** Builds the probe bundle (and its source map and license notices beside it). */
export function bundleProbe(outfile: string = PROBE_BUNDLE): Promise<BundleResult> {
  return bundleProcess({ entry: PROBE_ENTRY, outfile, minifyIdentifiers: true });
}
