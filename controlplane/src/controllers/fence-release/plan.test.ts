import { describe, expect, it } from 'vitest';
import { annotations, finalizers, type Work } from '@kf/api';
import type { Lease } from '@kf/kube';
import { decideRelease, LeaseSightings, requiredSilenceMs, type LeaseSighting } from './plan.ts';

type Conditions = readonly { type: string; status: 'True' | 'False' }[];
const work = (
  opts: { deleting?: boolean; finalizer?: boolean; fence?: string; conditions?: Conditions } = {},
): Work => ({
  metadata: {
    name: 'web-x',
    namespace: 'karmada-es-member1',
    uid: 'w-1',
    ...(opts.deleting === false ? {} : { deletionTimestamp: '2026-11-26T00:00:00Z' }),
    finalizers: opts.finalizer === false ? [] : [finalizers.executionController],
    annotations: opts.fence === undefined ? {} : { [annotations.fenceAfterSeconds]: opts.fence },
  },
  spec: {},
  status: {
    conditions: (opts.conditions ?? []).map((c) => ({
      ...c,
      reason: 'R',
      message: '',
      lastTransitionTime: '',
    })),
  },
});
const lease = (rv: string, seconds?: number): Lease => ({
  metadata: { name: 'member1', namespace: 'karmada-cluster', resourceVersion: rv },
  spec: { ...(seconds === undefined ? {} : { leaseDurationSeconds: seconds }) },
});
const seen = (sinceMono: number, leaseDurationMs?: number): LeaseSighting => ({
  resourceVersion: '7',
  sinceMono,
  ...(leaseDurationMs === undefined ? {} : { leaseDurationMs }),
});
const MARGIN = 5_000;

describe('requiredSilenceMs', () => {
  it('is the fence timeout + the Lease duration + the margin', () => {
    expect(requiredSilenceMs(30, 40_000, 45_000)).toBe(115_000);
  });
});

describe('decideRelease', () => {
  // fence 30 s + Lease 40 s + margin 5 s = 75 s of silence needed.
  it.each([
    ['not deleting', work({ deleting: false, fence: '30' })],
    ['finalizer gone already', work({ finalizer: false, fence: '30' })],
    ['no fence timeout', work()],
    ['an invalid fence timeout', work({ fence: '30s' })],
  ])('leaves a Work alone when %s', (_, w) => {
    expect(decideRelease({ work: w, sighting: seen(0, 40_000), marginMs: MARGIN, nowMono: 1e9 })).toEqual({
      kind: 'none',
    });
  });

  it.each([
    [
      'applied, the fence armed',
      [
        { type: 'Applied', status: 'True' },
        { type: 'FenceArmed', status: 'True' },
      ],
      'verify',
    ],
    ['never applied', [], 'verify'],
    [
      'applied, nothing said of a fence (an agent that does not fence)',
      [{ type: 'Applied', status: 'True' }],
      'unprovable',
    ],
    [
      'applied, the fence disarmed',
      [
        { type: 'Applied', status: 'True' },
        { type: 'FenceArmed', status: 'False' },
      ],
      'unprovable',
    ],
  ] as const)('releases only a Work whose copies are known fenced: %s', (_, conditions, kind) => {
    const w = work({ fence: '30', conditions });
    expect(decideRelease({ work: w, sighting: seen(0, 40_000), marginMs: MARGIN, nowMono: 1e9 }).kind).toBe(
      kind,
    );
  });

  it('never releases without a Lease, or without its duration', () => {
    const w = work({ fence: '30' });
    expect(decideRelease({ work: w, sighting: undefined, marginMs: MARGIN, nowMono: 1e9 }).kind).toBe(
      'unprovable',
    );
    expect(
      decideRelease({
        work: w,
        sighting: { resourceVersion: 'absent', sinceMono: 0 },
        marginMs: MARGIN,
        nowMono: 1e9,
      }).kind,
    ).toBe('unprovable');
    expect(decideRelease({ work: w, sighting: seen(0), marginMs: MARGIN, nowMono: 1e9 }).kind).toBe(
      'unprovable',
    );
  });

  it.each([
    [0, { kind: 'wait', inMs: 75_000 }],
    [74_999, { kind: 'wait', inMs: 1 }],
    [75_000, { kind: 'verify', resourceVersion: '7', silentMs: 75_000 }],
    [200_000, { kind: 'verify', resourceVersion: '7', silentMs: 200_000 }],
  ])('after %d ms of silence: %j', (silentMs, decision) => {
    const w = work({ fence: '30' });
    expect(
      decideRelease({ work: w, sighting: seen(1_000, 40_000), marginMs: MARGIN, nowMono: 1_000 + silentMs }),
    ).toEqual(decision);
  });
});

describe('LeaseSightings', () => {
  it('counts silence from the first sight of a resourceVersion; a change starts it over', () => {
    const s = new LeaseSightings();
    expect(s.observe('member1', lease('7', 40), 100)).toEqual({
      resourceVersion: '7',
      sinceMono: 100,
      leaseDurationMs: 40_000,
    });
    // The same version seen later: the silence still counts from 100.
    expect(s.observe('member1', lease('7', 40), 900).sinceMono).toBe(100);
    expect(s.observe('member1', lease('8', 40), 1_000).sinceMono).toBe(1_000);
    expect(s.get('member1')?.resourceVersion).toBe('8');
  });

  it('treats a Lease that vanished as a change, and its return as another', () => {
    const s = new LeaseSightings();
    s.observe('member1', lease('7', 40), 100);
    expect(s.observe('member1', undefined, 200)).toEqual({ resourceVersion: 'absent', sinceMono: 200 });
    expect(s.observe('member1', lease('7', 40), 300).sinceMono).toBe(300);
  });

  it('keeps clusters apart', () => {
    const s = new LeaseSightings();
    s.observe('member1', lease('7', 40), 100);
    s.observe('member2', lease('7', 40), 500);
    expect(s.get('member1')?.sinceMono).toBe(100);
    expect(s.get('member2')?.sinceMono).toBe(500);
  });
});
