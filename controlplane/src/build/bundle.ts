/**
 * The production build of the control plane: one ES module, `controlplane/dist/controlplane.mjs`,
 * with every dependency inside, run as `node dist/controlplane.mjs run ...` (see
 * `@kf/runtime/bundle` for what makes a bundle small). No V8 flags: the control plane's memory
 * has not been profiled yet, and its caches grow with the fleet.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleProcess, type BundleResult } from '@kf/runtime/bundle';

const CONTROLPLANE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CONTROLPLANE_ENTRY = join(CONTROLPLANE_DIR, 'src', 'main.ts');
export const CONTROLPLANE_BUNDLE = join(CONTROLPLANE_DIR, 'dist', 'controlplane.mjs');

export type { BundleResult };

/** Builds the control-plane bundle (and its source map and license notices beside it). */
export function bundleControlPlane(outfile: string = CONTROLPLANE_BUNDLE): Promise<BundleResult> {
  return bundleProcess({ entry: CONTROLPLANE_ENTRY, outfile });
}
