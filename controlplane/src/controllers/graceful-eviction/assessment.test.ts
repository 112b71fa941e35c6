import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatTime,
  type AggregatedStatusItem,
  type GracefulEvictionTask,
  type PurgeMode,
  type ResourceHealth,
  type TargetCluster,
} from '@kf/api';
import {
  DEFAULT_GRACEFUL_EVICTION_TIMEOUT_MS,
  judgeEvictionTask,
  planEvictionTasks,
  type BindingProgress,
  type TaskVerdict,
} from './assessment.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const s = (seconds: number): number => T0 + seconds * 1000;
const TIMEOUT = DEFAULT_GRACEFUL_EVICTION_TIMEOUT_MS;

/** A task created at 10:00:00; pass `creationTimestamp: undefined` for one never seen before. */
const task = (
  over: { [K in keyof GracefulEvictionTask]?: GracefulEvictionTask[K] | undefined } = {},
): GracefulEvictionTask => {
  const all = {
    fromCluster: 'm1',
    purgeMode: 'Gracefully',
    reason: 'TaintUntolerated',
    producer: 'TaintManager',
    creationTimestamp: formatTime(s(0)),
    ...over,
  };
  return Object.fromEntries(
    Object.entries(all).filter(([, v]) => v !== undefined),
  ) as unknown as GracefulEvictionTask;
};
const healthy = (clusterName: string): AggregatedStatusItem => ({ clusterName, health: 'Healthy' });
const unhealthy = (clusterName: string): AggregatedStatusItem => ({ clusterName, health: 'Unhealthy' });

const binding = (
  over: {
    clusters?: TargetCluster[];
    items?: AggregatedStatusItem[];
    observed?: number;
    generation?: number;
  } = {},
): BindingProgress => ({
  generation: over.generation ?? 7,
  spec: { clusters: over.clusters ?? [{ name: 'm2' }, { name: 'm3' }] },
  status: { schedulerObservedGeneration: over.observed ?? 7, aggregatedStatus: over.items ?? [] },
});
const allHealthy = binding({ items: [healthy('m1'), healthy('m2'), healthy('m3')] });
/** m2 runs a healthy copy, m3 not yet: a replacement exists, the task is not done by health. */
const someHealthy = binding({ items: [healthy('m2'), unhealthy('m3')] });

