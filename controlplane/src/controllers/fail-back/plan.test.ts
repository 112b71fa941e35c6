import { describe, expect, it } from 'vitest';
import { formatTime, type GracefulEvictionTask, type TargetCluster } from '@kf/api';
import {
  decideFailBack,
  HELD_RECHECK_MS,
  isFailBackInFlight,
  type FailBackBinding,
  type FailBackDecision,
  type FailBackInput,
} from './plan.ts';

// The binding fled from member1 at 10:00:00; the fail-back window is 300 s. Unless a case says
// otherwise it is judged at 10:06:40 (400 s later), member1 has been steady since 10:00:00 and
// member2 since 9:58:20, so the window is over for both.
const T0 = Date.parse('2026-11-20T10:00:00Z');
const s = (seconds: number): number => T0 + seconds * 1000;
const WINDOW_MS = 300_000;
const PRODUCER = 'fail-back-controller';

const task = (fromCluster: string, producer = 'TaintManager'): GracefulEvictionTask => ({
  fromCluster,
  reason: 'TaintUntolerated',
  producer,
});

interface Case {
  readonly binding?: Partial<FailBackBinding>;
  readonly recorded?: readonly TargetCluster[];
  readonly steady?: Readonly<Record<string, number | string>>;
  readonly missing?: readonly string[];
  readonly over?: Partial<Omit<FailBackInput, 'binding' | 'record' | 'steadySince' | 'exists'>>;
}

function input(c: Case = {}): FailBackInput {
  const steady: Readonly<Record<string, number | string>> = { member1: s(0), member2: s(-100), ...c.steady };
  return {
    binding: {
      deleting: false,
      clusters: [{ name: 'member2', replicas: 2 }],
      tasks: [],
      rescheduleTriggeredAt: undefined,
      lastScheduledTime: formatTime(s(1)),
      ...c.binding,
    },
    record: {
      clusters: c.recorded ?? [
        { name: 'member1', replicas: 1 },
        { name: 'member2', replicas: 1 },
      ],
      evictedAtMs: T0,
    },
    windowMs: WINDOW_MS,
    steadySince: (name) => {
      const since = steady[name] ?? 'not found';
      return typeof since === 'number' ? { sinceMs: since } : { why: since };
    },
    exists: (name) => !(c.missing ?? []).includes(name),
    guardPaused: false,
    inFlight: 0,
    maxInFlight: 10,
    nowMs: s(400),
    ...c.over,
  };
}

const back = (returnTo: string[], leave: string[] = []): FailBackDecision => ({
  kind: 'return',
  returnTo,
  leave,
});

