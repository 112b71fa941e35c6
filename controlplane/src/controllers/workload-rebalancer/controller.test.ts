import { describe, expect, it } from 'vitest';
import type { ResourceBinding, WorkloadRebalancer } from '@kf/api';
import { KubeError, type EventRecorder, type ResourceClient, type WatchCache } from '@kf/kube';
import { createLogger, type Outcome } from '@kf/runtime';
import type { BindingStore } from '../../bindings.ts';
import { workloadRebalancerController } from './controller.ts';

const CREATED = '2026-11-20T10:00:00Z';
const NOW = Date.parse('2026-11-20T10:00:03.400Z');

const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' };
const ghost = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'ghost' };

function rebalancer(extra: Partial<WorkloadRebalancer> = {}): WorkloadRebalancer {
  return {
    metadata: { name: 'demo', uid: 'u-1', generation: 1, resourceVersion: '10', creationTimestamp: CREATED },
    spec: { workloads: [web, ghost] },
    ...extra,
  };
}

const webBinding: ResourceBinding = {
  metadata: { name: 'web-deployment', namespace: 'default', resourceVersion: '42' },
  spec: { resource: web },
};

interface World {
  readonly cached?: readonly ResourceBinding[];
  readonly live?: readonly ResourceBinding[];
  readonly bindingWrite?: Error;
}

/** Reconciles `demo` against fakes; returns what it did, in order. */
async function reconcile(
  object: WorkloadRebalancer,
  world: World = {},
): Promise<{ outcome: Outcome | Error; calls: unknown[][]; events: string[]; counted: string[] }> {
  const calls: unknown[][] = [];
  const events: string[] = [];
  const counted: string[] = [];
  const keyOf = (b: ResourceBinding): string => `${b.metadata.namespace ?? ''}/${b.metadata.name ?? ''}`;
  const find = (list: readonly ResourceBinding[] | undefined, key: string): ResourceBinding | undefined =>
    list?.find((b) => keyOf(b) === key);
  const bindingClient = {
    find: (key: string) => Promise.resolve(find(world.live, key)),
    mergePatch: (key: string, patch: unknown) => {
      calls.push(['patch binding', key, patch]);
      return world.bindingWrite === undefined ? Promise.resolve({}) : Promise.reject(world.bindingWrite);
    },
  } as unknown as ResourceClient<ResourceBinding>;
  const bindings = {
    resourceBindings: { get: (key: string) => find(world.cached, key) },
    clusterResourceBindings: { get: () => undefined },
    resourceBindingClient: bindingClient,
    clusterResourceBindingClient: bindingClient,
  } as unknown as BindingStore;
  const controller = workloadRebalancerController({
    rebalancers: { get: () => object } as unknown as WatchCache<WorkloadRebalancer>,
    rebalancerClient: {
      patchStatus: (name: string, patch: unknown) => {
        calls.push(['patch status', name, patch]);
        return Promise.resolve({ ...object, metadata: { ...object.metadata, resourceVersion: '11' } });
      },
      delete: (name: string, opts: { preconditions?: unknown }) => {
        calls.push(['delete', name, opts.preconditions]);
        return Promise.resolve();
      },
    } as unknown as ResourceClient<WorkloadRebalancer>,
    bindings,
    events: {
      record: (obj: { kind?: string }, type: string, reason: string, message: string) =>
        events.push(`${obj.kind ?? ''} ${type} ${reason}: ${message}`),
    } as unknown as EventRecorder,
    metrics: { workloadRebalanced: (result) => counted.push(result) },
  });
  const ctx = {
    log: createLogger({ component: 'test', level: 'silent' }),
    now: () => NOW,
    signal: new AbortController().signal,
  };
  const outcome = await controller.reconcile('demo', ctx).catch((err: unknown) => err as Error);
  return { outcome, calls, events, counted };
}

