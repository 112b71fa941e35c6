import type { Cluster, ClusterStatus } from '@kf/api';
import { KubeError, type ResourceClient, type WatchCache } from '@kf/kube';
import { createLogger } from '@kf/runtime';
import { describe, expect, it } from 'vitest';
import type { MemberMetrics } from '../../metrics.ts';
import type { ProbeAnswer } from './ready-condition.ts';
import { KeyTrigger } from '../key-trigger.ts';
import {
  clusterStatusController,
  collectionBudgetMs,
  retryCapMs,
  type ClusterStatusDeps,
} from './controller.ts';

function member1(ready: 'True' | 'Unknown'): Cluster {
  return {
    metadata: { name: 'member1', resourceVersion: ready === 'True' ? '7' : '8' },
    spec: { syncMode: 'Pull' },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: ready,
          reason: ready === 'True' ? 'ClusterReady' : 'ClusterStatusUnknown',
          message: ready === 'True' ? 'cluster is healthy and ready to accept workloads' : 'silent',
          lastTransitionTime: '2026-11-20T10:00:00Z',
        },
      ],
    },
  };
}

/** A member whose /readyz answers 200, at version v1.36.3, with no API groups. */
const HEALTHY_MEMBER: ClusterStatusDeps['member'] = {
  probe: () => Promise.resolve({ readyz: { kind: 'status', status: 200 } }),
  version: () => Promise.resolve('v1.36.3'),
  discover: () => Promise.resolve({ groupVersions: [], partial: false }),
};

/**
 * The status controller of member1 with a live Cluster cache holding `cached`, a healthy member,
 * Ready reported at once, status every 1 s and a Lease of 4 s; `overrides` replace any of that.
 */
function statusController(
  cached: Cluster,
  overrides: Partial<ClusterStatusDeps> & Pick<ClusterStatusDeps, 'clusterClient'>,
): ReturnType<typeof clusterStatusController> {
  return clusterStatusController({
    clusterName: 'member1',
    clusters: {
      get: () => cached,
      isLive: () => true,
      onEvent: () => () => undefined,
    } as unknown as WatchCache<Cluster>,
    member: HEALTHY_MEMBER,
    thresholds: { successMs: 0, failureMs: 0 },
    periodMs: 1_000,
    leaseDurationMs: 4_000,
    metrics: {
      observeCluster: () => undefined,
      statusSyncSeconds: () => undefined,
    } as unknown as MemberMetrics,
    monotonic: () => performance.now(),
    ...overrides,
  });
}

/** One sync of member1, its clock `now`. */
function syncOnce(
  controller: ReturnType<typeof clusterStatusController>,
  now: () => number = () => Date.now(),
): ReturnType<ReturnType<typeof clusterStatusController>['reconcile']> {
  return controller.reconcile('member1', {
    log: createLogger({ component: 'test', level: 'silent' }),
    now,
    signal: new AbortController().signal,
  });
}

/**
 * A healthy member whose Cluster watch looks live but whose cache still says Ready=True, while
 * the control plane has marked it Unknown: how often a sync reads the Cluster from the API server
 * and which Ready it writes, with or without a reconnection of its heartbeat first.
 */
async function syncAfter(opts: { readonly reconnected: boolean }): Promise<{
  readonly finds: number;
  readonly gets: number;
  readonly collections: number;
  readonly written: readonly string[];
  readonly recheckInMs: number | undefined;
  readonly maxRetryDelayMs: number | undefined;
}> {
  const written: string[] = [];
  let finds = 0;
  let gets = 0;
  let collections = 0;
  const reconnected = new KeyTrigger();
  const controller = statusController(member1('True'), {
    clusterClient: {
      find: () => {
        finds++;
        return Promise.resolve(member1('Unknown'));
      },
      get: () => {
        gets++;
        return Promise.resolve(member1('Unknown'));
      },
      replaceStatus: (c: Cluster) => {
        const status: ClusterStatus = c.status ?? {};
        written.push(status.conditions?.find((x) => x.type === 'Ready')?.status ?? 'none');
        return Promise.resolve(c);
      },
    } as unknown as ResourceClient<Cluster>,
    member: {
      ...HEALTHY_MEMBER,
      version: () => {
        collections++;
        return Promise.resolve('v1.36.3');
      },
    },
    thresholds: { successMs: 3_000, failureMs: 3_000 },
    monotonic: () => 0,
    reconnected,
  });
  for (const source of controller.sources) source.onChange(() => undefined);
  if (opts.reconnected) reconnected.fire('member1');
  const outcome = await syncOnce(controller, () => Date.parse('2026-11-20T10:00:30Z'));
  return {
    finds,
    gets,
    collections,
    written,
    recheckInMs: outcome.recheckInMs,
    maxRetryDelayMs: controller.maxRetryDelayMs,
  };
}