describe('judgeEvictionTask', () => {
  it.each<[string, GracefulEvictionTask, BindingProgress, number, TaskVerdict]>([
    [
      'first sight: stamped now, kept, recheck at the default timeout',
      task({ creationTimestamp: undefined }),
      allHealthy,
      0,
      { kind: 'stamp', task: task(), recheckInMs: TIMEOUT },
    ],
    [
      'first sight with its own grace period: recheck then',
      task({ creationTimestamp: undefined, gracePeriodSeconds: 30 }),
      binding(),
      0,
      { kind: 'stamp', task: task({ gracePeriodSeconds: 30 }), recheckInMs: 30_000 },
    ],
    [
      'first sight is not judged further, even when healthy everywhere',
      task({ creationTimestamp: undefined, suppressDeletion: false }),
      allHealthy,
      0,
      { kind: 'stamp', task: task({ suppressDeletion: false }) },
    ],
    [
      'the stamp has second precision: the recheck counts from it',
      task({ creationTimestamp: undefined }),
      binding(),
      0.4,
      { kind: 'stamp', task: task(), recheckInMs: TIMEOUT - 400 },
    ],
    [
      'suppressDeletion true keeps it past any timeout',
      task({ suppressDeletion: true }),
      allHealthy,
      3600,
      { kind: 'keep' },
    ],
    [
      'suppressDeletion false removes it at once',
      task({ suppressDeletion: false }),
      binding(),
      1,
      { kind: 'remove', reason: 'DeletionConfirmed' },
    ],
    [
      'purgeMode Never keeps it past the timeout and healthy placements',
      task({ purgeMode: 'Never' }),
      allHealthy,
      3600,
      { kind: 'keep' },
    ],
    [
      'purgeMode Never with suppressDeletion false is removed',
      task({ purgeMode: 'Never', suppressDeletion: false }),
      binding(),
      1,
      { kind: 'remove', reason: 'DeletionConfirmed' },
    ],
    [
      'timed out at exactly 10 minutes, with a healthy copy elsewhere',
      task(),
      someHealthy,
      600,
      { kind: 'remove', reason: 'TimedOut' },
    ],
    ['not timed out a millisecond before', task(), someHealthy, 599.999, { kind: 'keep', recheckInMs: 1 }],
    [
      'its own grace period wins over the default',
      task({ gracePeriodSeconds: 60 }),
      someHealthy,
      60,
      { kind: 'remove', reason: 'TimedOut' },
    ],
    [
      'a longer own grace period keeps it past the default',
      task({ gracePeriodSeconds: 1200 }),
      binding(),
      700,
      { kind: 'keep', recheckInMs: 500_000 },
    ],
    [
      'healthy on every placed cluster: removed',
      task(),
      allHealthy,
      10,
      { kind: 'remove', reason: 'HealthyElsewhere' },
    ],
    [
      'healthy on only some placed clusters: kept',
      task(),
      binding({ items: [healthy('m2'), unhealthy('m3')] }),
      10,
      { kind: 'keep', recheckInMs: 590_000 },
    ],
    [
      'a placed cluster without status: kept',
      task(),
      binding({ items: [healthy('m2')] }),
      10,
      { kind: 'keep', recheckInMs: 590_000 },
    ],
    [
      'the evicted cluster itself does not count',
      task(),
      binding({ items: [unhealthy('m1'), healthy('m2'), healthy('m3')] }),
      10,
      { kind: 'remove', reason: 'HealthyElsewhere' },
    ],
    [
      'healthy but the scheduler has not observed the latest generation: kept',
      task(),
      binding({ items: [healthy('m2'), healthy('m3')], observed: 6 }),
      10,
      { kind: 'keep', recheckInMs: 590_000 },
    ],
    [
      'differs from upstream: placed nowhere is not healthy elsewhere',
      task(),
      binding({ clusters: [] }),
      10,
      { kind: 'keep', recheckInMs: 590_000 },
    ],
    [
      'an unparsable creationTimestamp is stamped again',
      task({ creationTimestamp: 'yesterday' }),
      binding(),
      0,
      { kind: 'stamp', task: task(), recheckInMs: TIMEOUT },
    ],
  ])('%s', (...[, t, b, nowSeconds, expected]) => {
    expect(judgeEvictionTask(t, b, s(nowSeconds), TIMEOUT)).toEqual(expected);
  });
});

