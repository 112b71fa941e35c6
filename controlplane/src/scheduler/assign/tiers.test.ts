import type { TargetCluster } from '@kf/api';
import { describe, expect, it } from 'vitest';
import type { Candidate } from '../candidate.ts';
import { fail, succeed } from '../outcome.ts';
import { candidate, replicasOf } from '../test-builders.ts';
import { assignByTiers, type TierAssigner } from './tiers.ts';

/** Records each call and fills clusters in order up to their room. */
function filler(calls: [number, string[]][]): TierAssigner {
  return (replicas, tier) => {
    calls.push([replicas, tier.map((c) => c.name)]);
    const out: TargetCluster[] = [];
    let left = replicas;
    for (const c of tier) {
      const r = Math.min(left, c.available);
      out.push({ name: c.name, replicas: r });
      left -= r;
    }
    return succeed(out);
  };
}

const tiers: Candidate[] = [
  candidate('own1', { overflowOrder: 0, allocatable: 3 }),
  candidate('burst1', { overflowOrder: 1, allocatable: 4 }),
  candidate('own2', { overflowOrder: 0, allocatable: 2 }),
  candidate('burst2', { overflowOrder: 2, allocatable: 10 }),
];

describe('assignByTiers', () => {
  it('fills the term own clusters first, then overflow tiers in order', () => {
    const calls: [number, string[]][] = [];
    const out = assignByTiers(8, tiers, filler(calls));
    expect(calls).toEqual([
      [5, ['own1', 'own2']],
      [3, ['burst1']],
    ]);
    expect(out.ok && replicasOf(out.value)).toEqual({ own1: 3, own2: 2, burst1: 3 });
  });

  it('stops once the replicas are placed, so later tiers get nothing', () => {
    const calls: [number, string[]][] = [];
    assignByTiers(4, tiers, filler(calls));
    expect(calls).toEqual([[4, ['own1', 'own2']]]);
  });

  it('is Unschedulable when all tiers together are too small', () => {
    expect(assignByTiers(50, tiers, filler([]))).toEqual(
      fail('Unschedulable', 'Clusters available replicas are not enough to schedule.'),
    );
  });

  it('passes a tier failure through', () => {
    const broken: TierAssigner = () => fail('Unschedulable', 'no room');
    expect(assignByTiers(3, tiers, broken)).toEqual(fail('Unschedulable', 'no room'));
  });
});
