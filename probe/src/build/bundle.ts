/**
 * The production build of the probe: one ES module, `probe/dist/probe.mjs`, with every dependency
 * inside, run as `node <PRODUCTION_NODE_FLAGS> dist/probe.mjs ...` (see `@kf/runtime/bundle` for
 * what makes it small and what the flags do).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRODUCTION_NODE_FLAGS, bundleProcess, type BundleResult } from '@kf/runtime/bundle';

const PROBE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PROBE_ENTRY = join(PROBE_DIR, 'src', 'main.ts');
export const PROBE_BUNDLE = join(PROBE_DIR, 'dist', 'probe.mjs');

export { PRODUCTION_NODE_FLAGS, type BundleResult };

/** Builds the probe bundle (and its source map and license notices beside it). */
export function bundleProbe(outfile: string = PROBE_BUNDLE): Promise<BundleResult> {
  return bundleProcess({ entry: PROBE_ENTRY, outfile });
}
