import type { Cluster } from '@kf/api';
import type { WatchCache } from '@kf/kube';
import type { Secret } from '@kf/member';
import { createLogger } from '@kf/runtime';
import { describe, expect, it } from 'vitest';
import {
  ACCESS_RECHECK_MS,
  PROBLEM_RECHECK_MS,
  pushSupervisor,
  sharedSecretReads,
} from './push-controllers.ts';
import type { PushAccessKey, PushPart } from './push-hosts.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function pushCluster(spec: Partial<Cluster['spec']> = {}): Cluster {
  return {
    metadata: { name: 'm1', uid: 'u1' },
    spec: {
      syncMode: 'Push',
      apiEndpoint: 'https://127.0.0.1:6443',
      secretRef: { namespace: 'karmada-cluster', name: 'm1' },
      ...spec,
    },
  };
}

function secret(token: string, resourceVersion = '1'): Secret {
  return {
    metadata: { name: 'm1', namespace: 'karmada-cluster', resourceVersion },
    data: { token: b64(token), caBundle: b64('-----BEGIN CERTIFICATE-----') },
  };
}

/** A supervisor over one Cluster (or none) and one Secret (or none), recording what it asks. */
function harness(part: PushPart = 'execution') {
  const state: { cluster?: Cluster; secret?: Secret } = {};
  const calls: string[] = [];
  const events: string[] = [];
  const secretReads: string[] = [];
  const fingerprints: string[] = [];
  const spec = pushSupervisor(part, {
    secrets: {
      find: (key: string) => {
        secretReads.push(key);
        return Promise.resolve(state.secret);
      },
    },
    clusters: { get: () => state.cluster } as unknown as WatchCache<Cluster>,
    hosts: {
      ensure: (cluster: string, p: PushPart, access: PushAccessKey) => {
        calls.push(`ensure ${cluster} ${p}`);
        fingerprints.push(access.fingerprint);
        return Promise.resolve();
      },
      release: (cluster: string, p: PushPart) => {
        calls.push(`release ${cluster} ${p}`);
        return Promise.resolve();
      },
      clusters: () => ['m1'],
    },
    events: {
      record: (_o: unknown, type: string, reason: string, message: string) =>
        events.push(`${type} ${reason} ${message}`),
    },
    problems: new Map(),
  });
  const ctx = {
    log: createLogger({ component: 'test', level: 'silent' }),
    now: () => 0,
    signal: new AbortController().signal,
  };
  return {
    state,
    calls,
    events,
    secretReads,
    fingerprints,
    spec,
    reconcile: () => spec.reconcile('m1', ctx),
  };
}

describe('Push supervisor', () => {
  it('runs its part for a Push cluster with a usable Secret, and reads the Secret again every minute', async () => {
    const h = harness();
    h.state.cluster = pushCluster();
    h.state.secret = secret('t');
    expect(await h.reconcile()).toEqual({ recheckInMs: ACCESS_RECHECK_MS });
    expect(h.calls).toEqual(['ensure m1 execution']);
    expect(h.secretReads).toEqual(['karmada-cluster/m1']);
  });

  it('gives another fingerprint when the Secret, the endpoint, TLS or the proxy change', async () => {
    const h = harness();
    h.state.cluster = pushCluster();
    h.state.secret = secret('t');
    await h.reconcile();
    await h.reconcile();
    h.state.secret = secret('t2', '2');
    await h.reconcile();
    h.state.cluster = pushCluster({ apiEndpoint: 'https://127.0.0.1:7443' });
    await h.reconcile();
    h.state.cluster = pushCluster({
      apiEndpoint: 'https://127.0.0.1:7443',
      insecureSkipTLSVerification: true,
    });
    await h.reconcile();
    h.state.cluster = pushCluster({
      apiEndpoint: 'https://127.0.0.1:7443',
      insecureSkipTLSVerification: true,
      proxyURL: 'http://proxy:3128',
    });
    await h.reconcile();
    const [first, same, ...rest] = h.fingerprints;
    expect(same).toBe(first);
    expect(new Set([first, ...rest]).size).toBe(5);
    // The token itself is never part of what identifies the access (it could end up in a log).
    expect(h.fingerprints.join()).not.toContain('t2');
  });

  it('stops its part for a Pull cluster and for a Cluster that is gone', async () => {
    const h = harness('cluster-status');
    h.state.cluster = pushCluster({ syncMode: 'Pull' });
    expect(await h.reconcile()).toEqual({});
    delete h.state.cluster;
    await h.reconcile();
    expect(h.calls).toEqual(['release m1 cluster-status', 'release m1 cluster-status']);
    expect(h.secretReads).toEqual([]);
  });

  it.each([
    ['no Secret', pushCluster(), undefined, /Secret karmada-cluster\/m1 not found/],
    [
      'no token',
      pushCluster(),
      { metadata: { name: 'm1', namespace: 'karmada-cluster' }, data: {} },
      /has no token/,
    ],
    ['no endpoint', pushCluster({ apiEndpoint: '' }), secret('t'), /has no spec\.apiEndpoint/],
    ['no secretRef', pushCluster({ secretRef: undefined as never }), secret('t'), /has no spec\.secretRef/],
  ] as const)(
    'with %s: stops its part, one Warning per change, looks again soon',
    async (_n, cluster, s, problem) => {
      const h = harness();
      h.state.cluster = cluster;
      if (s !== undefined) h.state.secret = s;
      expect(await h.reconcile()).toEqual({ recheckInMs: PROBLEM_RECHECK_MS });
      await h.reconcile();
      expect(h.calls).toEqual(['release m1 execution', 'release m1 execution']);
      expect(h.events).toHaveLength(1);
      expect(h.events[0]).toMatch(/^Warning PushAccessFailed /);
      expect(h.events[0]).toMatch(problem);
    },
  );

  it('stops its part on every cluster when it stops', async () => {
    const h = harness('work-status');
    await h.spec.onStopped?.();
    expect(h.calls).toEqual(['release m1 work-status']);
  });
});

describe('sharedSecretReads', () => {
  it('answers the three supervisors of one reconcile with one GET, and reads again after the window', async () => {
    let now = 0;
    const gets: string[] = [];
    const shared = sharedSecretReads(
      {
        find: (key: string) => {
          gets.push(key);
          return Promise.resolve(secret(`t${String(gets.length)}`));
        },
      },
      () => now,
      5_000,
    );
    const [a, b, c] = await Promise.all([shared.find('ns/a'), shared.find('ns/a'), shared.find('ns/a')]);
    expect(gets).toEqual(['ns/a']);
    expect(b).toBe(a);
    expect(c).toBe(a);
    await shared.find('ns/b');
    now = 4_999;
    await shared.find('ns/a');
    expect(gets).toEqual(['ns/a', 'ns/b']);
    now = 5_000;
    await shared.find('ns/a');
    expect(gets).toEqual(['ns/a', 'ns/b', 'ns/a']);
  });

  it('does not share a failed read', async () => {
    let calls = 0;
    const shared = sharedSecretReads(
      {
        find: () => {
          calls++;
          return calls === 1 ? Promise.reject(new Error('down')) : Promise.resolve(undefined);
        },
      },
      () => 0,
    );
    await expect(shared.find('ns/a')).rejects.toThrow('down');
    await expect(shared.find('ns/a')).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
