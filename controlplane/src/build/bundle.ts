/**
 * The production build of the control plane: one ES module, `controlplane/dist/controlplane.mjs`,
 * with every dependency inside, run as `node <CONTROLPLANE_NODE_FLAGS> dist/controlplane.mjs run ...`
 * (see `@kf/runtime/bundle` for what makes a bundle small, `@kf/runtime`'s node-flags.ts for the
 * flags), and beside it `glue.wasm`, the resource interpreter's Lua VM, which the bundle loads from
 * its own folder (see `@kf/interpreter/bundle`).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleProcess, type BundleResult } from '@kf/runtime/bundle';
import { copyLuaWasm, wasmoonBesideBundle } from '@kf/interpreter/bundle';

const CONTROLPLANE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CONTROLPLANE_ENTRY = join(CONTROLPLANE_DIR, 'src', 'main.ts');
export const CONTROLPLANE_BUNDLE = join(CONTROLPLANE_DIR, 'dist', 'controlplane.mjs');

export type { BundleResult };

/** Builds the control-plane bundle (and its source map, license notices and the Lua VM beside it). */
export async function bundleControlPlane(outfile: string = CONTROLPLANE_BUNDLE): Promise<BundleResult> {
  const result = await bundleProcess({
    entry: CONTROLPLANE_ENTRY,
    outfile,
    plugins: [wasmoonBesideBundle()],
  });
  await copyLuaWasm(outfile);
  return result;
}
