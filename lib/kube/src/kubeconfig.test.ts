import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestContext } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, exitCodeFor } from '@kf/runtime';
import {
  KubeConfigError,
  apiTimeout,
  kubeClients,
  loadKubeConfig,
  loadKubeConfigs,
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

  it('says in one line why a file cannot be loaded', async () => {
    const garbage = join(dir, 'garbage');
    await writeFile(garbage, 'clusters: [\n  - {\n');
    for (const bad of [garbage, join(dir, 'missing'), dir]) {
      const err: unknown = (() => {
        try {
          return loadKubeConfig({ path: bad });
        } catch (e: unknown) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(KubeConfigError);
      expect((err as Error).message).toMatch(new RegExp(`^cannot load kubeconfig ${bad}: \\S`));
      expect((err as Error).message).not.toContain('\n');
    }
  });

  describe('a $KUBECONFIG list', () => {
    const SECOND = `
apiVersion: v1
kind: Config
clusters:
  - name: karmada
    cluster: { server: 'https://10.0.0.1:6443' }
  - name: member2
    cluster: { server: 'https://127.0.0.1:8443', insecure-skip-tls-verify: true }
users:
  - name: other
    user: { token: xyz }
contexts:
  - name: member2
    context: { cluster: member2, user: other }
current-context: member2
`;
    let second: string;
    beforeAll(async () => {
      second = join(dir, 'second');
      await writeFile(second, SECOND);
    });

    it('merges the files as client-go does: the first file wins names and the current context', () => {
      const kc = loadKubeConfig({ path: [path, second] });
      expect(serverOf(kc)).toBe('https://127.0.0.1:6443'); // the first file's current context and cluster
      expect(kc.getContexts().map((c) => c.name)).toEqual(['karmada', 'member1', 'dangling', 'member2']);
      expect(kc.getClusters().find((c) => c.name === 'karmada')?.server).toBe('https://127.0.0.1:6443');
    });

    it('reaches contexts of the later files', () => {
      const kc = loadKubeConfig({ path: [path, second], context: 'member2' });
      expect(serverOf(kc)).toBe('https://127.0.0.1:8443');
      expect(kc.getCurrentUser()?.token).toBe('xyz');
    });

    it('takes the current context from a later file when the first sets none', async () => {
      const bare = join(dir, 'bare');
      await writeFile(bare, KUBECONFIG.replace('current-context: karmada', ''));
      expect(serverOf(loadKubeConfig({ path: [bare, second] }))).toBe('https://127.0.0.1:8443');
    });

    it('skips files that do not exist, as client-go does, but not when none does', () => {
      expect(serverOf(loadKubeConfig({ path: [join(dir, 'missing'), second] }))).toBe(
        'https://127.0.0.1:8443',
      );
      expect(() => loadKubeConfig({ path: [join(dir, 'missing'), join(dir, 'gone')] })).toThrow(
        /none of the kubeconfig files .*missing:.*gone exists/,
      );
    });

    it('refuses a list with a file that cannot be parsed', async () => {
      const garbage = join(dir, 'garbage2');
      await writeFile(garbage, '{{{');
      expect(() => loadKubeConfig({ path: [path, garbage] })).toThrow(/cannot load kubeconfig .*garbage2/);
    });
  });

  it('loads every kubeconfig a process needs, or names each one that cannot be used (exit 2)', () => {
    const ok = loadKubeConfigs({
      karmada: { label: 'control plane', options: { path, context: 'member1' } },
    });
    expect(serverOf(ok.karmada)).toBe('https://127.0.0.1:7443');
    const err: unknown = (() => {
      try {
        return loadKubeConfigs({
          member: { label: 'member', options: { path: join(dir, 'missing') } },
          karmada: { label: 'control plane', options: { path, context: 'nope' } },
          other: {
            label: 'other',
            options: () => {
              throw new KubeConfigError('no other kubeconfig: pass --other');
            },
          },
        });
      } catch (e: unknown) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(exitCodeFor(err)).toBe(2);
    expect((err as ConfigError).problems).toEqual([
      expect.stringMatching(/^member kubeconfig: cannot load kubeconfig .*missing: ENOENT/),
      `control plane kubeconfig: kubeconfig ${path} has no context nope`,
      'other kubeconfig: no other kubeconfig: pass --other',
    ]);
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
