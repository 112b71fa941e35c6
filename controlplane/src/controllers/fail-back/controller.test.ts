import { describe, expect, it } from 'vitest';
import {
  formatMicroTime,
  formatTime,
  type Cluster,
  type ClusterResourceBinding,
  type ResourceBinding,
  type ResourceBindingSpec,
} from '@kf/api';
import {
  keyOf,
  KubeError,
  type EventRecorder,
  type KubeObject,
  type Lease,
  type ResourceClient,
  type WatchCache,
} from '@kf/kube';
import { createLogger, type ObjectEventHandler, type ObjectEventType, type Outcome } from '@kf/runtime';
import type { Binding, BindingStore } from '../../bindings.ts';
import type { FailBackResult } from '../../metrics.ts';
import type { FleetGuard } from '../fleet-guard/guard.ts';
import { memberSignals, MemberObservations } from '../cluster-health/observations.ts';
import { failBackController, failBackEventReasons, returnSpec } from './controller.ts';
import { formatPlacementRecord } from './record.ts';

// The clusters are first seen at 10:00:00; the window is 300 s, so it is over from 10:05:00.
const T0 = Date.parse('2026-11-20T10:00:00Z');
const s = (seconds: number): number => T0 + seconds * 1000;
const RECORD = 'failover.karmada-failover.io/placement-before-failover';
const SETTING = 'failover.karmada-failover.io/fail-back-after-seconds';
const KEY = 'default/web-deployment';
const GRACE_MS = 40_000;

function cluster(name: string, over: { ready?: 'True' | 'False'; readySince?: string } = {}): Cluster {
  return {
    metadata: { name, resourceVersion: '1' },
    spec: { syncMode: 'Pull' },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: over.ready ?? 'True',
          reason: 'ClusterReady',
          message: '',
          lastTransitionTime: over.readySince ?? '2026-11-20T09:00:00Z',
        },
      ],
    },
  };
}

function lease(name: string, renewedMs: number): Lease {
  return {
    metadata: { name, namespace: 'karmada-cluster' },
    spec: { renewTime: formatMicroTime(renewedMs) },
  };
}

/**
 * `web` fled from member1 (where it ran alone with 2 replicas) to member3, and asks for a fail-back
 * after 300 s.
 */
function binding(
  over: {
    name?: string;
    namespace?: string | null;
    annotations?: Readonly<Record<string, string>>;
    spec?: Partial<ResourceBindingSpec>;
    lastScheduledTime?: string;
    deleting?: boolean;
  } = {},
): ResourceBinding {
  const namespace = over.namespace === undefined ? 'default' : over.namespace;
  return {
    metadata: {
      name: over.name ?? 'web-deployment',
      ...(namespace === null ? {} : { namespace }),
      resourceVersion: '42',
      annotations: over.annotations ?? {
        [SETTING]: '300',
        [RECORD]: formatPlacementRecord([{ name: 'member1', replicas: 2 }], s(-60)),
      },
      ...(over.deleting === true ? { deletionTimestamp: formatTime(s(-1)) } : {}),
    },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
      clusters: [{ name: 'member3', replicas: 2 }],
      ...over.spec,
    },
    status: { lastScheduledTime: over.lastScheduledTime ?? formatTime(s(-30)) },
  };
}

/** An in-memory stand-in for a watch cache: `put` and `remove` notify as the real one does. */
class FakeCache<T extends KubeObject> {
  readonly #items = new Map<string, T>();
  readonly #handlers: ObjectEventHandler<T>[] = [];

