import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledInputs } from '@kf/runtime/bundle';
import { PROBE_NODE_FLAGS, bundleProbe, type BundleResult } from './bundle.ts';

/** What keeps the production bundle small; the benchmark measures the memory it saves. */
describe('probe bundle', () => {
  let dir: string;
  let bundle: BundleResult;
  let code: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'probe-bundle-'));
    bundle = await bundleProbe(join(dir, 'probe.mjs'));
    code = await readFile(bundle.outfile, 'utf8');
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('leaves client-node generated APIs and models out', () => {
    const inputs = bundledInputs(bundle);
    expect(inputs.filter((f) => f.includes('/client-node/dist/gen/models/'))).toEqual([]);
    expect(inputs.filter((f) => /\/client-node\/dist\/gen\/apis\/.*Api\.js$/.test(f))).toEqual([]);
    expect(inputs.filter((f) => /node_modules\/(ws|tar-fs|tar-stream)\//.test(f))).toEqual([]);
  });

  it("keeps undici's dispatchers and request(), not fetch, WebSocket, caches or mocks", () => {
    const undici = bundledInputs(bundle).filter((f) => f.includes('node_modules/undici/'));
    expect(undici.some((f) => f.endsWith('lib/dispatcher/agent.js'))).toBe(true);
    expect(undici.some((f) => f.endsWith('lib/api/api-request.js'))).toBe(true);
    expect(
      undici.filter((f) => /lib\/(web\/(websocket|cache|eventsource|cookies)|mock|cache|milo)\//.test(f)),
    ).toEqual([]);
  });

  it('loads Node modules with require, never import', () => {
    expect(code).not.toMatch(/\bfrom\s*["']node:(?!module["'])/);
    expect(code).not.toMatch(/\bimport\(\s*["']node:/);
  });

  it('runs on its own, with the production flags', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...PROBE_NODE_FLAGS, bundle.outfile, '--help'],
      { cwd: dir },
    );
    expect(stdout).toContain('--node-name');
  });
});
