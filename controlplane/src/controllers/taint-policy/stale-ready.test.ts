import { describe, expect, it } from 'vitest';
import type { ClusterCondition, ConditionStatus } from '@kf/api';
import { judgeStaleReady, type StaleReadyInput } from './stale-ready.ts';

const ready = (status: ConditionStatus): ClusterCondition => ({ type: 'Ready', status });

const input = (over: Partial<StaleReadyInput>): StaleReadyInput => ({
  syncMode: 'Pull',
  ready: ready('Unknown'),
  silentForMs: undefined,
  graceMs: 40_000,
  ...over,
});

describe('judgeStaleReady', () => {
  it.each<[string, Partial<StaleReadyInput>, unknown]>([
    [
      'Unknown with a sign of life a second ago is stale for the rest of the grace period',
      { silentForMs: 1_000 },
      { kind: 'stale-unknown', silentForMs: 1_000, freshForMs: 39_000 },
    ],
    [
      'Unknown silent for exactly one grace period is a failure',
      { silentForMs: 40_000 },
      { kind: 'as-reported' },
    ],
    [
      'Unknown silent one millisecond less than the grace period is stale',
      { silentForMs: 39_999 },
      { kind: 'stale-unknown', silentForMs: 39_999, freshForMs: 1 },
    ],
    ['Unknown without any look at the cluster is a failure', {}, { kind: 'as-reported' }],
    [
      'Unknown seen just now for the first time (a restarted control plane) is stale',
      { silentForMs: 0 },
      { kind: 'stale-unknown', silentForMs: 0, freshForMs: 40_000 },
    ],
    [
      'False from the agent is a real failure, however recent the sign of life',
      { ready: ready('False'), silentForMs: 1_000 },
      { kind: 'as-reported' },
    ],
    ['True is taken as it is', { ready: ready('True'), silentForMs: 1_000 }, { kind: 'as-reported' }],
    ['no Ready at all is taken as it is', { ready: undefined, silentForMs: 1_000 }, { kind: 'as-reported' }],
    [
      'Push clusters have no Lease: their Unknown is taken as it is',
      { syncMode: 'Push', silentForMs: 1_000 },
      { kind: 'as-reported' },
    ],
  ])('%s', (_name, over, expected) => {
    expect(judgeStaleReady(input(over))).toEqual(expected);
  });
});
