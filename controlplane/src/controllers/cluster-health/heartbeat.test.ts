import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterCondition, ConditionStatus } from '@kf/api';
import { DEFAULT_HEARTBEAT_GRACE, judgeHeartbeat, type HeartbeatInput } from './heartbeat.ts';

const ready = (status: ConditionStatus): ClusterCondition => ({ type: 'Ready', status, reason: 'R' });

const pull = (over: Partial<HeartbeatInput>): HeartbeatInput => ({
  syncMode: 'Pull',
  ready: undefined,
  silentForMs: 0,
  ...over,
});

const neverUpdated = {
  type: 'Ready',
  status: 'Unknown',
  reason: 'ClusterStatusNeverUpdated',
  message: 'Cluster status controller never posted cluster status.',
};
const stoppedPosting = {
  type: 'Ready',
  status: 'Unknown',
  reason: 'ClusterStatusUnknown',
  message: 'Cluster status controller stopped posting cluster status.',
};

describe('judgeHeartbeat', () => {
  it.each<[string, Partial<HeartbeatInput>, unknown]>([
    [
      'Push clusters are never judged, however long their silence',
      { syncMode: 'Push', ready: ready('True'), silentForMs: 3_600_000 },
      { kind: 'unmonitored' },
    ],
    [
      'a cluster without status is fresh for the startup grace period',
      { silentForMs: 10_000 },
      { kind: 'fresh', expiresInMs: 50_000 },
    ],
    [
      'a cluster without status one millisecond before the startup grace ends is fresh',
      { silentForMs: 59_999 },
      { kind: 'fresh', expiresInMs: 1 },
    ],
    [
      'a cluster that never posted status gets Ready=Unknown ClusterStatusNeverUpdated at 60s',
      { silentForMs: 60_000 },
      { kind: 'expired', silentForMs: 60_000, patch: neverUpdated },
    ],
    [
      'a cluster with Ready uses the monitor grace',
      { ready: ready('True'), silentForMs: 20_000 },
      { kind: 'fresh', expiresInMs: 20_000 },
    ],
    [
      'Ready=True turns Unknown after exactly 40s of silence',
      { ready: ready('True'), silentForMs: 40_000 },
      { kind: 'expired', silentForMs: 40_000, patch: stoppedPosting },
    ],
    [
      'Ready=False turns Unknown too (the agent stopped posting)',
      { ready: ready('False'), silentForMs: 50_000 },
      { kind: 'expired', silentForMs: 50_000, patch: stoppedPosting },
    ],
    [
      'an already Unknown Ready is not written again',
      { ready: ready('Unknown'), silentForMs: 100_000 },
      { kind: 'expired', silentForMs: 100_000 },
    ],
    [
      'a returning agent is fresh again while Ready is still Unknown',
      { ready: ready('Unknown'), silentForMs: 1_000 },
      { kind: 'fresh', expiresInMs: 39_000 },
    ],
  ])('%s', (_name, over, expected) => {
    expect(judgeHeartbeat(pull(over), DEFAULT_HEARTBEAT_GRACE)).toEqual(expected);
  });

  it('honours configured grace periods', () => {
    const grace = { monitorGracePeriodMs: 5_000, startupGracePeriodMs: 7_000 };
    expect(judgeHeartbeat(pull({ silentForMs: 7_000 }), grace)).toMatchObject({ kind: 'expired' });
    expect(judgeHeartbeat(pull({ ready: ready('True'), silentForMs: 4_000 }), grace)).toMatchObject({
      kind: 'fresh',
      expiresInMs: 1_000,
    });
  });

  const arbitraryReady = fc
    .constantFrom<ConditionStatus>('True', 'False', 'Unknown')
    .map((status): ClusterCondition => ({ type: 'Ready', status }));
  const arbitraryInput = fc.record<HeartbeatInput>({
    syncMode: fc.constant('Pull'),
    ready: fc.option(arbitraryReady, { nil: undefined }),
    silentForMs: fc.integer({ min: 0, max: 2_000_000 }),
  });

  it('expires exactly when a fresh verdict said it would: no sooner, no later', () => {
    fc.assert(
      fc.property(arbitraryInput, (input) => {
        const verdict = judgeHeartbeat(input, DEFAULT_HEARTBEAT_GRACE);
        if (verdict.kind !== 'fresh') return;
        expect(verdict.expiresInMs).toBeGreaterThan(0);
        const at = input.silentForMs + verdict.expiresInMs;
        expect(judgeHeartbeat({ ...input, silentForMs: at - 1 }, DEFAULT_HEARTBEAT_GRACE).kind).toBe('fresh');
        expect(judgeHeartbeat({ ...input, silentForMs: at }, DEFAULT_HEARTBEAT_GRACE).kind).toBe('expired');
      }),
    );
  });

  it('writes a patch exactly when Ready is not already Unknown, always to Unknown', () => {
    fc.assert(
      fc.property(arbitraryInput, (input) => {
        const verdict = judgeHeartbeat(input, DEFAULT_HEARTBEAT_GRACE);
        if (verdict.kind !== 'expired') return;
        expect(verdict.patch === undefined).toBe(input.ready?.status === 'Unknown');
        if (verdict.patch !== undefined) expect(verdict.patch.status).toBe('Unknown');
      }),
    );
  });
});
