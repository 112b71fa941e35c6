/**
 * The resource interpreter's Lua VM (wasmoon) in a process bundle (`@kf/runtime/bundle`): the
 * agent's and the control plane's. Imported by their build scripts, never by a running process.
 * wasmoon is a UMD module that
 * finds its WebAssembly binary, glue.wasm, beside itself through `__filename`, which an ES module
 * does not have: Node refuses the whole bundle at start-up ("Cannot determine intended module
 * format"). Its code is bundled with the path of the binary beside the bundle in place of
 * `__filename` (the bundle's `require` resolves from the bundle's own folder; `import.meta` would
 * make esbuild take wasmoon for an ES module without exports), and {@link copyLuaWasm} puts the
 * binary there. A bundle without it stops at start-up, naming the file.
 */
import { copyFile, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin } from 'esbuild';

const WASMOON_MAIN = /[\\/]wasmoon[\\/]dist[\\/]index\.js$/;

/** The binary's file name, which wasmoon asks for. */
export const LUA_WASM = 'glue.wasm';

export function wasmoonBesideBundle(): Plugin {
  return {
    name: 'wasmoon-beside-bundle',
    setup(b) {
      b.onLoad({ filter: WASMOON_MAIN }, async (args) => ({
        contents: (await readFile(args.path, 'utf8')).replaceAll(
          '__filename',
          `require.resolve('./' + '${LUA_WASM}')`,
        ),
        loader: 'js',
      }));
    },
  };
}

/** Copies wasmoon's glue.wasm beside `outfile`; returns where it went. */
export async function copyLuaWasm(outfile: string): Promise<string> {
  const wasmoon = createRequire(import.meta.url).resolve('wasmoon');
  const target = join(dirname(outfile), LUA_WASM);
  await copyFile(join(dirname(wasmoon), LUA_WASM), target);
  return target;
}
