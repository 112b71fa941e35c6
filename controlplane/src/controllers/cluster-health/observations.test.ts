import { describe, expect, it } from 'vitest';
import type { ClusterCondition, ConditionStatus } from '@kf/api';
import type { Clock } from '@kf/runtime';
import { MemberObservations, type MemberSignals } from './observations.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');

/** A clock the test moves by hand; `stepWall` moves the wall clock alone (an NTP step). */
class HandClock implements Clock {
  wall = T0;
  mono = 1_000;
  now(): number {
    return this.wall;
  }
  monotonic(): number {
    return this.mono;
  }
  sleep(): Promise<void> {
    return Promise.resolve();
  }
  pass(ms: number): void {
    this.wall += ms;
    this.mono += ms;
  }
  stepWall(ms: number): void {
    this.wall += ms;
  }
}

/** A renewal stamped on a member clock `offsetMs` off this one, written `agoMs` before now. */
const stamp = (clock: HandClock, offsetMs = 0, agoMs = 0): string =>
  new Date(clock.wall + offsetMs - agoMs).toISOString().replace('Z', '000Z');

const readyCondition = (status: ConditionStatus, at: string): ClusterCondition => ({
  type: 'Ready',
  status,
  lastTransitionTime: at,
});

const signals = (renewTime: string | undefined, conditions?: ClusterCondition[]): MemberSignals => ({
  renewTime,
  conditions,
});

function setup(): { clock: HandClock; obs: MemberObservations } {
  const clock = new HandClock();
  return { clock, obs: new MemberObservations(clock) };
}

describe('MemberObservations: signs of life', () => {
  it('counts first sight as a sign of life, whatever the age of the Lease it finds', () => {
    const { clock, obs } = setup();
    const look = obs.look('m1', signals(stamp(clock, 0, 3_600_000)));
    expect(look).toEqual({ silentForMs: 0, firstSight: true });
    clock.pass(4_000);
    expect(obs.look('m1', signals(stamp(clock, 0, 3_604_000)))).toEqual({
      silentForMs: 4_000,
      firstSight: false,
    });
  });

  it.each<[string, (c: HandClock, first: string) => string]>([
    ['moves forward', (c) => stamp(c)],
    ['jumps far ahead (the member clock stepped forward)', (c) => stamp(c, 3_600_000)],
    ['goes backwards (the member clock stepped back)', (c) => stamp(c, -3_600_000)],
    ['is older than the first one seen but never seen itself', (c) => stamp(c, 0, 10_000)],
  ])('counts a renewal at the moment it is seen when its value %s', (_name, next) => {
    const { clock, obs } = setup();
    const first = stamp(clock);
    obs.look('m1', signals(first));
    clock.pass(3_000);
    const value = next(clock, first);
    clock.pass(500); // seen half a second after it was written: counted from the sight
    expect(obs.look('m1', signals(value)).silentForMs).toBe(0);
    clock.pass(2_000);
    expect(obs.look('m1', signals(value)).silentForMs).toBe(2_000);
  });

  it('does not count a repeated value, however many readers look', () => {
    const { clock, obs } = setup();
    const first = stamp(clock);
    obs.look('m1', signals(first));
    for (let i = 1; i <= 5; i++) {
      clock.pass(1_000);
      expect(obs.look('m1', signals(first)).silentForMs).toBe(i * 1_000);
    }
  });

  it('does not count a recent value again when a lagging cache shows it after a direct read', () => {
    const { clock, obs } = setup();
    const r1 = stamp(clock);
    obs.look('m1', signals(r1));
    clock.pass(1_000);
    const r2 = stamp(clock);
    obs.look('m1', signals(r2)); // the cache
    clock.pass(1_000);
    const r3 = stamp(clock);
    obs.look('m1', signals(r3)); // a direct read from the API server
    clock.pass(4_000);
    expect(obs.look('m1', signals(r2)).silentForMs).toBe(4_000); // the cache, behind
    expect(obs.look('m1', signals(r3)).silentForMs).toBe(4_000); // the cache, caught up
  });

  it('counts a Ready post by the agent, but not the Unknown the control plane writes', () => {
    const { clock, obs } = setup();
    const lease = stamp(clock);
    obs.look('m1', signals(lease, [readyCondition('True', '2026-11-20T09:00:00Z')]));
    clock.pass(6_000);
    const unknown = [readyCondition('Unknown', '2026-11-20T10:00:06Z')];
    expect(obs.look('m1', signals(lease, unknown)).silentForMs).toBe(6_000);
    clock.pass(1_000);
    // The agent is back: Ready True with a transition stamped on its clock, a minute behind.
    const back = [readyCondition('True', '2026-11-20T09:59:07Z')];
    expect(obs.look('m1', signals(lease, back)).silentForMs).toBe(0);
    clock.pass(1_000);
    expect(obs.look('m1', signals(lease, back)).silentForMs).toBe(1_000);
  });

  it('does not count a change of another condition as a sign of the agent', () => {
    const { clock, obs } = setup();
    const lease = stamp(clock);
    obs.look('m1', signals(lease, []));
    clock.pass(3_000);
    const dns: ClusterCondition = {
      type: 'ServiceDomainNameResolutionReady',
      status: 'False',
      lastTransitionTime: '2026-11-20T10:00:03Z',
    };
    expect(obs.look('m1', signals(lease, [dns])).silentForMs).toBe(3_000);
  });

  it('keeps members apart', () => {
    const { clock, obs } = setup();
    obs.look('m1', signals(stamp(clock)));
    obs.look('m2', signals(stamp(clock)));
    clock.pass(2_000);
    obs.look('m1', signals(stamp(clock)));
    expect(obs.look('m1', signals(stamp(clock, 0, 0))).silentForMs).toBe(0);
    expect(obs.look('m2', signals(undefined)).silentForMs).toBe(2_000);
  });

  it('measures silence on the monotonic clock: a step of the control plane wall clock changes nothing', () => {
    const { clock, obs } = setup();
    const lease = stamp(clock);
    obs.look('m1', signals(lease));
    clock.pass(1_000);
    clock.stepWall(-30_000);
    expect(obs.look('m1', signals(lease)).silentForMs).toBe(1_000);
    clock.stepWall(90_000);
    expect(obs.look('m1', signals(lease)).silentForMs).toBe(1_000);
  });
});