describe('cluster-status controller, after its heartbeat reconnected', () => {
  it('reads its Cluster from the API server once and writes Ready back over an Unknown its cache missed', async () => {
    // One read, the answer at once (no second read, no collection first), the collection next.
    expect(await syncAfter({ reconnected: true })).toEqual({
      finds: 1,
      gets: 0,
      collections: 0,
      written: ['True'],
      recheckInMs: 0,
      maxRetryDelayMs: 250,
    });
  });

  it('trusts a live cache otherwise (one read per period would load the control plane)', async () => {
    expect((await syncAfter({ reconnected: false })).finds).toBe(0);
  });
});

/**
 * The control plane marked the cluster Unknown and the watch delivered it: how many requests the
 * sync makes to write Ready back, when the first write is answered with `firstWrite`.
 */
async function answerUnknown(firstWrite: 'ok' | 'Conflict'): Promise<{ gets: number; writes: string[] }> {
  const writes: string[] = [];
  let gets = 0;
  let conflicts = firstWrite === 'Conflict' ? 1 : 0;
  const controller = statusController(member1('Unknown'), {
    clusterClient: {
      get: () => {
        gets++;
        return Promise.resolve(member1('Unknown'));
      },
      replaceStatus: (c: Cluster) => {
        writes.push(
          `${c.metadata.resourceVersion ?? ''}:${c.status?.conditions?.find((x) => x.type === 'Ready')?.status ?? 'none'}`,
        );
        if (conflicts-- > 0) return Promise.reject(new KubeError('Conflict', 'the object has been modified'));
        return Promise.resolve(c);
      },
    } as unknown as ResourceClient<Cluster>,
  });
  await syncOnce(controller);
  return { gets, writes };
}

describe('cluster-status controller, answering an Unknown', () => {
  it('writes Ready back from the Cluster its watch delivered: one request, no read first', async () => {
    expect(await answerUnknown('ok')).toEqual({ gets: 0, writes: ['8:True'] });
  });

  it('reads the Cluster and writes again when the write meets a Conflict', async () => {
    expect(await answerUnknown('Conflict')).toEqual({ gets: 1, writes: ['8:True', '8:True'] });
  });
});

describe('cluster-status controller, after a failed sync', () => {
  it('retries within a quarter of the status period, however long the outage was', async () => {
    expect((await syncAfter({ reconnected: false })).maxRetryDelayMs).toBe(250);
    expect(retryCapMs(10_000)).toBe(2_500);
  });
});

/** A first sync whose status write takes `writeMs` on the wire (period 1 s, Lease 4 s). */
async function syncWritingFor(writeMs: number): Promise<readonly string[]> {
  const written: string[] = [];
  // Ready is reported at once (the defaults).
  const controller = statusController(member1('Unknown'), {
    clusterClient: {
      get: () => Promise.resolve(member1('Unknown')),
      replaceStatus: (c: Cluster, opts: { signal: AbortSignal }) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            written.push(c.status?.conditions?.find((x) => x.type === 'Ready')?.status ?? 'none');
            resolve(c);
          }, writeMs);
          opts.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(opts.signal.reason as Error);
          });
        }),
    } as unknown as ResourceClient<Cluster>,
  });
  await syncOnce(controller);
  return written;
}

describe.concurrent('cluster-status controller over a slow link', () => {
  it('lets a status write land that takes longer than the period (the first: up to the Lease duration − a period)', async () => {
    expect(await syncWritingFor(1_500)).toEqual(['True']);
  });

  it('ends the write by then', async () => {
    await expect(syncWritingFor(3_300)).rejects.toThrow();
  });
});

