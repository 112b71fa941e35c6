/**
 * The production build of the agent: one ES module, `agent/dist/agent.mjs`, with every dependency
 * inside, run as `node <PRODUCTION_NODE_FLAGS> dist/agent.mjs run ...` (see `@kf/runtime/bundle`
 * for what makes it small and what the flags do), and beside it `glue.wasm`, the resource
 * interpreter's Lua VM, which the bundle loads from its own folder (see `@kf/interpreter/bundle`).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRODUCTION_NODE_FLAGS, bundleProcess, type BundleResult } from '@kf/runtime/bundle';
import { copyLuaWasm, wasmoonBesideBundle } from '@kf/interpreter/bundle';

const AGENT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const AGENT_ENTRY = join(AGENT_DIR, 'src', 'main.ts');
export const AGENT_BUNDLE = join(AGENT_DIR, 'dist', 'agent.mjs');

export { PRODUCTION_NODE_FLAGS, type BundleResult };

/** Builds the agent bundle (and its source map, license notices and the Lua VM beside it). */
export async function bundleAgent(outfile: string = AGENT_BUNDLE): Promise<BundleResult> {
  const result = await bundleProcess({ entry: AGENT_ENTRY, outfile, plugins: [wasmoonBesideBundle()] });
  await copyLuaWasm(outfile);
  return result;
}
