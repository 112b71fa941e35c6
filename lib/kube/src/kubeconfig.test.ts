import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestContext } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KubeConfigError,
  apiTimeout,
  kubeClients,
  loadKubeConfig,
  serverOf,
  timeoutMiddleware,
} from './kubeconfig.ts';

const KUBECONFIG = `
apiVersion: v1
kind: Config
clusters:
  - name: karmada
    cluster: { server: 'https://127.0.0.1:6443', insecure-skip-tls-verify: true }
  - name: member1
    cluster: { server: 'https://127.0.0.1:7443', insecure-skip-tls-verify: true }
users:
  - name: admin
    user: { token: abc }
contexts:
  - name: karmada
    context: { cluster: karmada, user: admin }
  - name: member1
    context: { cluster: member1, user: admin }
  - name: dangling
    context: { cluster: nowhere, user: admin }
current-context: karmada
`;

describe('loadKubeConfig', () => {
  let dir: string;
  let path: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kf-kubeconfig-'));
    path = join(dir, 'kubeconfig');
    await writeFile(path, KUBECONFIG);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("uses the file's current context", () => {
    expect(serverOf(loadKubeConfig({ path }))).toBe('https://127.0.0.1:6443');
  });

  it('switches to the context asked for', () => {
    expect(serverOf(loadKubeConfig({ path, context: 'member1' }))).toBe('https://127.0.0.1:7443');
  });

  it.each([
    ['an unknown context', { context: 'nope' }, /no context nope/],
    ['a context naming no cluster', { context: 'dangling' }, /names no cluster/],
  ])('rejects %s', (_name, extra, message) => {
    expect(() => loadKubeConfig({ path, ...extra })).toThrow(message);
  });

  it('rejects a missing file with the path in the message', () => {
    expect(() => loadKubeConfig({ path: join(dir, 'missing') })).toThrow(KubeConfigError);
  });

  it('refuses in-cluster loading outside a cluster', () => {
    const saved = process.env.KUBERNETES_SERVICE_HOST;
    delete process.env.KUBERNETES_SERVICE_HOST;
    try {
      expect(() => loadKubeConfig({})).toThrow(/not running in a cluster/);
    } finally {
      if (saved !== undefined) process.env.KUBERNETES_SERVICE_HOST = saved;
    }
  });

  it('makes each typed client once per factory', () => {
    const clients = kubeClients(loadKubeConfig({ path }), { timeoutMs: 1_000 });
    expect(clients.core).toBe(clients.core);
    expect(clients.coordination).not.toBe(clients.core);
    expect(clients.timeoutMs).toBe(1_000);
  });
});

describe('timeoutMiddleware', () => {
  const run = async (...ms: { ms: number; signal?: AbortSignal }[]): Promise<AbortSignal | undefined> => {
    let ctx = new RequestContext('https://example.invalid/api', 'GET');
    for (const m of ms) ctx = await timeoutMiddleware(m.ms, m.signal).pre(ctx).toPromise();
    return ctx.getSignal();
  };

  it('sets a signal that aborts with a TimeoutError after the deadline', async () => {
    const signal = await run({ ms: 10 });
    expect(signal?.aborted).toBe(false);
    await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
    expect((signal?.reason as Error).name).toBe('TimeoutError');
  });

  it('accepts fractional milliseconds', async () => {
    await expect(run({ ms: 2997.49 })).resolves.toBeDefined();
  });

  it('keeps an earlier deadline and a caller signal', async () => {
    const caller = new AbortController();
    const signal = await run({ ms: 60_000 }, { ms: 60_000, signal: caller.signal });
    expect(signal?.aborted).toBe(false);
    caller.abort();
    expect(signal?.aborted).toBe(true);
  });

  it('is appended to the client middleware', () => {
    expect(apiTimeout(5).middlewareMergeStrategy).toBe('append');
  });
});