/** A call to the member that never answers, until the signal it was given aborts it. */
function hangs<T>(signal: AbortSignal): Promise<T> {
  return new Promise((_, reject) => {
    signal.addEventListener('abort', () => {
      reject(signal.reason as Error);
    });
  });
}

/**
 * One sync of a member found healthy whose collection is played by `member` (a collection budget
 * of 100 ms): how long the sync took, and the version and conditions it wrote.
 */
async function syncCollecting(member: Partial<ClusterStatusDeps['member']>): Promise<{
  readonly tookMs: number;
  readonly recheckInMs: number | undefined;
  readonly wrote: boolean;
  readonly version: string | undefined;
  readonly conditions: readonly string[];
}> {
  let written: ClusterStatus | undefined;
  const controller = statusController(member1('True'), {
    clusterClient: {
      replaceStatus: (c: Cluster) => {
        written = c.status;
        return Promise.resolve(c);
      },
    } as unknown as ResourceClient<Cluster>,
    member: { ...HEALTHY_MEMBER, ...member },
    collectionBudgetMs: 100,
  });
  const startedAt = performance.now();
  const outcome = await syncOnce(controller);
  return {
    tookMs: performance.now() - startedAt,
    recheckInMs: outcome.recheckInMs,
    wrote: written !== undefined,
    version: written?.kubernetesVersion,
    conditions: (written?.conditions ?? []).map((c) => `${c.type}=${c.status}`),
  };
}

describe('cluster-status controller, collecting from a member that stops answering', () => {
  it('gives the collection its budget, then writes the status without it', async () => {
    const r = await syncCollecting({ discover: hangs, version: hangs });
    expect(r.tookMs).toBeLessThan(2_000);
    // Ready True as stored, nothing collected: nothing to write; the next sync is a period away.
    expect(r).toMatchObject({ wrote: false, recheckInMs: 1_000 });
  });

  it('keeps what a member answered in time, however long the inventory caches took', async () => {
    const r = await syncCollecting({
      inventory: () =>
        new Promise((resolve) =>
          setTimeout(() => {
            resolve({ nodes: [], pods: [] });
          }, 300),
        ),
    });
    expect(r.wrote).toBe(true);
    expect(r.version).toBe('v1.36.3');
    expect(r.conditions.filter((c) => c.startsWith('CompleteAPIEnablements='))).toHaveLength(1);
  });

  it('has a budget of the status period, and at least the probe timeout', () => {
    expect(collectionBudgetMs(1_000)).toBe(5_000);
    expect(collectionBudgetMs(10_000)).toBe(10_000);
  });
});

describe('cluster-status controller, probing a member that stops answering', () => {
  /**
   * A sync answered healthy at 0 s, then one whose probe is sent at 1 s and ends at 6 s with
   * `answer`; failure threshold 3 s. What Ready the second sync writes, if any.
   */
  async function secondSync(answer: ProbeAnswer): Promise<string[]> {
    let clock = 0;
    let probes = 0;
    const written: string[] = [];
    const controller = statusController(member1('True'), {
      clusterClient: {
        replaceStatus: (c: Cluster) => {
          written.push(c.status?.conditions?.find((x) => x.type === 'Ready')?.status ?? 'none');
          return Promise.resolve(c);
        },
      } as unknown as ResourceClient<Cluster>,
      member: {
        ...HEALTHY_MEMBER,
        probe: () => {
          probes++;
          if (probes === 1) return Promise.resolve({ readyz: { kind: 'status', status: 200 } });
          clock += 5_000; // the probe waited 5 s
          return Promise.resolve({ readyz: answer });
        },
      },
      thresholds: { successMs: 3_000, failureMs: 3_000 },
    });
    await syncOnce(controller, () => clock);
    written.length = 0;
    clock = 1_000;
    await syncOnce(controller, () => clock);
    return written;
  }

  it('counts a probe that got no answer from when it was sent: 5 s unanswered pass a 3 s threshold', async () => {
    expect(await secondSync({ kind: 'error', error: 'The operation was aborted due to timeout' })).toEqual([
      'False',
    ]);
  });

  it('counts an answer, even a failing one, from when it came', async () => {
    expect(await secondSync({ kind: 'status', status: 503 })).toEqual([]);
  });
});
