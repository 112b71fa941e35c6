import { describe, expect, it } from 'vitest';
import type { ClusterCondition, ConditionStatus } from '@kf/api';
import { judgeStaleReady, type StaleReadyInput } from './stale-ready.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const s = (seconds: number): number => T0 + seconds * 1000;
const ready = (status: ConditionStatus): ClusterCondition => ({ type: 'Ready', status });

const input = (over: Partial<StaleReadyInput>): StaleReadyInput => ({
  syncMode: 'Pull',
  ready: ready('Unknown'),
  renewedAtMs: undefined,
  firstSeenAtMs: undefined,
  graceMs: 40_000,
  nowMs: s(100),
  ...over,
});

describe('judgeStaleReady', () => {
  it.each<[string, Partial<StaleReadyInput>, unknown]>([
    [
      'Unknown with a Lease renewed a second ago is stale for the rest of the grace period',
      { renewedAtMs: s(99) },
      { kind: 'stale-unknown', lastSeenAtMs: s(99), freshForMs: 39_000 },
    ],
    [
      'Unknown with a Lease renewed exactly one grace period ago is a failure',
      { renewedAtMs: s(60) },
      { kind: 'as-reported' },
    ],
    [
      'Unknown with a Lease renewed one millisecond inside the grace period is stale',
      { renewedAtMs: s(60) + 1 },
      { kind: 'stale-unknown', lastSeenAtMs: s(60) + 1, freshForMs: 1 },
    ],
    ['Unknown without a Lease nor first sight is a failure', {}, { kind: 'as-reported' }],
    [
      'a restarted control plane gives an old Unknown the grace period from first sight',
      { renewedAtMs: s(-500), firstSeenAtMs: s(95) },
      { kind: 'stale-unknown', lastSeenAtMs: s(95), freshForMs: 35_000 },
    ],
    [
      'after the grace from first sight an unrenewed Unknown is a failure',
      { renewedAtMs: s(-500), firstSeenAtMs: s(60) },
      { kind: 'as-reported' },
    ],
    [
      'False from the agent is a real failure, whatever the Lease',
      { ready: ready('False'), renewedAtMs: s(99) },
      { kind: 'as-reported' },
    ],
    ['True is taken as it is', { ready: ready('True'), renewedAtMs: s(99) }, { kind: 'as-reported' }],
    ['no Ready at all is taken as it is', { ready: undefined, renewedAtMs: s(99) }, { kind: 'as-reported' }],
    [
      'Push clusters have no Lease: their Unknown is taken as it is',
      { syncMode: 'Push', renewedAtMs: s(99) },
      { kind: 'as-reported' },
    ],
    [
      'a renewal stamped ahead of this clock extends the wait by the skew',
      { renewedAtMs: s(105) },
      { kind: 'stale-unknown', lastSeenAtMs: s(105), freshForMs: 45_000 },
    ],
  ])('%s', (_name, over, expected) => {
    expect(judgeStaleReady(input(over))).toEqual(expected);
  });
});
