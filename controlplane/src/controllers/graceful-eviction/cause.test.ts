import { describe, expect, it } from 'vitest';
import type { GracefulEvictionTask, ResourceHealth, Taint, Toleration } from '@kf/api';
import {
  causeOf,
  healthByCluster,
  healthyCopyElsewhere,
  judgeCause,
  judgeReturn,
  type CauseCluster,
  type ReturnInput,
} from './cause.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const NOT_READY: Taint = {
  key: 'cluster.karmada.io/not-ready',
  effect: 'NoExecute',
  timeAdded: '2026-11-20T09:59:00Z',
};
const UNREACHABLE_NO_SCHEDULE: Taint = { key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule' };
const MAINTENANCE: Taint = { key: 'maintenance', effect: 'NoExecute', timeAdded: '2026-11-20T09:59:00Z' };
const forever: Toleration = { key: 'cluster.karmada.io/not-ready', operator: 'Exists', effect: 'NoExecute' };
const forAMinute: Toleration = { ...forever, tolerationSeconds: 60 };
const forTwoMinutes: Toleration = { ...forever, tolerationSeconds: 120 };

const taintTask: GracefulEvictionTask = {
  fromCluster: 'm1',
  purgeMode: 'Gracefully',
  reason: 'TaintUntolerated',
  producer: 'TaintManager',
  message: 'NoExecute taint cluster.karmada.io/not-ready:NoExecute is not tolerated.',
};
const appTask: GracefulEvictionTask = {
  fromCluster: 'm1',
  purgeMode: 'Gracefully',
  reason: 'ApplicationFailure',
  producer: 'resource-binding-application-failover-controller',
  gracePeriodSeconds: 600,
};
const failBackTask: GracefulEvictionTask = {
  fromCluster: 'm1',
  purgeMode: 'Gracefully',
  reason: 'FailBack',
  producer: 'fail-back-controller',
};

const untainted: CauseCluster = { taints: [], deleting: false };
const tainted = (...taints: Taint[]): CauseCluster => ({ taints, deleting: false });
const health = (h: Record<string, ResourceHealth>): ReadonlyMap<string, ResourceHealth> =>
  new Map(Object.entries(h));

const input = (over: Partial<ReturnInput> = {}): ReturnInput => ({
  cluster: untainted,
  tolerations: [],
  health: new Map(),
  placed: [],
  nowMs: T0,
  ...over,
});

describe('causeOf', () => {
  it.each<[string, Pick<GracefulEvictionTask, 'reason' | 'producer'>, ReturnType<typeof causeOf>]>([
    ['the taint manager', { reason: 'TaintUntolerated', producer: 'TaintManager' }, 'Taint'],
    ['application failover (namespaced)', appTask, 'Application'],
    [
      'application failover (cluster-scoped)',
      { reason: 'ApplicationFailure', producer: 'cluster-resource-binding-application-failover-controller' },
      'Application',
    ],
    ['fail-back', failBackTask, 'FailBack'],
    ['a taint reason from another producer', { reason: 'TaintUntolerated', producer: 'someone' }, 'Unknown'],
    [
      'an application reason from the taint manager',
      { reason: 'ApplicationFailure', producer: 'TaintManager' },
      'Unknown',
    ],
    ['a reason nobody here writes', { reason: 'Maintenance', producer: 'ops' }, 'Unknown'],
  ])('%s', (_name, task, expected) => {
    expect(causeOf(task)).toBe(expected);
  });
});

describe('judgeCause', () => {
  it.each<[string, GracefulEvictionTask, Partial<ReturnInput>, boolean]>([
    // Taints, judged as the taint manager judges them.
    ['taint: the NoExecute taint is still there', taintTask, { cluster: tainted(NOT_READY) }, true],
    ['taint: gone', taintTask, { cluster: untainted }, false],
    [
      'taint: only a NoSchedule taint is left',
      taintTask,
      { cluster: tainted(UNREACHABLE_NO_SCHEDULE) },
      false,
    ],
    ['taint: another untolerated NoExecute taint', taintTask, { cluster: tainted(MAINTENANCE) }, true],
    [
      'taint: tolerated for good now',
      taintTask,
      { cluster: tainted(NOT_READY), tolerations: [forever] },
      false,
    ],
    [
      'taint: tolerated for a while, not run out yet (it would be evicted again)',
      taintTask,
      { cluster: tainted(NOT_READY), tolerations: [forTwoMinutes] },
      true,
    ],
    [
      'taint: its toleration has run out',
      taintTask,
      { cluster: tainted(NOT_READY), tolerations: [forAMinute] },
      true,
    ],
    ['taint: the cluster no longer exists', taintTask, { cluster: undefined }, true],
    ['taint: the cluster is being deleted', taintTask, { cluster: { taints: [], deleting: true } }, true],
    // Application failure: health reported from the evicted cluster.
    ['application: Healthy there again', appTask, { health: health({ m1: 'Healthy' }) }, false],
    ['application: still Unhealthy', appTask, { health: health({ m1: 'Unhealthy' }) }, true],
    ['application: Unknown', appTask, { health: health({ m1: 'Unknown' }) }, true],
    ['application: no status from there', appTask, { health: health({ m2: 'Healthy' }) }, true],
    [
      'application: its taints do not matter',
      appTask,
      { cluster: tainted(NOT_READY), health: health({ m1: 'Healthy' }) },
      false,
    ],
    // Decisions and unknown causes hold for the task's life.
    ['fail-back: always', failBackTask, {}, true],
    ['unknown producer: always', { ...taintTask, producer: 'someone' }, {}, true],
  ])('%s', (_name, task, over, holds) => {
    expect(judgeCause(task, input(over)).holds).toBe(holds);
  });

  it('says why in words', () => {
    expect(judgeCause(taintTask, input({ cluster: tainted(NOT_READY) })).why).toBe(
      'm1 has the untolerated taint cluster.karmada.io/not-ready:NoExecute',
    );
    expect(judgeCause(taintTask, input()).why).toBe('m1 has no NoExecute taint any more');
    expect(judgeCause(appTask, input({ health: health({ m1: 'Unhealthy' }) })).why).toBe(
      'the workload is Unhealthy on m1',
    );
  });
});

describe('judgeReturn', () => {
  const gone = { cluster: untainted };
  it.each<[string, GracefulEvictionTask, Partial<ReturnInput>, boolean]>([
    ['cause gone, nowhere else placed', taintTask, gone, true],
    ['cause holds, nowhere else placed', taintTask, { cluster: tainted(NOT_READY) }, false],
    [
      'cause gone, placed elsewhere, Unhealthy there',
      taintTask,
      { placed: ['m2'], health: health({ m2: 'Unhealthy' }) },
      true,
    ],
    ['cause gone, placed elsewhere, no status there yet', taintTask, { placed: ['m2'] }, true],
    [
      'cause gone, placed elsewhere, Healthy there',
      taintTask,
      { placed: ['m2'], health: health({ m2: 'Healthy' }) },
      false,
    ],
    [
      'cause gone, one of two replacements Healthy',
      taintTask,
      { placed: ['m2', 'm3'], health: health({ m2: 'Unhealthy', m3: 'Healthy' }) },
      false,
    ],
    [
      'a healthy copy kept by another eviction is no replacement',
      taintTask,
      { placed: [], health: health({ m2: 'Healthy' }) },
      true,
    ],
    [
      'its own Healthy status does not count as elsewhere',
      taintTask,
      { placed: ['m1'], health: health({ m1: 'Healthy' }) },
      true,
    ],
    ['Directly: never (the copy is gone)', { ...taintTask, purgeMode: 'Directly' }, gone, false],
    ["Immediately (Directly's old name): never", { ...taintTask, purgeMode: 'Immediately' }, gone, false],
    ['Never: yes, the copy is still there', { ...taintTask, purgeMode: 'Never' }, gone, true],
    ['suppressDeletion true: yes', { ...taintTask, suppressDeletion: true }, gone, true],
    [
      'suppressDeletion false: no, a person confirmed the deletion',
      { ...taintTask, suppressDeletion: false },
      gone,
      false,
    ],
    ['application healthy again, nowhere else', appTask, { health: health({ m1: 'Healthy' }) }, true],
    [
      'application healthy again, but healthy elsewhere too',
      appTask,
      { placed: ['m2'], health: health({ m1: 'Healthy', m2: 'Healthy' }) },
      false,
    ],
    ['application still unhealthy', appTask, { health: health({ m1: 'Unhealthy' }) }, false],
    ['fail-back: never', failBackTask, gone, false],
  ])('%s', (_name, task, over, mayReturn) => {
    expect(judgeReturn(task, input(over)).mayReturn).toBe(mayReturn);
  });

  it('names the healthy copy that keeps the task running', () => {
    expect(judgeReturn(taintTask, input({ placed: ['m2'], health: health({ m2: 'Healthy' }) })).why).toMatch(
      /m2 runs a healthy copy/,
    );
  });
});

describe('healthyCopyElsewhere and healthByCluster', () => {
  it('finds the first placed cluster other than the given one that reports Healthy', () => {
    const h = healthByCluster([
      { clusterName: 'm1', health: 'Healthy' },
      { clusterName: 'm2', health: 'Unhealthy' },
      { clusterName: 'm3', health: 'Healthy' },
      { clusterName: 'm4' },
    ]);
    expect(h.get('m4')).toBe('Unknown');
    expect(healthyCopyElsewhere('m1', ['m1', 'm2', 'm3'], h)).toBe('m3');
    expect(healthyCopyElsewhere('m3', ['m2', 'm3'], h)).toBeUndefined();
    expect(healthyCopyElsewhere('m1', [], h)).toBeUndefined();
  });
});
