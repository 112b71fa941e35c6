import { describe, expect, it } from 'vitest';
import type { Cluster, ClusterCondition, Taint } from '@kf/api';
import { judgeSteadiness, SteadinessTracker, type Steadiness } from './steadiness.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const s = (seconds: number): number => T0 + seconds * 1000;
const GRACE_MS = 40_000;
const STEADY: Steadiness = { steady: true };
const UNSTEADY: Steadiness = { steady: false, why: 'Ready is False' };

function cluster(
  opts: {
    ready?: ClusterCondition['status'] | 'absent';
    readySince?: string;
    taints?: readonly Taint[];
    deleting?: boolean;
  } = {},
): Cluster {
  const { ready = 'True', readySince = '2026-11-20T09:00:00Z', taints, deleting = false } = opts;
  return {
    metadata: {
      name: 'member1',
      ...(deleting ? { deletionTimestamp: '2026-11-20T09:59:00Z' } : {}),
    },
    spec: { syncMode: 'Pull', ...(taints === undefined ? {} : { taints }) },
    status: {
      conditions:
        ready === 'absent'
          ? [{ type: 'Other', status: 'True', reason: 'X', message: '', lastTransitionTime: readySince }]
          : [{ type: 'Ready', status: ready, reason: 'R', message: '', lastTransitionTime: readySince }],
    },
  };
}

describe('judgeSteadiness', () => {
  it('is steady: Ready True, no taint, not being deleted, Lease renewed within the grace period', () => {
    expect(judgeSteadiness(cluster(), 10_000, GRACE_MS)).toEqual({ steady: true });
    expect(judgeSteadiness(cluster({ taints: [] }), 10_000, GRACE_MS)).toEqual({ steady: true });
  });

  it.each<[string, Cluster, string]>([
    ['Ready False', cluster({ ready: 'False' }), 'Ready is False'],
    ['Ready Unknown', cluster({ ready: 'Unknown' }), 'Ready is Unknown'],
    ['no Ready condition', cluster({ ready: 'absent' }), 'Ready is absent'],
    ['no status', { ...cluster(), status: undefined } as unknown as Cluster, 'Ready is absent'],
    [
      'a NoSchedule taint',
      cluster({ taints: [{ key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule' }] }),
      'tainted cluster.karmada.io/unreachable:NoSchedule',
    ],
    [
      'a NoExecute taint',
      cluster({ taints: [{ key: 'example.com/maintenance', value: 'yes', effect: 'NoExecute' }] }),
      'tainted example.com/maintenance:NoExecute',
    ],
    ['being deleted', cluster({ deleting: true }), 'being deleted'],
    ['being deleted wins over Ready False', cluster({ deleting: true, ready: 'False' }), 'being deleted'],
    [
      'Ready Unknown wins over a taint',
      cluster({ ready: 'Unknown', taints: [{ key: 'k', effect: 'NoExecute' }] }),
      'Ready is Unknown',
    ],
  ])('is not steady with %s', (_name, c, why) => {
    expect(judgeSteadiness(c, 1_000, GRACE_MS)).toEqual({ steady: false, why });
  });

  it('is not steady when no sign of life was seen for longer than the grace period, saying for how many seconds', () => {
    expect(judgeSteadiness(cluster(), GRACE_MS + 1, GRACE_MS)).toEqual({
      steady: false,
      why: 'heartbeat Lease not renewed for 40 s',
    });
    expect(judgeSteadiness(cluster(), 95_900, GRACE_MS)).toEqual({
      steady: false,
      why: 'heartbeat Lease not renewed for 95 s',
    });
  });

  it('is steady when the silence lasts exactly the grace period', () => {
    expect(judgeSteadiness(cluster(), GRACE_MS, GRACE_MS)).toEqual({ steady: true });
  });

  it('is steady without a Lease (a Push cluster), however long ago anything was renewed', () => {
    expect(judgeSteadiness(cluster(), undefined, GRACE_MS)).toEqual({ steady: true });
  });

  it('says a tainted cluster is unsteady before looking at its Lease', () => {
    const tainted = cluster({ taints: [{ key: 'k', effect: 'NoSchedule' }] });
    expect(judgeSteadiness(tainted, 1_000_000, GRACE_MS)).toEqual({
      steady: false,
      why: 'tainted k:NoSchedule',
    });
  });
});

describe('SteadinessTracker', () => {
  it('counts a cluster seen for the first time from that look, not from its Ready transition', () => {
    const t = new SteadinessTracker();
    expect(t.observe('member1', STEADY, s(-3600), s(0))).toBe(s(0));
    expect(new SteadinessTracker().observe('member1', STEADY, undefined, s(5))).toBe(s(5));
  });

  it('keeps the earlier since on later steady looks', () => {
    const t = new SteadinessTracker();
    t.observe('member1', STEADY, s(-3600), s(0));
    expect(t.observe('member1', STEADY, s(-3600), s(30))).toBe(s(0));
    expect(t.observe('member1', STEADY, undefined, s(300))).toBe(s(0));
  });

  it('returns undefined for an unsteady look and counts again from the next steady look', () => {
    const t = new SteadinessTracker();
    t.observe('member1', STEADY, s(-3600), s(0));
    expect(t.observe('member1', UNSTEADY, s(-3600), s(10))).toBeUndefined();
    expect(t.observe('member1', STEADY, s(-3600), s(20))).toBe(s(20));
    expect(t.observe('member1', STEADY, s(-3600), s(40))).toBe(s(20));
  });

  it('moves since forward to a Ready transition after it: a flap between two looks', () => {
    const t = new SteadinessTracker();
    t.observe('member1', STEADY, s(-3600), s(0));
    // Ready went False and back to True at 15 s, between the looks at 0 s and 30 s.
    expect(t.observe('member1', STEADY, s(15), s(30))).toBe(s(15));
    expect(t.observe('member1', STEADY, s(15), s(60))).toBe(s(15));
    // A transition before the kept since changes nothing.
    expect(t.observe('member1', STEADY, s(10), s(90))).toBe(s(15));
  });

  it('keeps each cluster apart', () => {
    const t = new SteadinessTracker();
    t.observe('member1', STEADY, undefined, s(0));
    expect(t.observe('member2', STEADY, undefined, s(10))).toBe(s(10));
    t.observe('member2', UNSTEADY, undefined, s(20));
    expect(t.observe('member1', STEADY, undefined, s(30))).toBe(s(0));
  });

  it('forgets a cluster: the next look counts from then', () => {
    const t = new SteadinessTracker();
    t.observe('member1', STEADY, undefined, s(0));
    t.observe('member2', STEADY, undefined, s(0));
    t.forget('member1');
    expect(t.observe('member1', STEADY, undefined, s(50))).toBe(s(50));
    expect(t.observe('member2', STEADY, undefined, s(50))).toBe(s(0));
    t.forget('unknown'); // forgetting a cluster never seen is harmless
  });
});
