import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledInputs, webAssemblyProblem } from '@kf/runtime/bundle';
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

  /** What the bundle, run with `nodeFlags`, logs when its first read of its Node fails. */
  async function firstNodeReadError(nodeFlags: readonly string[], kubeconfig: string): Promise<string> {
    const resolvConf = join(dir, 'resolv.conf');
    await writeFile(resolvConf, 'nameserver 127.0.0.1\n');
    const child = spawn(
      process.execPath,
      [
        ...nodeFlags,
        bundle.outfile,
        '--host-name=node1',
        '--cluster-name=member1',
        `--kubeconfig=${kubeconfig}`,
        `--karmada-kubeconfig=${kubeconfig}`,
        `--resolv-conf=${resolvConf}`,
        '--nameserver-port=1',
        '--coredns-detect-period=100ms',
        '--leader-elect=false',
        '--metrics-bind-address=0',
        '--health-probe-bind-address=0',
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      for await (const line of createInterface({ input: child.stdout })) {
        const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
        if (entry.msg?.startsWith('cannot read the Node') === true) return entry.err?.message ?? line;
      }
      throw new Error('the probe exited without reading its Node');
    } finally {
      child.kill();
    }
  }

  /** A kubeconfig for `server`, with `extra` cluster fields, written to `name` in the test's folder. */
  async function kubeconfigFile(name: string, server: string, extra = ''): Promise<string> {
    const path = join(dir, name);
    await writeFile(
      path,
      `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "${server}", insecure-skip-tls-verify: true${extra} } }]
users: [{ name: probe, user: { token: t } }]
contexts: [{ name: c, context: { cluster: c, user: probe } }]
current-context: c
`,
    );
    return path;
  }

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

  it("keeps undici's HTTP/1.1 parser compressed", () => {
    // WebAssembly's magic number in base64, as undici ships its parser.
    expect(code).not.toContain('AGFzbQEAAAAB');
    expect(code).toContain('brotliDecompressSync');
  });

  it('keeps the modules it loads on first use (proxies, authenticators, exemplars, transports)', () => {
    const inputs = bundledInputs(bundle);
    for (const dep of ['socks', 'socks-proxy-agent', 'hpagent', 'jsonpath-plus', '@opentelemetry/api']) {
      expect(inputs.some((f) => f.includes(`node_modules/${dep}/`))).toBe(true);
    }
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
    expect(stdout).toContain('--host-name');
  });

  it('keeps WebAssembly under its production flags (undici parses HTTP/1.1 with it)', async () => {
    expect(await webAssemblyProblem(PROBE_NODE_FLAGS)).toBeUndefined();
    expect(await webAssemblyProblem([...PROBE_NODE_FLAGS, '--lite-mode'])).toMatch(
      /WebAssembly is not defined/,
    );
  });

  describe("through a kubeconfig's proxy-url (its support loaded on first use)", () => {
    it.each(['socks5', 'http'])('goes through a %s proxy', async (scheme) => {
      const kubeconfig = await kubeconfigFile(
        `${scheme}-proxy.kubeconfig`,
        'https://127.0.0.1:6443',
        `, proxy-url: "${scheme}://127.0.0.1:1"`,
      );
      // The proxy's port refuses the connection: the request went to the proxy, not to :6443.
      expect(await firstNodeReadError(PROBE_NODE_FLAGS, kubeconfig)).toMatch(/ECONNREFUSED 127\.0\.0\.1:1\b/);
    });
  });

  describe('against an API server without HTTP/2', () => {
    let server: Server;
    let kubeconfig: string;

    beforeAll(async () => {
      // Plain HTTP/1.1, as a proxy or an API server without HTTP/2 answers: every request gets a
      // Status the probe can only report if it parsed the response.
      server = createServer((_req, res) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            code: 500,
            message: 'answered over HTTP/1.1',
          }),
        );
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      kubeconfig = await kubeconfigFile('http1.kubeconfig', `http://127.0.0.1:${port}`);
    });

    afterAll(async () => {
      server.close();
      server.closeAllConnections();
      await once(server, 'close');
    });

    it('reads its Node over HTTP/1.1 with the production flags', async () => {
      expect(await firstNodeReadError(PROBE_NODE_FLAGS, kubeconfig)).toBe('answered over HTTP/1.1');
    });

    it('could not under --lite-mode', async () => {
      expect(await firstNodeReadError([...PROBE_NODE_FLAGS, '--lite-mode'], kubeconfig)).toMatch(
        /ERR_WEBASSEMBLY_NOT_SUPPORTED/,
      );
    });
  });
});
