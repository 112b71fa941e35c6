import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleProcess, bundledInputs } from '@kf/runtime/bundle';
import { PRODUCTION_NODE_FLAGS, bundleAgent, type BundleResult } from './bundle.ts';
import { copyLuaWasm, wasmoonBesideBundle } from '@kf/interpreter/bundle';

/** What keeps the production bundle small; the benchmark measures the memory it saves. */
describe('agent bundle', () => {
  let dir: string;
  let bundle: BundleResult;
  let code: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-bundle-'));
    bundle = await bundleAgent(join(dir, 'agent.mjs'));
    code = await readFile(bundle.outfile, 'utf8');
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('leaves client-node generated APIs and models, websockets and tar out', () => {
    const inputs = bundledInputs(bundle);
    expect(inputs.filter((f) => f.includes('/client-node/dist/gen/models/'))).toEqual([]);
    expect(inputs.filter((f) => /\/client-node\/dist\/gen\/apis\/.*Api\.js$/.test(f))).toEqual([]);
    expect(inputs.filter((f) => /node_modules\/(ws|tar-fs|tar-stream)\//.test(f))).toEqual([]);
  });

  it('loads Node modules with require, never import', () => {
    expect(code).not.toMatch(/\bfrom\s*["']node:(?!module["'])/);
    expect(code).not.toMatch(/\bimport\(\s*["']node:/);
  });

  it('runs on its own, with the production flags', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...PRODUCTION_NODE_FLAGS, bundle.outfile, '--help'],
      { cwd: dir },
    );
    expect(stdout).toContain('Usage: agent');
  });

  it("runs the resource interpreter's Lua VM from the bundle's folder", async () => {
    // A bundle of its own, made as the agent's is: the agent starts its VM only once registered.
    const outfile = join(dir, 'interpreter-check.mjs');
    await bundleProcess({
      entry: join(import.meta.dirname, 'interpreter-check-main.ts'),
      outfile,
      plugins: [wasmoonBesideBundle()],
    });
    await copyLuaWasm(outfile);
    const { stdout } = await promisify(execFile)(process.execPath, [...PRODUCTION_NODE_FLAGS, outfile], {
      cwd: tmpdir(),
    });
    expect(JSON.parse(stdout)).toEqual({ healthy: true, unhealthy: false });
    expect(code).not.toMatch(/\b__filename\b/);
  }, 60_000);
});