describe('the last copy and a cluster placed again', () => {
  const DEADLINE = s(600);
  const kept = { kind: 'keepLastCopy', deadlineMs: DEADLINE } as const;
  const timedOut = { kind: 'remove', reason: 'TimedOut' } as const;
  const placedAgain = { kind: 'remove', reason: 'PlacedAgain' } as const;
  const waits = (nowSeconds: number): TaskVerdict => ({
    kind: 'keep',
    recheckInMs: (600 - nowSeconds) * 1000,
  });
  /** m1's copy is still there (its Work is reported on), unreachable: health Unknown. */
  const stale: AggregatedStatusItem = { clusterName: 'm1', health: 'Unknown' };
  const nowhere = binding({ clusters: [], items: [stale] });
  const unhealthyElsewhere = binding({ clusters: [{ name: 'm2' }], items: [stale, unhealthy('m2')] });
  const unknownElsewhere = binding({ clusters: [{ name: 'm2' }], items: [stale] });
  const healthyElsewhere = binding({
    clusters: [{ name: 'm2' }],
    items: [stale, healthy('m2')],
    observed: 6,
  });
  /** No Work left on m1 (deleted with its cluster): nothing to keep. */
  const noWorkLeft = binding({ clusters: [], items: [] });
  /** Its own stale status still says Healthy: the evicted cluster is no replacement for itself. */
  const onlyItselfHealthy = binding({ clusters: [{ name: 'm2' }], items: [healthy('m1'), unhealthy('m2')] });
  const placedBack = binding({ clusters: [{ name: 'm1' }], items: [healthy('m1')] });
  const placedBackBeside = binding({
    clusters: [{ name: 'm1' }, { name: 'm2' }],
    items: [healthy('m2')],
    observed: 6,
  });

  it.each<[string, Parameters<typeof task>[0], BindingProgress, number, TaskVerdict]>([
    // Timeout, Gracefully: removed only where a healthy copy runs elsewhere.
    ['Gracefully, before the timeout, nowhere placed', {}, nowhere, 599, waits(599)],
    ['Gracefully, past the timeout, nowhere placed: kept', {}, nowhere, 600, kept],
    ['Gracefully, long past the timeout, nowhere placed: still kept', {}, nowhere, 86_400, kept],
    ['Gracefully, past the timeout, placed where it is Unhealthy: kept', {}, unhealthyElsewhere, 600, kept],
    ['Gracefully, past the timeout, placed where health is unknown: kept', {}, unknownElsewhere, 600, kept],
    ['Gracefully, past the timeout, only its own copy Healthy: kept', {}, onlyItselfHealthy, 600, kept],
    ['Gracefully, past the timeout, no Work left on its cluster: removed', {}, noWorkLeft, 600, timedOut],
    ['Gracefully, past the timeout, a healthy copy elsewhere: removed', {}, healthyElsewhere, 600, timedOut],
    [
      'Gracefully, own grace period passed, nowhere placed: kept',
      { gracePeriodSeconds: 30 },
      nowhere,
      30,
      {
        kind: 'keepLastCopy',
        deadlineMs: s(30),
      },
    ],
    // Directly: the copy went at once; the task ends as upstream's.
    [
      'Directly, past the timeout, nowhere placed: removed',
      { purgeMode: 'Directly' },
      nowhere,
      600,
      timedOut,
    ],
    ['Directly, before the timeout, nowhere placed', { purgeMode: 'Directly' }, nowhere, 10, waits(10)],
    [
      'Directly, placed on its cluster again: not ended by that',
      { purgeMode: 'Directly' },
      binding({ clusters: [{ name: 'm1' }], items: [] }),
      10,
      waits(10),
    ],
    // Never and suppressDeletion: a person decides; a placement on the cluster ends them too.
    [
      'Never, past the timeout, nowhere placed: kept for a person',
      { purgeMode: 'Never' },
      nowhere,
      600,
      {
        kind: 'keep',
      },
    ],
    [
      'suppressDeletion true, past the timeout: kept for a person',
      { suppressDeletion: true },
      nowhere,
      600,
      {
        kind: 'keep',
      },
    ],
    [
      'suppressDeletion false, nowhere placed: removed at once',
      { suppressDeletion: false },
      nowhere,
      10,
      {
        kind: 'remove',
        reason: 'DeletionConfirmed',
      },
    ],
    [
      'suppressDeletion false, placed again: confirmed deletion wins',
      { suppressDeletion: false },
      placedBack,
      10,
      {
        kind: 'remove',
        reason: 'DeletionConfirmed',
      },
    ],
    // Placed on its cluster again: the copy there is the placement now.
    ['Gracefully, placed again before the timeout', {}, placedBack, 10, placedAgain],
    ['Gracefully, placed again past the timeout', {}, placedBack, 700, placedAgain],
    ['Gracefully, placed again beside a healthy copy', {}, placedBackBeside, 10, placedAgain],
    ['Never, placed again', { purgeMode: 'Never' }, placedBack, 10, placedAgain],
    ['suppressDeletion true, placed again', { suppressDeletion: true }, placedBack, 10, placedAgain],
  ])('%s', (...[, over, b, nowSeconds, expected]) => {
    expect(judgeEvictionTask(task(over), b, s(nowSeconds), TIMEOUT)).toEqual(expected);
  });

  it('lists the tasks kept for their copy in the plan, without a recheck', () => {
    const last = task({ fromCluster: 'm1' });
    const young = task({ fromCluster: 'm4', creationTimestamp: formatTime(s(500)) });
    const b: BindingProgress = { ...nowhere, spec: { clusters: [], gracefulEvictionTasks: [last, young] } };
    expect(planEvictionTasks(b, s(600), TIMEOUT)).toEqual({
      tasks: [last, young],
      removed: [],
      changed: false,
      lastCopies: [{ task: last, deadlineMs: DEADLINE }],
      recheckInMs: 500_000,
    });
  });

  it('never lets a timeout remove a task that keeps a copy unless another placed cluster reports Healthy', () => {
    const health = fc.constantFrom<ResourceHealth>('Healthy', 'Unhealthy', 'Unknown');
    fc.assert(
      fc.property(
        fc.record({
          placed: fc.subarray(['m1', 'm2', 'm3']),
          health: fc.record({ m1: health, m2: health, m3: health }),
          purgeMode: fc.constantFrom<PurgeMode>('Directly', 'Gracefully', 'Never'),
          suppressDeletion: fc.option(fc.boolean(), { nil: undefined }),
          nowSeconds: fc.integer({ min: 0, max: 2000 }),
          observed: fc.constantFrom(6, 7),
        }),
        (r) => {
          const b = binding({
            clusters: r.placed.map((name) => ({ name })),
            items: Object.entries(r.health).map(([clusterName, h]) => ({ clusterName, health: h })),
            observed: r.observed,
          });
          const t = task({ purgeMode: r.purgeMode, suppressDeletion: r.suppressDeletion });
          const verdict = judgeEvictionTask(t, b, s(r.nowSeconds), TIMEOUT);
          const keepsCopy = r.purgeMode !== 'Directly' && r.suppressDeletion !== false;
          const replaced = r.placed.some((c) => c !== 'm1' && r.health[c as 'm1'] === 'Healthy');
          if (verdict.kind === 'remove' && keepsCopy) {
            // Only a replacement, or the cluster itself placed again, ends a task that keeps a copy.
            expect(replaced || r.placed.includes('m1')).toBe(true);
          }
          if (verdict.kind === 'keepLastCopy') expect(replaced).toBe(false);
        },
      ),
    );
  });
});

