import { describe, expect, it } from 'vitest';
import type { LeaseSpec } from './lease.ts';
import { judgeLease, planLeaseRelease, planLeaseSpec, type LeaseObservation } from './lease-claim.ts';

const ME = 'me';
const held = (holder: string, renewTime = 't1', extra: LeaseSpec = {}): LeaseSpec => ({
  holderIdentity: holder,
  leaseDurationSeconds: 15,
  acquireTime: 't0',
  renewTime,
  leaseTransitions: 3,
  ...extra,
});
const seen = (record: LeaseSpec, observedAtMs: number): LeaseObservation => ({ record, observedAtMs });

describe('judgeLease', () => {
  interface Row {
    readonly name: string;
    readonly current: LeaseSpec | undefined;
    readonly previous?: LeaseObservation;
    readonly nowMs: number;
    readonly expected: string;
  }
  it.each<Row>([
    { name: 'creates a missing lease', current: undefined, nowMs: 0, expected: 'create' },
    { name: 'renews its own lease', current: held(ME), nowMs: 0, expected: 'renew' },
    {
      name: 'renews its own lease even when it looks expired',
      current: held(ME),
      previous: seen(held(ME), 0),
      nowMs: 60_000,
      expected: 'renew',
    },
    { name: 'takes over a released lease at once', current: held(''), nowMs: 0, expected: 'takeover' },
    { name: 'takes over a lease without holder field', current: {}, nowMs: 0, expected: 'takeover' },
    {
      name: 'waits on a lease seen for the first time',
      current: held('other'),
      nowMs: 1_000_000,
      expected: 'wait',
    },
    {
      name: 'waits while the record changes',
      current: held('other', 't2'),
      previous: seen(held('other', 't1'), 0),
      nowMs: 20_000,
      expected: 'wait',
    },
    {
      name: 'waits until the duration passed since first seen',
      current: held('other'),
      previous: seen(held('other'), 1_000),
      nowMs: 15_999,
      expected: 'wait',
    },
    {
      name: 'takes over once the record was unchanged for the duration',
      current: held('other'),
      previous: seen(held('other'), 1_000),
      nowMs: 16_000,
      expected: 'takeover',
    },
    {
      name: "uses the holder's duration, not ours",
      current: held('other', 't1', { leaseDurationSeconds: 60 }),
      previous: seen(held('other', 't1', { leaseDurationSeconds: 60 }), 0),
      nowMs: 59_999,
      expected: 'wait',
    },
    {
      name: 'falls back to the default duration',
      current: { holderIdentity: 'other' },
      previous: seen({ holderIdentity: 'other' }, 0),
      nowMs: 10_000,
      expected: 'takeover',
    },
    {
      name: 'restarts the clock when only the transitions changed',
      current: held('other', 't1', { leaseTransitions: 4 }),
      previous: seen(held('other'), 0),
      nowMs: 20_000,
      expected: 'wait',
    },
  ])('$name', ({ current, previous, nowMs, expected }) => {
    const v = judgeLease({ current, previous, identity: ME, nowMs, defaultLeaseDurationMs: 10_000 });
    expect(v.kind).toBe(expected);
  });

  it('keeps the first observation time while the record is unchanged', () => {
    const v = judgeLease({
      current: held('other'),
      previous: seen(held('other'), 1_000),
      identity: ME,
      nowMs: 5_000,
      defaultLeaseDurationMs: 15_000,
    });
    expect(v).toEqual({
      kind: 'wait',
      holder: 'other',
      expiresInMs: 11_000,
      observation: seen(held('other'), 1_000),
    });
  });

  it('notes a changed record at the current time', () => {
    const v = judgeLease({
      current: held('other', 't2'),
      previous: seen(held('other', 't1'), 1_000),
      identity: ME,
      nowMs: 5_000,
      defaultLeaseDurationMs: 15_000,
    });
    expect(v.kind === 'create' ? undefined : v.observation.observedAtMs).toBe(5_000);
  });
});

describe('planLeaseSpec', () => {
  const claim = { identity: ME, leaseDurationSeconds: 15, nowMs: Date.UTC(2026, 0, 1, 0, 0, 0, 250) };
  const now = '2026-01-01T00:00:00.250000Z';

  it('creates with zero transitions', () => {
    expect(planLeaseSpec('create', undefined, claim)).toEqual({
      holderIdentity: ME,
      leaseDurationSeconds: 15,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    });
  });

  it('renewing keeps acquireTime and transitions', () => {
    expect(planLeaseSpec('renew', held(ME), claim)).toEqual({
      holderIdentity: ME,
      leaseDurationSeconds: 15,
      acquireTime: 't0',
      renewTime: now,
      leaseTransitions: 3,
    });
  });

  it('taking over sets acquireTime and counts a transition', () => {
    expect(planLeaseSpec('takeover', held('other'), claim)).toEqual({
      holderIdentity: ME,
      leaseDurationSeconds: 15,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 4,
    });
  });

  it('keeps fields it does not manage', () => {
    const spec = planLeaseSpec(
      'takeover',
      { ...held('other'), strategy: 'OldestEmulationVersion' } as LeaseSpec,
      claim,
    );
    expect(spec).toMatchObject({ strategy: 'OldestEmulationVersion' });
  });

  it('writes MicroTime strings with six fractional digits', () => {
    const spec = planLeaseSpec('create', undefined, claim);
    expect(spec.renewTime).toMatch(/\.\d{6}Z$/);
    expect(spec.acquireTime).toMatch(/\.\d{6}Z$/);
  });
});

describe('planLeaseRelease', () => {
  it('empties the holder, shortens the duration to 1 s and keeps transitions', () => {
    const nowMs = Date.UTC(2026, 0, 1);
    expect(planLeaseRelease(held(ME), nowMs)).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: '2026-01-01T00:00:00.000000Z',
      renewTime: '2026-01-01T00:00:00.000000Z',
      leaseTransitions: 3,
    });
  });

  it('lets any candidate take over at once', () => {
    const released = planLeaseRelease(held(ME), 0);
    const v = judgeLease({
      current: released,
      previous: undefined,
      identity: 'other',
      nowMs: 0,
      defaultLeaseDurationMs: 15_000,
    });
    expect(v.kind).toBe('takeover');
  });
});
