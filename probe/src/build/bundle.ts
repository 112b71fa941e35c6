/**
 * The production build of the probe: one ES module, `probe/dist/probe.mjs`, with every dependency
 * inside, run as `node <PROBE_NODE_FLAGS> dist/probe.mjs ...` (see `@kf/runtime/bundle` for what
 * makes a bundle small).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRODUCTION_NODE_FLAGS, bundleProcess, type BundleResult } from '@kf/runtime/bundle';
import { lazyModules } from './lazy-modules.ts';

const PROBE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PROBE_ENTRY = join(PROBE_DIR, 'src', 'main.ts');
export const PROBE_BUNDLE = join(PROBE_DIR, 'dist', 'probe.mjs');

/**
 * The processes' production flags (WebAssembly kept to V8's baseline compiler among them) plus:
 * - `--max-opt=0`: V8 keeps its interpreter but never runs its optimizing tiers (Maglev,
 *   TurboFan), whose code and compiler pages would add about 15 MiB once the probe's loop is hot,
 *   for no CPU the probe needs;
 * - `--minor-ms`: V8's young generation is collected by marking and sweeping in place instead of
 *   copying survivors from one semi-space to another, so it needs no second semi-space to copy
 *   into: 1 to 1.2 MiB less for the probe, whose lookups, watches and writes keep its young
 *   generation full (the floor's programs allocate too little for it to matter);
 * - `--bytecode-old-age=2`: the bytecode of a function left unused for two full collections is
 *   dropped (and compiled again if it runs again), instead of after six: what only start-up
 *   runs (flag parsing, kubeconfig loading, the bundle's top level) goes within the first
 *   minute, about 1 MiB of heap and 0.2 to 0.4 MiB of RSS.
 * Measured in probe/README.md. Not `--lite-mode`, which saves the same as `--max-opt=0`: it also
 * turns WebAssembly off, and undici's HTTP/1.1 parser (llhttp) is WebAssembly, so every API call
 * to a server or proxy that does not offer HTTP/2 would fail with ERR_WEBASSEMBLY_NOT_SUPPORTED
 * (`bundle.test.ts` runs WebAssembly under these flags).
 */
export const PROBE_NODE_FLAGS: readonly string[] = [
  ...PRODUCTION_NODE_FLAGS,
  '--max-opt=0',
  '--minor-ms',
  '--bytecode-old-age=2',
];

export type { BundleResult };

/** Builds the probe bundle (and its source map and license notices beside it). */
export function bundleProbe(outfile: string = PROBE_BUNDLE): Promise<BundleResult> {
  return bundleProcess({ entry: PROBE_ENTRY, outfile, minifyIdentifiers: true, plugins: [lazyModules()] });
}
