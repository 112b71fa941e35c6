import { describe, expect, it } from 'vitest';
import { KubeError } from '@kf/kube';
import { ManualClock, createLogger } from '@kf/runtime';
import { DiscoveryKinds, type FetchGroupVersion } from './discovery-kinds.ts';

const log = createLogger({ component: 'test', level: 'silent' });
const WIDGETS = { resources: [{ name: 'widgets', namespaced: true, kind: 'Widget' }] };

/** A discovery endpoint whose answers the test changes; counts the requests per group version. */
function fakeServer(): {
  fetch: FetchGroupVersion;
  serve: (gv: string, body: unknown) => void;
  fail: (gv: string) => void;
  calls: Map<string, number>;
} {
  const answers = new Map<string, unknown>();
  const failing = new Set<string>();
  const calls = new Map<string, number>();
  return {
    fetch: (gv) => {
      calls.set(gv, (calls.get(gv) ?? 0) + 1);
      if (failing.has(gv)) return Promise.reject(new KubeError('Unavailable', 'down'));
      return Promise.resolve(answers.get(gv));
    },
    serve: (gv, body) => {
      failing.delete(gv);
      answers.set(gv, body);
    },
    fail: (gv) => failing.add(gv),
    calls,
  };
}

describe('DiscoveryKinds', () => {
  it('resolves built-in kinds without asking discovery', async () => {
    const server = fakeServer();
    const kinds = new DiscoveryKinds({ fetch: server.fetch, log, clock: new ManualClock() });
    expect(kinds.resolve('apps/v1', 'Deployment')).toMatchObject({ plural: 'deployments' });
    await kinds.round(new AbortController().signal);
    expect(server.calls.size).toBe(0);
  });

  it('learns a kind served after a miss, asking at most once per minRefreshMs', async () => {
    const clock = new ManualClock();
    const server = fakeServer();
    const kinds = new DiscoveryKinds({ fetch: server.fetch, log, clock, minRefreshMs: 5_000 });
    let learned = 0;
    kinds.onLearned(() => learned++);
    const signal = new AbortController().signal;

    expect(kinds.resolve('example.com/v1', 'Widget')).toBeUndefined();
    await kinds.round(signal);
    expect(server.calls.get('example.com/v1')).toBe(1);
    expect(kinds.missing()).toEqual(['example.com/v1/Widget']);

    server.serve('example.com/v1', WIDGETS); // the CRD is installed
    await clock.advance(4_999);
    for (let i = 0; i < 3; i++) expect(kinds.resolve('example.com/v1', 'Widget')).toBeUndefined();
    await kinds.round(signal);
    expect(server.calls.get('example.com/v1')).toBe(1);
    expect(learned).toBe(0);

    await clock.advance(1);
    await kinds.round(signal);
    expect(server.calls.get('example.com/v1')).toBe(2);
    expect(learned).toBe(1);
    expect(kinds.missing()).toEqual([]);
    expect(kinds.resolve('example.com/v1', 'Widget')).toEqual({
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
      plural: 'widgets',
      namespaced: true,
    });
  });

  it('retries after a discovery error instead of giving up', async () => {
    const clock = new ManualClock();
    const server = fakeServer();
    server.fail('example.com/v1');
    const kinds = new DiscoveryKinds({ fetch: server.fetch, log, clock, minRefreshMs: 5_000 });
    const signal = new AbortController().signal;
    kinds.resolve('example.com/v1', 'Widget');
    await kinds.round(signal);
    expect(kinds.missing()).toEqual(['example.com/v1/Widget']);
    server.serve('example.com/v1', WIDGETS);
    await clock.advance(5_000);
    await kinds.round(signal);
    expect(kinds.resolve('example.com/v1', 'Widget')).toMatchObject({ plural: 'widgets' });
  });

  it('does not ask about malformed apiVersions', async () => {
    const server = fakeServer();
    const kinds = new DiscoveryKinds({ fetch: server.fetch, log, clock: new ManualClock() });
    expect(kinds.resolve('../../v1', 'Widget')).toBeUndefined();
    expect(kinds.resolve('example.com/v1', '')).toBeUndefined();
    await kinds.round(new AbortController().signal);
    expect(server.calls.size).toBe(0);
  });

  it('run: a miss wakes the loop, which keeps asking every minRefreshMs until the kind is served', async () => {
    const clock = new ManualClock();
    const server = fakeServer();
    const kinds = new DiscoveryKinds({ fetch: server.fetch, log, clock, minRefreshMs: 5_000 });
    const learned = new Promise<void>((resolve) => kinds.onLearned(resolve));
    const stop = new AbortController();
    const running = kinds.run(stop.signal);
    /** The loop waits for its next round on the clock. */
    const parked = async (): Promise<void> => {
      await expect.poll(() => clock.pendingSleeps()).toBe(1);
    };

    await Promise.resolve();
    expect(server.calls.size).toBe(0); // nothing wanted: no request, no timer
    kinds.resolve('example.com/v1', 'Widget');
    await expect.poll(() => server.calls.get('example.com/v1')).toBe(1);
    await parked();
    await clock.advance(5_000);
    await expect.poll(() => server.calls.get('example.com/v1')).toBe(2);
    server.serve('example.com/v1', WIDGETS);
    await parked();
    await clock.advance(5_000);
    await learned;
    expect(server.calls.get('example.com/v1')).toBe(3);

    stop.abort();
    await running;
  });
});
