import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Cluster } from '@kf/api';
import { DEFAULT_FLEET_GUARD } from './disruption.ts';
import { FleetGuard, fleetMemberOf } from './guard.ts';

const cluster = (
  name: string,
  ready: 'True' | 'False' | 'Unknown' | undefined,
  deleting = false,
): Cluster => ({
  metadata: { name, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  spec: { syncMode: 'Pull' },
  ...(ready === undefined ? {} : { status: { conditions: [{ type: 'Ready', status: ready }] } }),
});

describe('fleetMemberOf', () => {
  it.each([
    ['Ready=True', cluster('a', 'True'), true],
    ['Ready=False', cluster('a', 'False'), false],
    ['Ready=Unknown', cluster('a', 'Unknown'), false],
    ['no Ready', cluster('a', undefined), false],
    ['being deleted', cluster('a', 'True', true), false],
  ] as const)('%s → healthy %s', (_name, c, healthy) => {
    expect(fleetMemberOf(c).healthy).toBe(healthy);
  });
});

describe('FleetGuard', () => {
  it('pauses at the threshold, reports each transition once, and resumes after the calm period', () => {
    let fleet = [cluster('a', 'True'), cluster('b', 'True'), cluster('c', 'True')];
    const changes: boolean[] = [];
    const guard = new FleetGuard({
      clusters: () => fleet,
      config: {
        ...DEFAULT_FLEET_GUARD,
        pauseAtUnhealthyShare: 0.5,
        resumeBelowUnhealthyShare: 0.4,
        resumeAfterMs: 1_000,
      },
      log: pino({ level: 'silent' }),
      onPausedChange: (p) => changes.push(p),
    });
    expect(guard.check(0).paused).toBe(false);
    fleet = [cluster('a', 'Unknown'), cluster('b', 'False'), cluster('c', 'True')];
    expect(guard.check(1).paused).toBe(true);
    expect(guard.check(2).paused).toBe(true);
    fleet = [cluster('a', 'Unknown'), cluster('b', 'True'), cluster('c', 'True')];
    expect(guard.check(10)).toMatchObject({ paused: true, recheckInMs: 1_000 });
    expect(guard.check(1_010).paused).toBe(false);
    expect(changes).toEqual([true, false]);
  });
});