describe('planEvictionTasks', () => {
  it('keeps order, stamps new tasks, removes done ones and rechecks at the earliest deadline', () => {
    const fresh = task({ fromCluster: 'm0', creationTimestamp: undefined });
    const suppressed = task({ fromCluster: 'm4', suppressDeletion: true });
    const old = task({ fromCluster: 'm5', creationTimestamp: formatTime(s(-600)) });
    const young = task({
      fromCluster: 'm6',
      creationTimestamp: formatTime(s(-300)),
      gracePeriodSeconds: 400,
    });
    const b: BindingProgress = {
      ...binding({ items: [healthy('m2')], observed: 6 }),
      spec: { clusters: [{ name: 'm2' }], gracefulEvictionTasks: [fresh, suppressed, old, young] },
    };
    expect(planEvictionTasks(b, s(0), TIMEOUT)).toEqual({
      tasks: [task({ fromCluster: 'm0' }), suppressed, young],
      removed: [{ task: old, reason: 'TimedOut' }],
      changed: true,
      recheckInMs: 100_000,
      lastCopies: [],
    });
  });

  it('changes nothing and asks no recheck when only suppressed tasks remain', () => {
    const suppressed = task({ suppressDeletion: true });
    const b: BindingProgress = { ...binding(), spec: { clusters: [], gracefulEvictionTasks: [suppressed] } };
    expect(planEvictionTasks(b, s(5), TIMEOUT)).toEqual({
      tasks: [suppressed],
      removed: [],
      changed: false,
      lastCopies: [],
    });
  });

  it('a binding without tasks changes nothing', () => {
    expect(planEvictionTasks(binding(), s(0), TIMEOUT)).toEqual({
      tasks: [],
      removed: [],
      changed: false,
      lastCopies: [],
    });
  });

  it('is idempotent for judged tasks: a second round at the same instant only removes tasks the first one stamped', () => {
    const arbitraryTask = fc.record({
      fromCluster: fc.constantFrom('m1', 'm4', 'm5'),
      created: fc.option(fc.integer({ min: -1200, max: 0 }), { nil: undefined }),
      suppressDeletion: fc.option(fc.boolean(), { nil: undefined }),
      purgeMode: fc.constantFrom<PurgeMode>('Directly', 'Gracefully', 'Never'),
      gracePeriodSeconds: fc.option(fc.integer({ min: 0, max: 1200 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(arbitraryTask, { maxLength: 5 }), fc.boolean(), (raw, isHealthy) => {
        const tasks = raw.map((r): GracefulEvictionTask => ({
          fromCluster: r.fromCluster,
          purgeMode: r.purgeMode,
          reason: 'TaintUntolerated',
          producer: 'TaintManager',
          ...(r.created === undefined ? {} : { creationTimestamp: formatTime(s(r.created)) }),
          ...(r.suppressDeletion === undefined ? {} : { suppressDeletion: r.suppressDeletion }),
          ...(r.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: r.gracePeriodSeconds }),
        }));
        const base = isHealthy ? allHealthy : binding();
        const first = planEvictionTasks(
          { ...base, spec: { ...base.spec, gracefulEvictionTasks: tasks } },
          s(0),
          TIMEOUT,
        );
        const second = planEvictionTasks(
          { ...base, spec: { ...base.spec, gracefulEvictionTasks: first.tasks } },
          s(0),
          TIMEOUT,
        );
        const stampedNow = new Set(
          tasks.filter((t) => t.creationTimestamp === undefined).map((t) => t.fromCluster),
        );
        expect(second.removed.every((r) => stampedNow.has(r.task.fromCluster))).toBe(true);
        expect(second.tasks.every((t) => t.creationTimestamp !== undefined)).toBe(true);
        if (first.recheckInMs !== undefined) expect(first.recheckInMs).toBeGreaterThan(0);
      }),
    );
  });
});

describe('deprecated purge mode names', () => {
  type Over = Parameters<typeof task>[0];
  const scenarios: [string, Over, BindingProgress, number][] = [
    ['first sight', { creationTimestamp: undefined }, binding(), 0],
    ['before its timeout', {}, binding(), 10],
    ['past its timeout', {}, someHealthy, 600],
    ['past its timeout with no healthy copy elsewhere', {}, binding({ items: [unhealthy('m1')] }), 600],
    ['placed on its cluster again', {}, binding({ clusters: [{ name: 'm1' }] }), 10],
    ['healthy on every placed cluster', {}, allHealthy, 10],
  ];
  const pairs = [
    ['Graciously', 'Gracefully'],
    ['Immediately', 'Directly'],
  ] as const;

  it.each(pairs.flatMap(([old, current]) => scenarios.map((sc) => [old, current, ...sc] as const)))(
    '%s is judged like %s: %s',
    (...[old, current, , over, b, nowSeconds]) => {
      const judge = (purgeMode: GracefulEvictionTask['purgeMode']): TaskVerdict =>
        judgeEvictionTask(task({ ...over, purgeMode }), b, s(nowSeconds), TIMEOUT);
      const expected = judge(current);
      // A stamped task keeps the name it was written with: only the stamp is added.
      expect(judge(old)).toEqual(
        expected.kind === 'stamp' ? { ...expected, task: { ...expected.task, purgeMode: old } } : expected,
      );
    },
  );

  it('Graciously times out like Gracefully, not kept like Never', () => {
    expect(judgeEvictionTask(task({ purgeMode: 'Graciously' }), someHealthy, s(600), TIMEOUT)).toEqual({
      kind: 'remove',
      reason: 'TimedOut',
    });
  });
});