describe('MemberObservations: skewed member clocks', () => {
  it.each([
    ['60 s behind', -60_000],
    ['20 s behind', -20_000],
    ['60 s ahead', 60_000],
    ['10 min ahead', 600_000],
  ])(
    'a live member whose clock runs %s is never silent longer than its renew interval',
    (_name, offsetMs) => {
      const { clock, obs } = setup();
      obs.look('m1', signals(stamp(clock, offsetMs)));
      const silences: number[] = [];
      for (let i = 0; i < 30; i++) {
        clock.pass(1_000);
        silences.push(obs.look('m1', signals(stamp(clock, offsetMs, 50))).silentForMs);
      }
      expect(Math.max(...silences)).toBe(0);
    },
  );

  it.each([
    ['60 s behind', -60_000],
    ['60 s ahead', 60_000],
    ['10 min ahead', 600_000],
  ])(
    'a dead member whose clock ran %s is silent from its last renewal as seen, not as stamped',
    (_n, offsetMs) => {
      const { clock, obs } = setup();
      obs.look('m1', signals(stamp(clock, offsetMs)));
      clock.pass(1_000);
      const last = stamp(clock, offsetMs);
      obs.look('m1', signals(last));
      clock.pass(5_000);
      expect(obs.look('m1', signals(last)).silentForMs).toBe(5_000);
    },
  );
});

describe('MemberObservations: restarts', () => {
  it('starts every member afresh after forgetAll, in the middle of a silence', () => {
    const { clock, obs } = setup();
    const lease = stamp(clock);
    obs.look('m1', signals(lease));
    obs.look('m2', signals(lease));
    clock.pass(4_000);
    obs.forgetAll();
    expect(obs.look('m1', signals(lease))).toEqual({ silentForMs: 0, firstSight: true });
    clock.pass(3_000);
    expect(obs.look('m1', signals(lease)).silentForMs).toBe(3_000);
    expect(obs.look('m2', signals(lease))).toEqual({ silentForMs: 0, firstSight: true });
  });

  it('after forgetAll a renewal value seen before is not new: the first look only records it', () => {
    const { clock, obs } = setup();
    const lease = stamp(clock);
    obs.look('m1', signals(lease));
    obs.forgetAll();
    clock.pass(1_000);
    obs.look('m1', signals(lease));
    clock.pass(2_000);
    expect(obs.look('m1', signals(lease)).silentForMs).toBe(2_000);
  });

  it('forgets one deleted member: one created again under its name starts afresh', () => {
    const { clock, obs } = setup();
    obs.look('m1', signals(stamp(clock)));
    clock.pass(9_000);
    obs.forget('m1');
    expect(obs.look('m1', signals(undefined)).firstSight).toBe(true);
  });
});