describe('workload-rebalancer controller', () => {
  it('asks the binding for a fresh placement, marks a workload without binding Failed, and records it', async () => {
    const { outcome, calls, events, counted } = await reconcile(rebalancer(), { cached: [webBinding] });
    expect(calls).toEqual([
      [
        'patch binding',
        'default/web-deployment',
        { metadata: { resourceVersion: '42' }, spec: { rescheduleTriggeredAt: CREATED } },
      ],
      [
        'patch status',
        'demo',
        {
          metadata: { resourceVersion: '10' },
          status: {
            observedWorkloads: [
              { workload: ghost, result: 'Failed', reason: 'ReferencedBindingNotFound' },
              { workload: web, result: 'Successful' },
            ],
            observedGeneration: 1,
            finishTime: '2026-11-20T10:00:03Z',
          },
        },
      ],
    ]);
    expect(events).toEqual([
      'ResourceBinding Normal RescheduleTriggered: WorkloadRebalancer demo asked for a fresh placement.',
      'WorkloadRebalancer Warning WorkloadRebalanceFailed: Deployment default/ghost has no binding default/ghost-deployment (ReferencedBindingNotFound).',
      'WorkloadRebalancer Normal WorkloadRebalanced: Deployment default/web: binding default/web-deployment asked for a fresh placement.',
    ]);
    expect(counted).toEqual(['Failed', 'Successful']);
    expect(outcome).toEqual({});
  });

  it('looks a binding the cache lacks up on the API server before calling it missing', async () => {
    const { calls } = await reconcile(rebalancer({ spec: { workloads: [web] } }), { live: [webBinding] });
    expect(calls[0]?.[0]).toBe('patch binding');
    expect(calls[1]?.[2]).toMatchObject({
      status: { observedWorkloads: [{ workload: web, result: 'Successful' }] },
    });
  });

  it('writes nothing to a binding already asked since the rebalancer was created', async () => {
    const asked = {
      ...webBinding,
      spec: { ...webBinding.spec, rescheduleTriggeredAt: '2026-11-20T10:00:01Z' },
    };
    const { calls, events } = await reconcile(rebalancer({ spec: { workloads: [web] } }), {
      cached: [asked],
    });
    expect(calls.map((c) => c[0])).toEqual(['patch status']);
    expect(events).toEqual([
      'WorkloadRebalancer Normal WorkloadRebalanced: Deployment default/web: binding default/web-deployment asked for a fresh placement.',
    ]);
  });

  it('marks the workload Failed when its binding goes away before the write', async () => {
    const notFound = new KubeError('NotFound', 'resourcebindings "web-deployment" not found');
    const { calls } = await reconcile(rebalancer({ spec: { workloads: [web] } }), {
      cached: [webBinding],
      bindingWrite: notFound,
    });
    expect(calls[1]?.[2]).toMatchObject({
      status: {
        observedWorkloads: [{ workload: web, result: 'Failed', reason: 'ReferencedBindingNotFound' }],
      },
    });
  });

  it('records what was done when a binding write fails, then fails to be retried', async () => {
    const conflict = new KubeError('Conflict', 'the object has been modified');
    const { outcome, calls, events, counted } = await reconcile(rebalancer(), {
      cached: [webBinding],
      bindingWrite: conflict,
    });
    expect(outcome).toBe(conflict);
    expect(calls[1]).toEqual([
      'patch status',
      'demo',
      {
        metadata: { resourceVersion: '10' },
        status: {
          observedWorkloads: [
            { workload: ghost, result: 'Failed', reason: 'ReferencedBindingNotFound' },
            { workload: web },
          ],
          observedGeneration: 1,
          finishTime: null,
        },
      },
    ]);
    expect(events.map((e) => e.split(':')[0])).toEqual([
      'WorkloadRebalancer Warning WorkloadRebalanceFailed',
    ]);
    expect(counted).toEqual(['Failed']);
  });

  it('does nothing more once every workload has its result', async () => {
    const finished = rebalancer({
      status: {
        observedWorkloads: [
          { workload: ghost, result: 'Failed', reason: 'ReferencedBindingNotFound' },
          { workload: web, result: 'Successful' },
        ],
        observedGeneration: 1,
        finishTime: '2026-11-20T10:00:01Z',
      },
    });
    expect(await reconcile(finished, { cached: [webBinding] })).toEqual({
      outcome: {},
      calls: [],
      events: [],
      counted: [],
    });
  });

  it('deletes a rebalancer with TTL 0 as soon as it finished, guarded by uid and the status written', async () => {
    const { calls, outcome } = await reconcile(
      rebalancer({ spec: { workloads: [web], ttlSecondsAfterFinished: 0 } }),
      {
        cached: [webBinding],
      },
    );
    expect(calls.map((c) => c[0])).toEqual(['patch binding', 'patch status', 'delete']);
    expect(calls[2]).toEqual(['delete', 'demo', { uid: 'u-1', resourceVersion: '11' }]);
    expect(outcome).toEqual({});
  });

  it('rechecks a finished rebalancer when its TTL runs out, then deletes it', async () => {
    const finished = rebalancer({
      spec: { workloads: [web], ttlSecondsAfterFinished: 5 },
      status: {
        observedWorkloads: [{ workload: web, result: 'Successful' }],
        observedGeneration: 1,
        finishTime: '2026-11-20T10:00:01Z',
      },
    });
    expect(await reconcile(finished)).toMatchObject({ outcome: { recheckInMs: 2_600 }, calls: [] });
    const expired = { ...finished, spec: { ...finished.spec, ttlSecondsAfterFinished: 2 } };
    expect((await reconcile(expired)).calls).toEqual([
      ['delete', 'demo', { uid: 'u-1', resourceVersion: '10' }],
    ]);
  });

  it('leaves a rebalancer being deleted alone', async () => {
    const deleting = rebalancer();
    const gone = { ...deleting, metadata: { ...deleting.metadata, deletionTimestamp: CREATED } };
    expect((await reconcile(gone, { cached: [webBinding] })).calls).toEqual([]);
  });
});
