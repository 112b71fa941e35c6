import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FLEET_GUARD,
  INITIAL_FLEET_GUARD_STATE,
  decideFleetMode,
  type FleetGuardState,
  type FleetMember,
  type FleetMode,
} from './disruption.ts';

/** A fleet of `total` clusters c00…, the first `down` of them unhealthy. */
const fleet = (total: number, down: number): FleetMember[] =>
  Array.from({ length: total }, (_, i) => ({ name: `c${String(i).padStart(2, '0')}`, healthy: i >= down }));

/** Runs `[total, down, atMs]` steps from normal; returns the mode after each. */
const run = (steps: readonly (readonly [number, number, number])[]): FleetMode[] => {
  let state: FleetGuardState = INITIAL_FLEET_GUARD_STATE;
  return steps.map(([total, down, at]) => {
    state = decideFleetMode(fleet(total, down), state, at, DEFAULT_FLEET_GUARD).state;
    return state.mode;
  });
};

describe('decideFleetMode', () => {
  it.each<[string, [number, number, number][], FleetMode[]]>([
    ['an empty fleet is normal', [[0, 0, 0]], ['normal']],
    ['a healthy fleet is normal', [[10, 0, 0]], ['normal']],
    ['one cluster down in ten is normal', [[10, 1, 0]], ['normal']],
    ['five of ten (50%) is below the 55% threshold', [[10, 5, 0]], ['normal']],
    ['six of ten (60%) pauses at once', [[10, 6, 0]], ['paused']],
    ['eleven of twenty (exactly 55%) pauses', [[20, 11, 0]], ['paused']],
    ['two of three pauses (fleet of three is guarded)', [[3, 2, 0]], ['paused']],
    ['one of two does not pause (fleet below the minimum size)', [[2, 1, 0]], ['normal']],
    ['both of two pause: nowhere to move to', [[2, 2, 0]], ['paused']],
    ['a lone cluster down pauses', [[1, 1, 0]], ['paused']],
    [
      'dropping into the band between the thresholds keeps the pause',
      [
        [10, 6, 0],
        [10, 5, 1_000],
        [10, 5, 120_000],
      ],
      ['paused', 'paused', 'paused'],
    ],
    [
      'below the resume threshold, resumes only after 60s of calm',
      [
        [10, 6, 0],
        [10, 4, 1_000],
        [10, 4, 60_999],
        [10, 4, 61_000],
      ],
      ['paused', 'paused', 'paused', 'normal'],
    ],
    [
      'a relapse during the calm period restarts it',
      [
        [10, 6, 0],
        [10, 4, 1_000],
        [10, 5, 30_000],
        [10, 4, 40_000],
        [10, 4, 61_000],
        [10, 4, 100_000],
      ],
      ['paused', 'paused', 'paused', 'paused', 'paused', 'normal'],
    ],
    [
      'a small fleet resumes once not every cluster is down, after the calm period',
      [
        [2, 2, 0],
        [2, 1, 10_000],
        [2, 1, 70_000],
      ],
      ['paused', 'paused', 'normal'],
    ],
    [
      'clusters leaving the fleet count: the share is recomputed',
      [
        [10, 6, 0],
        [20, 6, 1_000],
        [20, 6, 61_000],
      ],
      ['paused', 'paused', 'normal'],
    ],
  ])('%s', (_name, steps, expected) => {
    expect(run(steps)).toEqual(expected);
  });

  it('says why, with the numbers and the first names by name order', () => {
    const members = [...fleet(10, 7)].reverse();
    const d = decideFleetMode(members, INITIAL_FLEET_GUARD_STATE, 0, DEFAULT_FLEET_GUARD);
    expect(d.changed).toBe(true);
    expect(d.reason).toBe(
      'Evictions paused: 7 of 10 clusters (70%) are not ready, at or above the 55% threshold; ' +
        'so many at once more likely means the control plane lost sight of them ' +
        '(not ready: c00, c01, c02, c03, c04 and 2 more). ' +
        'Evictions resume once fewer than 45% are not ready for 60s.',
    );
  });

  it.each<[string, FleetMember[], FleetGuardState, number, string]>([
    [
      'normal',
      fleet(10, 1),
      { mode: 'normal' },
      0,
      'Evictions proceed: 1 of 10 clusters (10%) is not ready, below the 55% threshold.',
    ],
    [
      'small fleet',
      fleet(2, 1),
      { mode: 'normal' },
      0,
      'Evictions proceed: 1 of 2 clusters (50%) is not ready; a fleet of fewer than 3 clusters is only paused when every cluster is not ready.',
    ],
    [
      'all down',
      fleet(2, 2),
      { mode: 'normal' },
      0,
      'Evictions paused: all 2 clusters are not ready, so there is nowhere to move workloads to (not ready: c00, c01).',
    ],
    [
      'in the band',
      fleet(10, 5),
      { mode: 'paused' },
      0,
      'Evictions stay paused: 5 of 10 clusters (50%) are not ready, below the 55% threshold but not yet below 45% (not ready: c00, c01, c02, c03, c04).',
    ],
    [
      'calming',
      fleet(3, 0),
      { mode: 'paused', calmSinceMs: 0 },
      15_500,
      'Evictions stay paused: 0 of 3 clusters (0%) are not ready, below 45%; they resume in 45s if it stays that way.',
    ],
    [
      'resumed',
      fleet(3, 1),
      { mode: 'paused', calmSinceMs: 0 },
      60_000,
      'Evictions resumed: 1 of 3 clusters (33.3%) is not ready, below 45% for 60s.',
    ],
  ])('reason when %s', (...[, members, state, now, reason]) => {
    expect(decideFleetMode(members, state, now, DEFAULT_FLEET_GUARD).reason).toBe(reason);
  });

  it('asks to be woken when the calm period would end', () => {
    const d = decideFleetMode(
      fleet(10, 2),
      { mode: 'paused', calmSinceMs: 5_000 },
      20_000,
      DEFAULT_FLEET_GUARD,
    );
    expect(d).toMatchObject({
      state: { mode: 'paused', calmSinceMs: 5_000 },
      changed: false,
      recheckInMs: 45_000,
    });
  });

  const step = fc.tuple(
    fc.integer({ min: 0, max: 12 }),
    fc.integer({ min: 0, max: 12 }),
    fc.integer({ min: 0, max: 30_000 }),
  );

  it('never resumes sooner than the calm period after pausing, and at most one transition per step', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let state: FleetGuardState = INITIAL_FLEET_GUARD_STATE;
        let now = 0;
        let pausedAt: number | undefined;
        for (const [total, downRaw, gap] of steps) {
          now += gap;
          const d = decideFleetMode(fleet(total, Math.min(downRaw, total)), state, now, DEFAULT_FLEET_GUARD);
          expect(d.changed).toBe(d.state.mode !== state.mode);
          if (d.changed && d.state.mode === 'paused') pausedAt = now;
          if (d.changed && d.state.mode === 'normal') {
            expect(now - (pausedAt ?? 0)).toBeGreaterThanOrEqual(DEFAULT_FLEET_GUARD.resumeAfterMs);
          }
          state = d.state;
        }
      }),
    );
  });

  it('always pauses when every cluster is down', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.constantFrom<FleetGuardState>({ mode: 'normal' }, { mode: 'paused', calmSinceMs: 0 }),
        (total, state) => {
          expect(decideFleetMode(fleet(total, total), state, 1e9, DEFAULT_FLEET_GUARD).state.mode).toBe(
            'paused',
          );
        },
      ),
    );
  });
});