describe('MemberObservations: clock offset', () => {
  it('is unknown until a renewal is seen change, then is the least delayed recent sample', () => {
    const { clock, obs } = setup();
    obs.look('m1', signals(stamp(clock, 60_000)));
    expect(obs.clockOffsetMs('m1')).toBeUndefined();
    // Three renewals seen change before anything is told (one slow renewal is not a clock).
    for (let i = 0; i < 2; i++) {
      clock.pass(1_000);
      obs.look('m1', signals(stamp(clock, 60_000)));
      expect(obs.clockOffsetMs('m1')).toBeUndefined();
    }
    clock.pass(1_000);
    obs.look('m1', signals(stamp(clock, 60_000)));
    expect(obs.clockOffsetMs('m1')).toBeCloseTo(60_000, 3);
    // Delay only lowers a sample: a late renewal does not move the estimate.
    clock.pass(1_000);
    obs.look('m1', signals(stamp(clock, 60_000, 1_500)));
    expect(obs.clockOffsetMs('m1')).toBeCloseTo(60_000, 3);
    expect(obs.clockOffsets()).toEqual(new Map([['m1', obs.clockOffsetMs('m1')]]));
  });

  it('reads a right clock behind a slow API server as a right clock', () => {
    // Renewals that take 2 to 9 s to be written and seen (an overloaded API server), clocks equal:
    // the estimate is the shortest delay, not their average, and stays under the 5 s warning.
    const { clock, obs } = setup();
    obs.look('m1', signals(stamp(clock, 0, 3_000)));
    for (const delay of [6_000, 9_000, 2_000, 7_000, 8_000, 6_500, 9_000, 5_500]) {
      clock.pass(10_000);
      obs.look('m1', signals(stamp(clock, 0, delay)));
    }
    expect(obs.clockOffsetMs('m1')).toBeCloseTo(-2_000, 3);
  });

  it('tells nothing of one slow renewal after a restart', () => {
    const { clock, obs } = setup();
    obs.look('m1', signals(stamp(clock, 0)));
    clock.pass(10_000);
    obs.look('m1', signals(stamp(clock, 0, 8_000)));
    clock.pass(10_000);
    obs.look('m1', signals(stamp(clock, 0, 7_000)));
    expect(obs.clockOffsetMs('m1')).toBeUndefined();
    clock.pass(10_000);
    obs.look('m1', signals(stamp(clock, 0, 100)));
    expect(obs.clockOffsetMs('m1')).toBeCloseTo(-100, 3);
  });

  it('forgets samples older than the last ten renewals', () => {
    const { clock, obs } = setup();
    obs.look('m1', signals(stamp(clock, 30_000)));
    clock.pass(1_000);
    obs.look('m1', signals(stamp(clock, 30_000)));
    for (let i = 0; i < 9; i++) {
      clock.pass(1_000);
      obs.look('m1', signals(stamp(clock, 0)));
    }
    expect(obs.clockOffsetMs('m1')).toBeCloseTo(30_000, 3);
    clock.pass(1_000);
    obs.look('m1', signals(stamp(clock, 0)));
    expect(obs.clockOffsetMs('m1')).toBeCloseTo(0, 3);
  });

  it('converges on a new offset after the member clock is corrected', () => {
    const { clock, obs } = setup();
    obs.look('m1', signals(stamp(clock, -20_000)));
    for (let i = 0; i < 5; i++) {
      clock.pass(1_000);
      obs.look('m1', signals(stamp(clock, -20_000)));
    }
    for (let i = 0; i < 40; i++) {
      clock.pass(1_000);
      obs.look('m1', signals(stamp(clock, 0)));
    }
    expect(Math.abs(obs.clockOffsetMs('m1') ?? Number.NaN)).toBeLessThan(100);
  });

  it('ignores a renewal value it cannot read, but counts it as a sign of life', () => {
    const { clock, obs } = setup();
    obs.look('m1', signals('garbage-1'));
    clock.pass(2_000);
    expect(obs.look('m1', signals('garbage-2')).silentForMs).toBe(0);
    expect(obs.clockOffsetMs('m1')).toBeUndefined();
  });
});

describe('MemberObservations: condition transitions', () => {
  it('dates a transition seen while watching at the moment it was seen, not at its stamp', () => {
    const { clock, obs } = setup();
    obs.look('m1', signals(undefined, [readyCondition('True', '2026-11-20T09:00:00Z')]));
    clock.pass(10_000);
    // A member 60 s behind stamps its transition a minute in the past.
    const notReady = readyCondition('False', '2026-11-20T09:59:10Z');
    obs.look('m1', signals(undefined, [notReady]));
    expect(obs.conditionSinceMs('m1', notReady)).toBe(T0 + 10_000);
    clock.pass(5_000);
    obs.look('m1', signals(undefined, [notReady]));
    expect(obs.conditionSinceMs('m1', notReady)).toBe(T0 + 10_000);
  });

  it('at first sight believes a transition stamp only as far as that moment', () => {
    const { obs } = setup();
    const past = readyCondition('False', '2026-11-20T09:50:00Z');
    const ahead = readyCondition('False', '2026-11-20T10:10:00Z');
    const unstamped: ClusterCondition = { type: 'Other', status: 'True' };
    obs.look('m1', signals(undefined, [past]));
    obs.look('m2', signals(undefined, [ahead, unstamped]));
    expect(obs.conditionSinceMs('m1', past)).toBe(T0 - 600_000);
    expect(obs.conditionSinceMs('m2', ahead)).toBe(T0);
    expect(obs.conditionSinceMs('m2', unstamped)).toBe(T0);
  });

  it('knows nothing of a condition it has not seen in that state', () => {
    const { obs } = setup();
    obs.look('m1', signals(undefined, [readyCondition('True', '2026-11-20T09:00:00Z')]));
    expect(obs.conditionSinceMs('m1', readyCondition('False', '2026-11-20T09:00:00Z'))).toBeUndefined();
    expect(obs.conditionSinceMs('m2', readyCondition('True', '2026-11-20T09:00:00Z'))).toBeUndefined();
  });
});
