import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatTime,
  type AggregatedStatusItem,
  type GracefulEvictionTask,
  type PurgeMode,
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
    ['timed out at exactly 10 minutes', task(), binding(), 600, { kind: 'remove', reason: 'TimedOut' }],
    ['not timed out a millisecond before', task(), binding(), 599.999, { kind: 'keep', recheckInMs: 1 }],
    [
      'its own grace period wins over the default',
      task({ gracePeriodSeconds: 60 }),
      binding(),
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
      ...binding(),
      spec: { clusters: [{ name: 'm2' }], gracefulEvictionTasks: [fresh, suppressed, old, young] },
    };
    expect(planEvictionTasks(b, s(0), TIMEOUT)).toEqual({
      tasks: [task({ fromCluster: 'm0' }), suppressed, young],
      removed: [{ task: old, reason: 'TimedOut' }],
      changed: true,
      recheckInMs: 100_000,
    });
  });

  it('changes nothing and asks no recheck when only suppressed tasks remain', () => {
    const suppressed = task({ suppressDeletion: true });
    const b: BindingProgress = { ...binding(), spec: { clusters: [], gracefulEvictionTasks: [suppressed] } };
    expect(planEvictionTasks(b, s(5), TIMEOUT)).toEqual({ tasks: [suppressed], removed: [], changed: false });
  });

  it('a binding without tasks changes nothing', () => {
    expect(planEvictionTasks(binding(), s(0), TIMEOUT)).toEqual({ tasks: [], removed: [], changed: false });
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
    ['past its timeout', {}, binding(), 600],
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
    expect(judgeEvictionTask(task({ purgeMode: 'Graciously' }), binding(), s(600), TIMEOUT)).toEqual({
      kind: 'remove',
      reason: 'TimedOut',
    });
  });
});