describe('decideFailBack', () => {
  it.each<[string, Case, FailBackDecision]>([
    ['a binding being deleted: nothing', { binding: { deleting: true } }, { kind: 'none' }],
    [
      'a binding being deleted whose cluster is gone: still nothing',
      { binding: { deleting: true }, missing: ['member1'] },
      { kind: 'none' },
    ],
    [
      'a recorded cluster no longer exists: dropped',
      { missing: ['member1'] },
      { kind: 'drop', reason: 'ClusterGone', message: 'cluster(s) member1 no longer exist' },
    ],
    [
      'every recorded cluster gone: all named',
      { missing: ['member1', 'member2', 'member9'] },
      { kind: 'drop', reason: 'ClusterGone', message: 'cluster(s) member1, member2 no longer exist' },
    ],
    ['a cluster gone that was not recorded: no matter', { missing: ['member3'] }, back(['member1'])],
    [
      'every recorded cluster placed again: dropped as back already',
      {
        binding: {
          clusters: [
            { name: 'member2', replicas: 1 },
            { name: 'member1', replicas: 1 },
          ],
        },
      },
      { kind: 'drop', reason: 'AlreadyBack', message: 'placed on member1, member2 again' },
    ],
    [
      'placed again on the recorded clusters and one more: back already',
      { binding: { clusters: [{ name: 'member1' }, { name: 'member2' }, { name: 'member3' }] } },
      { kind: 'drop', reason: 'AlreadyBack', message: 'placed on member1, member2 again' },
    ],
    [
      'an eviction still running: waits for it',
      { binding: { tasks: [task('member1'), task('member3', PRODUCER)] } },
      {
        kind: 'wait',
        reason: 'Evicting',
        message: 'an eviction from member1, member3 is still running',
      },
    ],
    [
      'a recorded cluster unsteady: waits, naming the cluster and why',
      { steady: { member1: 'Ready is False' } },
      { kind: 'wait', reason: 'Unsteady', message: 'cluster member1: Ready is False', recheckInMs: 30_000 },
    ],
    [
      'a recorded cluster the cluster cache lacks: unsteady',
      { steady: { member2: 'not found' } },
      { kind: 'wait', reason: 'Unsteady', message: 'cluster member2: not found', recheckInMs: 30_000 },
    ],
    [
      'steady but within the window: waits for the latest cluster to be steady long enough',
      { steady: { member1: s(150), member2: s(200), member3: s(390) } },
      {
        kind: 'wait',
        reason: 'Stabilizing',
        message: 'member1, member2 steady; going back in 100 s',
        recheckInMs: 100_000,
      },
    ],
    [
      'steady but within the window, the latest listed first',
      { steady: { member1: s(200), member2: s(150) } },
      {
        kind: 'wait',
        reason: 'Stabilizing',
        message: 'member1, member2 steady; going back in 100 s',
        recheckInMs: 100_000,
      },
    ],
    [
      'within the window by a millisecond: whole seconds rounded up',
      { steady: { member1: s(100) + 1 } },
      {
        kind: 'wait',
        reason: 'Stabilizing',
        message: 'member1, member2 steady; going back in 1 s',
        recheckInMs: 1,
      },
    ],
    ['the window just over: goes back', { steady: { member1: s(100) } }, back(['member1'])],
    [
      'the window over but the fleet guard holds evictions back: waits',
      { over: { guardPaused: true } },
      {
        kind: 'wait',
        reason: 'FleetGuard',
        message: 'the fleet guard holds evictions back',
        recheckInMs: 2_000,
      },
    ],
    [
      'as many fail-backs under way as allowed: waits',
      { over: { inFlight: 10 } },
      {
        kind: 'wait',
        reason: 'Concurrency',
        message: '10 fail-backs under way (at most 10)',
        recheckInMs: 2_000,
      },
    ],
    [
      'more fail-backs under way than allowed: waits',
      { over: { inFlight: 4, maxInFlight: 3 } },
      {
        kind: 'wait',
        reason: 'Concurrency',
        message: '4 fail-backs under way (at most 3)',
        recheckInMs: 2_000,
      },
    ],
    ['one fail-back below the limit: goes back', { over: { inFlight: 9 } }, back(['member1'])],
    [
      'scheduled within this second: waits for the next one',
      { binding: { lastScheduledTime: formatTime(s(400)) }, over: { nowMs: s(400.3) } },
      { kind: 'wait', reason: 'SchedulerBusy', message: 'scheduled within this second', recheckInMs: 700 },
    ],
    [
      'scheduled at the very start of this second: waits a whole second',
      { binding: { lastScheduledTime: formatTime(s(400)) } },
      { kind: 'wait', reason: 'SchedulerBusy', message: 'scheduled within this second', recheckInMs: 1_000 },
    ],
    [
      'scheduled in the previous second: goes back',
      { binding: { lastScheduledTime: formatTime(s(399.9)) }, over: { nowMs: s(400.1) } },
      back(['member1']),
    ],
    ['never scheduled: goes back', { binding: { lastScheduledTime: undefined } }, back(['member1'])],
    ['Divided, member2 kept throughout: returns to member1 and leaves nothing', {}, back(['member1'])],
    [
      'a single cluster: returns to member1 and leaves member2',
      {
        recorded: [{ name: 'member1', replicas: 1 }],
        binding: { clusters: [{ name: 'member2', replicas: 1 }] },
      },
      back(['member1'], ['member2']),
    ],
    [
      'Duplicated on two, one fled to a third: returns to the missing one, leaves the third',
      {
        recorded: [{ name: 'member1' }, { name: 'member2' }],
        binding: { clusters: [{ name: 'member3' }, { name: 'member2' }] },
        steady: { member3: 'Ready is False' },
      },
      back(['member1'], ['member3']),
    ],
    [
      'fled from both: returns to both, in the order recorded, and leaves both new ones',
      {
        binding: {
          clusters: [
            { name: 'member4', replicas: 1 },
            { name: 'member3', replicas: 1 },
          ],
        },
      },
      back(['member1', 'member2'], ['member4', 'member3']),
    ],
    [
      'nothing placed at all: returns to every recorded cluster',
      { binding: { clusters: [] } },
      back(['member1', 'member2']),
    ],
  ])('%s', (_name, c, decision) => {
    expect(decideFailBack(input(c))).toEqual(decision);
  });

  it.each<[string, Case, FailBackDecision['kind'], string?]>([
    ['deleting before a cluster gone', { binding: { deleting: true }, missing: ['member1'] }, 'none'],
    [
      'a cluster gone before back already',
      { missing: ['member1'], binding: { clusters: [{ name: 'member1' }, { name: 'member2' }] } },
      'drop',
      'ClusterGone',
    ],
    [
      'back already before an eviction running',
      { binding: { clusters: [{ name: 'member1' }, { name: 'member2' }], tasks: [task('member3')] } },
      'drop',
      'AlreadyBack',
    ],
    [
      'an eviction running before unsteady',
      { binding: { tasks: [task('member3')] }, steady: { member1: 'Ready is False' } },
      'wait',
      'Evicting',
    ],
    [
      'unsteady before the guard paused',
      { steady: { member2: 'Ready is Unknown' }, over: { guardPaused: true } },
      'wait',
      'Unsteady',
    ],
    [
      'unsteady before stabilizing, whichever cluster comes first',
      { steady: { member1: s(399), member2: 'Ready is Unknown' } },
      'wait',
      'Unsteady',
    ],
    [
      'stabilizing before the guard paused',
      { steady: { member1: s(399) }, over: { guardPaused: true } },
      'wait',
      'Stabilizing',
    ],
    [
      'the guard paused before the concurrency limit',
      { over: { guardPaused: true, inFlight: 10 } },
      'wait',
      'FleetGuard',
    ],
    [
      'the concurrency limit before the scheduler busy',
      { over: { inFlight: 10 }, binding: { lastScheduledTime: formatTime(s(400)) } },
      'wait',
      'Concurrency',
    ],
  ])('checks %s', (_name, c, kind, reason) => {
    const decision = decideFailBack(input(c));
    expect(decision.kind).toBe(kind);
    if (reason !== undefined) expect(decision).toMatchObject({ reason });
  });

  it('looks at no cluster when an eviction is still running', () => {
    const asked: string[] = [];
    const base = input({ binding: { tasks: [task('member3')] } });
    decideFailBack({
      ...base,
      steadySince: (name) => {
        asked.push(name);
        return base.steadySince(name);
      },
    });
    expect(asked).toEqual([]);
  });

  it('holds back by the guard and the limit for HELD_RECHECK_MS', () => {
    expect(HELD_RECHECK_MS).toBe(2_000);
  });
});