  constructor(items: readonly T[] = []) {
    for (const item of items) this.#items.set(keyOf(item), item);
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): readonly T[] {
    return [...this.#items.values()];
  }

  onEvent(handler: ObjectEventHandler<T>): () => void {
    this.#handlers.push(handler);
    return () => undefined;
  }

  handlers(): number {
    return this.#handlers.length;
  }

  put(item: T): void {
    const old = this.#items.get(keyOf(item));
    this.#items.set(keyOf(item), item);
    this.#notify(old === undefined ? 'ADDED' : 'MODIFIED', item, old);
  }

  remove(key: string): void {
    const old = this.#items.get(key);
    if (old === undefined) return;
    this.#items.delete(key);
    this.#notify('DELETED', old);
  }

  asCache(): WatchCache<T> {
    return this as unknown as WatchCache<T>;
  }

  #notify(type: ObjectEventType, item: T, old?: T): void {
    for (const handler of this.#handlers) handler(type, item, old);
  }
}

interface World {
  readonly bindings?: readonly ResourceBinding[];
  readonly clusterBindings?: readonly ClusterResourceBinding[];
  /** Clusters seen (a look each) at T0; default member1 and member3. */
  readonly clusters?: readonly Cluster[];
  /** Clusters in the cache that no change brought to the controller's attention yet. */
  readonly unseenClusters?: readonly Cluster[];
  readonly leases?: readonly Lease[];
  readonly guardPaused?: boolean;
  readonly maxInFlight?: number;
  readonly writeError?: Error;
}

/** The controller over fakes, and everything it did to them. */
function setup(world: World = {}) {
  let clock = T0;
  const patches: unknown[][] = [];
  const events: string[] = [];
  const counted: FailBackResult[] = [];
  const guardChecks: number[] = [];
  const clusters = new FakeCache<Cluster>(world.unseenClusters);
  const leases = new FakeCache<Lease>(world.leases);
  const resourceBindings = new FakeCache<ResourceBinding>(world.bindings ?? [binding()]);
  const clusterResourceBindings = new FakeCache<ClusterResourceBinding>(world.clusterBindings);
  const client = (kind: string): ResourceClient<Binding> =>
    ({
      mergePatch: (key: string, patch: unknown, opts: { signal?: AbortSignal }) => {
        patches.push([kind, key, patch, opts.signal instanceof AbortSignal]);
        return world.writeError === undefined ? Promise.resolve({}) : Promise.reject(world.writeError);
      },
    }) as unknown as ResourceClient<Binding>;
  const bindings: BindingStore = {
    resourceBindings: resourceBindings.asCache(),
    clusterResourceBindings: clusterResourceBindings.asCache(),
    resourceBindingClient: client('ResourceBinding'),
    clusterResourceBindingClient: client('ClusterResourceBinding'),
  };
  // Looks at members happen at the test's clock, wall and monotonic alike.
  const observations = new MemberObservations({
    now: () => clock,
    monotonic: () => clock,
    sleep: () => Promise.resolve(),
  });
  const controller = failBackController({
    clusters: clusters.asCache(),
    leases: leases.asCache(),
    observations,
    bindings,
    guard: {
      check: (nowMs: number) => {
        guardChecks.push(nowMs);
        return { paused: world.guardPaused ?? false, reason: 'test' };
      },
    } as unknown as FleetGuard,
    events: {
      record: (obj: { kind?: string }, type: string, reason: string, message: string) =>
        events.push(`${obj.kind ?? ''} ${type} ${reason}: ${message}`),
    } as unknown as EventRecorder,
    metrics: { failBack: (result) => counted.push(result) },
    monitorGracePeriodMs: GRACE_MS,
    maxInFlight: world.maxInFlight ?? 10,
    now: () => clock,
  });
  /** A cluster change seen at `atMs`. */
  const seeCluster = (c: Cluster, atMs: number): void => {
    clock = atMs;
    clusters.put(c);
  };
  const removeCluster = (name: string, atMs: number): void => {
    clock = atMs;
    clusters.remove(name);
  };
  for (const c of world.clusters ?? [cluster('member1'), cluster('member3')]) seeCluster(c, T0);
  const reconcile = async (atMs: number, key = KEY): Promise<Outcome | Error> => {
    clock = atMs;
    return controller
      .reconcile(key, {
        log: createLogger({ component: 'test', level: 'silent' }),
        now: () => atMs,
        signal: new AbortController().signal,
      })
      .catch((err: unknown) => err as Error);
  };
  /**
   * A renewal of member `name`'s Lease seen at `atMs` and stamped `stampedMs` on the member's
   * clock, taken in as the health monitor does.
   */
  const renewLease = (name: string, atMs: number, stampedMs = atMs): void => {
    clock = atMs;
    const renewed = lease(name, stampedMs);
    leases.put(renewed);
    const seen = clusters.get(name);
    if (seen !== undefined) observations.look(name, memberSignals(seen, renewed));
  };
  return {
    controller,
    reconcile,
    renewLease,
    seeCluster,
    removeCluster,
    patches,
    events,
    counted,
    guardChecks,
  };
}

/** The merge patch that only drops the record. */
const dropPatch = { metadata: { annotations: { [RECORD]: null }, resourceVersion: '42' } };

describe('fail-back controller', () => {
  it('registers a handler on the cluster cache as it is made', () => {
    const clusters = new FakeCache<Cluster>();
    failBackController({
      clusters: clusters.asCache(),
      leases: new FakeCache<Lease>().asCache(),
      observations: new MemberObservations({
        now: () => 0,
        monotonic: () => 0,
        sleep: () => Promise.resolve(),
      }),
      bindings: {} as BindingStore,
      guard: {} as FleetGuard,
      events: {} as EventRecorder,
      metrics: { failBack: () => undefined },
      monitorGracePeriodMs: GRACE_MS,
      maxInFlight: 10,
      now: () => T0,
    });
    expect(clusters.handlers()).toBe(1);
  });

  it('leaves a binding without a record alone', async () => {
    const w = setup({ bindings: [binding({ annotations: { [SETTING]: '300' } })] });
    expect(await w.reconcile(s(1000))).toEqual({});
    expect([w.patches, w.events, w.counted, w.guardChecks]).toEqual([[], [], [], []]);
  });

  it('leaves a binding the cache does not have alone', async () => {
    const w = setup({ bindings: [] });
    expect(await w.reconcile(s(1000))).toEqual({});
    expect([w.patches, w.events, w.counted]).toEqual([[], [], []]);
  });

  it('drops a record it cannot read, with a Warning', async () => {
    const w = setup({ bindings: [binding({ annotations: { [SETTING]: '300', [RECORD]: '{oops' } })] });
    expect(await w.reconcile(s(1000))).toEqual({});
    expect(w.patches).toEqual([['ResourceBinding', KEY, dropPatch, true]]);
    expect(w.events).toEqual([
      'ResourceBinding Warning FailBackDropped: No fail-back (InvalidRecord): placement record unreadable: not JSON.',
    ]);
    expect(w.counted).toEqual(['InvalidRecord']);
  });

  it('drops an unreadable record even when fail-back is off', async () => {
    const w = setup({ bindings: [binding({ annotations: { [RECORD]: '[]' } })] });
    await w.reconcile(s(1000));
    expect(w.patches).toEqual([['ResourceBinding', KEY, dropPatch, true]]);
    expect(w.counted).toEqual(['InvalidRecord']);
  });

  it('drops the record when fail-back was turned off', async () => {
    const record = formatPlacementRecord([{ name: 'member1', replicas: 2 }], s(-60));
    const w = setup({ bindings: [binding({ annotations: { [RECORD]: record } })] });
    expect(await w.reconcile(s(1000))).toEqual({});
    expect(w.patches).toEqual([['ResourceBinding', KEY, dropPatch, true]]);
    expect(w.events).toEqual([
      'ResourceBinding Normal FailBackDropped: No fail-back (Disabled): fail-back is off for this binding.',
    ]);
    expect(w.counted).toEqual(['Disabled']);
  });

  it('keeps the record and warns when the setting is invalid', async () => {
    const record = formatPlacementRecord([{ name: 'member1', replicas: 2 }], s(-60));
    const w = setup({ bindings: [binding({ annotations: { [SETTING]: '5m', [RECORD]: record } })] });
    expect(await w.reconcile(s(1000))).toEqual({});
    expect(w.patches).toEqual([]);
    expect(w.events).toEqual([
      `ResourceBinding Warning ${failBackEventReasons.invalidSetting}: ${SETTING} must be a whole number of seconds, got "5m"`,
    ]);
    expect(w.counted).toEqual([]);
  });

  it('waits, writing nothing, until the window is over', async () => {
    const w = setup();
    expect(await w.reconcile(s(100))).toEqual({ recheckInMs: 200_000 });
    expect([w.patches, w.events, w.counted]).toEqual([[], [], []]);
    expect(w.guardChecks).toEqual([s(100)]);
  });

  it('counts a cluster first seen by the reconcile itself from then', async () => {
    const w = setup({ clusters: [], unseenClusters: [cluster('member1'), cluster('member3')] });
    expect(await w.reconcile(s(50))).toEqual({ recheckInMs: 300_000 });
    expect(await w.reconcile(s(349))).toEqual({ recheckInMs: 1_000 });
    expect(w.patches).toEqual([]);
    expect(await w.reconcile(s(350))).toEqual({});
    expect(w.counted).toEqual(['Started']);
  });

  it('sends the binding back once the window is over, in one guarded write', async () => {
    const w = setup();
    expect(await w.reconcile(s(301))).toEqual({});
    expect(w.patches).toEqual([
      [
        'ResourceBinding',
        KEY,
        {
          spec: {
            clusters: [],
            gracefulEvictionTasks: [
              {
                fromCluster: 'member3',
                replicas: 2,
                purgeMode: 'Gracefully',
                producer: 'fail-back-controller',
                reason: 'FailBack',
                message: 'Going back to member1, where it ran before a cluster failover.',
              },
            ],
            rescheduleTriggeredAt: '2026-11-20T10:05:01Z',
          },
          metadata: { annotations: { [RECORD]: null }, resourceVersion: '42' },
        },
        true,
      ],
    ]);
    expect(w.events).toEqual([
      'ResourceBinding Normal FailBackStarted: Going back to member1, steady for the fail-back window; the copies on member3 stay until it is healthy there.',
    ]);
    expect(w.counted).toEqual(['Started']);
  });

  it('keeps the cluster a Divided workload stayed on, leaving nothing behind', async () => {
    const record = formatPlacementRecord(
      [
        { name: 'member1', replicas: 1 },
        { name: 'member2', replicas: 1 },
      ],
      s(-60),
    );
    const w = setup({
      bindings: [
        binding({
          annotations: { [SETTING]: '300', [RECORD]: record },
          spec: { clusters: [{ name: 'member2', replicas: 2 }] },
        }),
      ],
      clusters: [cluster('member1'), cluster('member2')],
    });
    expect(await w.reconcile(s(301))).toEqual({});
    expect(w.patches).toEqual([
      [
        'ResourceBinding',
        KEY,
        {
          spec: {
            clusters: [{ name: 'member2', replicas: 2 }],
            gracefulEvictionTasks: [],
            rescheduleTriggeredAt: '2026-11-20T10:05:01Z',
          },
          metadata: { annotations: { [RECORD]: null }, resourceVersion: '42' },
        },
        true,
      ],
    ]);
    expect(w.events).toEqual([
      'ResourceBinding Normal FailBackStarted: Going back to member1, steady for the fail-back window.',
    ]);
    expect(w.counted).toEqual(['Started']);
  });

  it('writes a ClusterResourceBinding through its own client', async () => {
    const crb = binding({ name: 'web-clusterrole', namespace: null });
    const w = setup({ bindings: [], clusterBindings: [crb] });
    expect(await w.reconcile(s(301), 'web-clusterrole')).toEqual({});
    expect(w.patches.map((p) => p.slice(0, 2))).toEqual([['ClusterResourceBinding', 'web-clusterrole']]);
    expect(w.events.map((e) => e.split(':')[0])).toEqual(['ClusterResourceBinding Normal FailBackStarted']);
  });

  it('drops the record when a recorded cluster no longer exists', async () => {
    const w = setup({ clusters: [cluster('member3')] });
    expect(await w.reconcile(s(301))).toEqual({});
    expect(w.patches).toEqual([['ResourceBinding', KEY, dropPatch, true]]);
    expect(w.events).toEqual([
      'ResourceBinding Normal FailBackDropped: No fail-back (ClusterGone): cluster(s) member1 no longer exist.',
    ]);
    expect(w.counted).toEqual(['ClusterGone']);
  });

  it('drops the record when the binding is back already', async () => {
    const w = setup({ bindings: [binding({ spec: { clusters: [{ name: 'member1', replicas: 2 }] } })] });
    expect(await w.reconcile(s(1))).toEqual({});
    expect(w.patches).toEqual([['ResourceBinding', KEY, dropPatch, true]]);
    expect(w.events).toEqual([
      'ResourceBinding Normal FailBackDropped: No fail-back (AlreadyBack): placed on member1 again.',
    ]);
    expect(w.counted).toEqual(['AlreadyBack']);
  });

  it('does nothing to a binding being deleted', async () => {
    const w = setup({ bindings: [binding({ deleting: true })], clusters: [] });
    expect(await w.reconcile(s(301))).toEqual({});
    expect([w.patches, w.events, w.counted]).toEqual([[], [], []]);
  });

  it('waits without a recheck while an eviction of the binding is running', async () => {
    const w = setup({
      bindings: [
        binding({
          spec: {
            gracefulEvictionTasks: [
              { fromCluster: 'member1', reason: 'TaintUntolerated', producer: 'TaintManager' },
            ],
          },
        }),
      ],
    });
    expect(await w.reconcile(s(301))).toEqual({});
    expect([w.patches, w.events, w.counted]).toEqual([[], [], []]);
  });

  it('waits, looking again after 30 s, while a recorded cluster is not Ready, and restarts its window', async () => {
    const w = setup();
    w.seeCluster(cluster('member1', { ready: 'False', readySince: formatTime(s(200)) }), s(200));
    expect(await w.reconcile(s(301))).toEqual({ recheckInMs: 30_000 });
    expect(w.patches).toEqual([]);
    w.seeCluster(cluster('member1', { readySince: formatTime(s(250)) }), s(260));
    // Steady again from the first steady look, at 260 s: the window ends at 560 s.
    expect(await w.reconcile(s(301))).toEqual({ recheckInMs: 259_000 });
  });

  it('restarts the window of a cluster that flapped between two looks, from the look that saw it', async () => {
    const w = setup();
    // Ready went False and back to True between the looks at 0 s and 130 s; the member stamped the
    // transition 120 s on its own clock, which may be off: the window counts from 130 s.
    const flapped = cluster('member1', { readySince: formatTime(s(120)) });
    w.seeCluster(flapped, s(130));
    expect(await w.reconcile(s(301))).toEqual({ recheckInMs: 129_000 });
  });

  it('is not fooled by a member clock running ahead: a transition stamped in the future', async () => {
    const w = setup();
    // Stamped 10 minutes ahead of the control plane's clock, seen at 130 s.
    w.seeCluster(cluster('member1', { readySince: formatTime(s(730)) }), s(130));
    expect(await w.reconcile(s(301))).toEqual({ recheckInMs: 129_000 });
  });

  it("waits while no renewal of a recorded cluster's heartbeat Lease was seen for the grace period", async () => {
    const w = setup({ leases: [lease('member1', s(0))] });
    w.renewLease('member1', s(301) - GRACE_MS - 1_000);
    // Looked at again in 30 s: a Lease renewed again may bring no change of the Cluster.
    expect(await w.reconcile(s(301))).toEqual({ recheckInMs: 30_000 });
    expect(w.patches).toEqual([]);
  });

  it('goes back when a renewal of the heartbeat Lease was seen within the grace period', async () => {
    const w = setup({ leases: [lease('member1', s(0))] });
    w.renewLease('member1', s(300));
    expect(await w.reconcile(s(301))).toEqual({});
    expect(w.counted).toEqual(['Started']);
  });

  it('goes back when the member clock runs 10 minutes behind, however old its renewals look', async () => {
    const w = setup({ leases: [lease('member1', s(0))] });
    for (let t = 270; t <= 300; t += 10) w.renewLease('member1', s(t), s(t) - 600_000);
    expect(await w.reconcile(s(301))).toEqual({});
    expect(w.counted).toEqual(['Started']);
  });

  it('counts a deleted and re-added cluster from when it came back', async () => {
    const w = setup();
    w.removeCluster('member1', s(100));
    w.seeCluster(cluster('member1'), s(200));
    expect(await w.reconcile(s(301))).toEqual({ recheckInMs: 199_000 });
  });

  it('waits while the fleet guard holds evictions back', async () => {
    const w = setup({ guardPaused: true });
    expect(await w.reconcile(s(301))).toEqual({ recheckInMs: 2_000 });
    expect(w.guardChecks).toEqual([s(301)]);
    expect([w.patches, w.events, w.counted]).toEqual([[], [], []]);
  });

  it('waits while as many other fail-backs as allowed are under way', async () => {
    const other = (name: string, spec: Partial<ResourceBindingSpec>): ResourceBinding =>
      binding({ name, annotations: {}, spec });
    const w = setup({
      maxInFlight: 2,
      bindings: [
        binding(),
        other('a', {
          gracefulEvictionTasks: [
            { fromCluster: 'member3', reason: 'FailBack', producer: 'fail-back-controller' },
          ],
        }),
        other('b', { rescheduleTriggeredAt: formatTime(s(-10)) }),
        other('c', {
          gracefulEvictionTasks: [
            { fromCluster: 'member3', reason: 'TaintUntolerated', producer: 'TaintManager' },
          ],
        }),
      ],
    });
    expect(await w.reconcile(s(301))).toEqual({ recheckInMs: 2_000 });
    expect(w.patches).toEqual([]);
  });

  it('counts fail-backs of ClusterResourceBindings too, but not its own', async () => {
    const crb = binding({
      name: 'crb',
      namespace: null,
      annotations: {},
      spec: { rescheduleTriggeredAt: formatTime(s(-10)) },
    });
    const self = binding({
      spec: { clusters: [{ name: 'member3', replicas: 2 }], rescheduleTriggeredAt: formatTime(s(-10)) },
    });
    const w = setup({ maxInFlight: 2, bindings: [self], clusterBindings: [crb] });
    expect(await w.reconcile(s(301))).toEqual({});
    expect(w.counted).toEqual(['Started']);
    const full = setup({ maxInFlight: 1, bindings: [self], clusterBindings: [crb] });
    expect(await full.reconcile(s(301))).toEqual({ recheckInMs: 2_000 });
  });

  it('waits for the next second when the scheduler placed the binding within this one', async () => {
    const w = setup({ bindings: [binding({ lastScheduledTime: formatTime(s(301)) })] });
    expect(await w.reconcile(s(301.25))).toEqual({ recheckInMs: 750 });
    expect(w.patches).toEqual([]);
  });

  it('fails without a Warning when the write lost a race, to be retried', async () => {
    const conflict = new KubeError('Conflict', 'the object has been modified');
    const w = setup({ writeError: conflict });
    expect(await w.reconcile(s(301))).toBe(conflict);
    expect(w.patches).toHaveLength(1);
    expect([w.events, w.counted]).toEqual([[], []]);
  });

  it('fails with a Warning when the write failed otherwise', async () => {
    const forbidden = new KubeError('Forbidden', 'no');
    const w = setup({ writeError: forbidden });
    expect(await w.reconcile(s(301))).toBe(forbidden);
    expect(w.events).toEqual(['ResourceBinding Warning FailBackFailed: Fail-back write failed.']);
    expect(w.counted).toEqual([]);
    const dropping = setup({ writeError: forbidden, clusters: [] });
    expect(await dropping.reconcile(s(301))).toBe(forbidden);
    expect(dropping.events).toEqual(['ResourceBinding Warning FailBackFailed: Fail-back write failed.']);
    expect(dropping.counted).toEqual([]);
  });

  it('queues bindings with a record, from their own changes and from any cluster change', () => {
    const w = setup({
      bindings: [binding(), binding({ name: 'plain', annotations: { [SETTING]: '300' } })],
      clusterBindings: [binding({ name: 'crb', namespace: null })],
    });
    const [rbs, crbs, clusters] = w.controller.sources;
    expect(rbs?.keys()).toEqual([KEY]);
    expect(crbs?.keys()).toEqual(['crb']);
    // The bindings' sources name them for the fill and the resync; a cluster names none.
    expect(clusters?.keys()).toEqual([]);
    const queued: string[] = [];
    clusters?.onChange((key) => queued.push(key));
    w.seeCluster(cluster('member9'), s(1));
    expect(queued).toEqual([KEY, 'crb']);
  });
});

describe('returnSpec', () => {
  const spec = (over: Partial<ResourceBindingSpec> = {}): ResourceBindingSpec => ({
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
    clusters: [
      { name: 'member2', replicas: 2 },
      { name: 'member3', replicas: 1 },
    ],
    ...over,
  });
  const now = s(12.9);

  it('only asks for a fresh placement when no cluster is left', () => {
    expect(returnSpec(spec(), [], ['member1'], now)).toEqual({
      clusters: [
        { name: 'member2', replicas: 2 },
        { name: 'member3', replicas: 1 },
      ],
      gracefulEvictionTasks: [],
      rescheduleTriggeredAt: '2026-11-20T10:00:12Z',
    });
  });

  it('takes each cluster left out of the placement with a graceful eviction task', () => {
    expect(returnSpec(spec(), ['member2', 'member3'], ['member1', 'member4'], now)).toEqual({
      clusters: [],
      gracefulEvictionTasks: [
        {
          fromCluster: 'member2',
          replicas: 2,
          purgeMode: 'Gracefully',
          producer: 'fail-back-controller',
          reason: 'FailBack',
          message: 'Going back to member1, member4, where it ran before a cluster failover.',
        },
        {
          fromCluster: 'member3',
          replicas: 1,
          purgeMode: 'Gracefully',
          producer: 'fail-back-controller',
          reason: 'FailBack',
          message: 'Going back to member1, member4, where it ran before a cluster failover.',
        },
      ],
      rescheduleTriggeredAt: '2026-11-20T10:00:12Z',
    });
  });

  it('leaves replicas out of the task of a Duplicated placement', () => {
    const out = returnSpec(spec({ clusters: [{ name: 'member3' }] }), ['member3'], ['member1'], now);
    expect(out.clusters).toEqual([]);
    expect(out.gracefulEvictionTasks).toEqual([
      {
        fromCluster: 'member3',
        purgeMode: 'Gracefully',
        producer: 'fail-back-controller',
        reason: 'FailBack',
        message: 'Going back to member1, where it ran before a cluster failover.',
      },
    ]);
  });

  it('keeps the tasks there are and adds none for a cluster that has one', () => {
    const running = { fromCluster: 'member3', reason: 'TaintUntolerated', producer: 'TaintManager' };
    const out = returnSpec(spec({ gracefulEvictionTasks: [running] }), ['member3'], ['member1'], now);
    expect(out.clusters).toEqual([{ name: 'member2', replicas: 2 }]);
    expect(out.gracefulEvictionTasks).toEqual([running]);
  });

  it('changes nothing for a cluster not placed, and copes with a spec without clusters', () => {
    expect(returnSpec(spec(), ['member9'], ['member1'], now).clusters).toHaveLength(2);
    expect(returnSpec({ resource: spec().resource }, ['member9'], ['member1'], now)).toEqual({
      clusters: [],
      gracefulEvictionTasks: [],
      rescheduleTriggeredAt: '2026-11-20T10:00:12Z',
    });
  });

  it('does not change the spec it was given', () => {
    const given = spec();
    const copy = structuredClone(given);
    returnSpec(given, ['member2'], ['member1'], now);
    expect(given).toEqual(copy);
  });
});