describe('isFailBackInFlight', () => {
  const view = (
    over: Partial<Pick<FailBackBinding, 'tasks' | 'rescheduleTriggeredAt' | 'lastScheduledTime'>>,
  ): Pick<FailBackBinding, 'tasks' | 'rescheduleTriggeredAt' | 'lastScheduledTime'> => ({
    tasks: [],
    rescheduleTriggeredAt: undefined,
    lastScheduledTime: formatTime(s(0)),
    ...over,
  });

  it.each<[string, Parameters<typeof view>[0], boolean]>([
    ['nothing under way', {}, false],
    ['a task the fail-back left', { tasks: [task('member2', PRODUCER)] }, true],
    ['a task the fail-back left among others', { tasks: [task('member3'), task('member2', PRODUCER)] }, true],
    ['a task of another producer alone', { tasks: [task('member2'), task('member3', 'other')] }, false],
    ['a reschedule asked after the last scheduling', { rescheduleTriggeredAt: formatTime(s(1)) }, true],
    [
      'a reschedule asked of a binding never scheduled',
      { rescheduleTriggeredAt: formatTime(s(1)), lastScheduledTime: undefined },
      true,
    ],
    [
      'a reschedule asked in the same second as the last scheduling',
      { rescheduleTriggeredAt: formatTime(s(0)) },
      false,
    ],
    ['a reschedule asked before the last scheduling', { rescheduleTriggeredAt: formatTime(s(-5)) }, false],
    ['an unreadable reschedule time', { rescheduleTriggeredAt: 'soon', lastScheduledTime: undefined }, false],
  ])('%s', (_name, over, inFlight) => {
    expect(isFailBackInFlight(view(over), PRODUCER)).toBe(inFlight);
  });
});
