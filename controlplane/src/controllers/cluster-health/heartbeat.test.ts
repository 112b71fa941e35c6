import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTime, type ClusterCondition, type ConditionStatus } from '@kf/api';
import { DEFAULT_HEARTBEAT_GRACE, judgeHeartbeat, type HeartbeatInput } from './heartbeat.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const s = (seconds: number): number => T0 + seconds * 1000;
const ready = (status: ConditionStatus, atSeconds?: number): ClusterCondition => ({
  type: 'Ready',
  status,
  reason: 'R',
  ...(atSeconds === undefined ? {} : { lastTransitionTime: formatTime(s(atSeconds)) }),
});

const pull = (over: Partial<HeartbeatInput>): HeartbeatInput => ({
  syncMode: 'Pull',
  createdAtMs: s(0),
  ready: undefined,
  renewedAtMs: undefined,
  nowMs: s(0),
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
      'Push clusters are never judged, however old their status',
      { syncMode: 'Push', ready: ready('True', 0), nowMs: s(3600) },
      { kind: 'unmonitored' },
    ],
    [
      'a new cluster without status is fresh for the startup grace period',
      { nowMs: s(10) },
      { kind: 'fresh', lastSeenAtMs: s(0), expiresInMs: 50_000 },
    ],
    [
      'a new cluster without status one millisecond before the startup grace ends is fresh',
      { nowMs: s(60) - 1 },
      { kind: 'fresh', lastSeenAtMs: s(0), expiresInMs: 1 },
    ],
    [
      'a cluster that never posted status gets Ready=Unknown ClusterStatusNeverUpdated at 60s',
      { nowMs: s(60) },
      { kind: 'expired', silentForMs: 60_000, patch: neverUpdated },
    ],
    [
      'a Lease renewal without any status keeps a cluster fresh (as upstream)',
      { renewedAtMs: s(300), nowMs: s(330) },
      { kind: 'fresh', lastSeenAtMs: s(300), expiresInMs: 30_000 },
    ],
    [
      'a cluster with Ready uses the monitor grace from the last renewal',
      { ready: ready('True', 5), renewedAtMs: s(100), nowMs: s(120) },
      { kind: 'fresh', lastSeenAtMs: s(100), expiresInMs: 20_000 },
    ],
    [
      'Ready=True turns Unknown exactly 40s after the last renewal',
      { ready: ready('True', 5), renewedAtMs: s(100), nowMs: s(140) },
      { kind: 'expired', silentForMs: 40_000, patch: stoppedPosting },
    ],
    [
      'Ready=False turns Unknown too (the agent stopped posting)',
      { ready: ready('False', 5), renewedAtMs: s(100), nowMs: s(150) },
      { kind: 'expired', silentForMs: 50_000, patch: stoppedPosting },
    ],
    [
      'an already Unknown Ready is not written again',
      { ready: ready('Unknown', 140), renewedAtMs: s(100), nowMs: s(200) },
      { kind: 'expired', silentForMs: 100_000 },
    ],
    [
      'the Unknown this rule wrote is not a sign of life',
      { ready: ready('Unknown', 140), renewedAtMs: s(100), nowMs: s(141) },
      { kind: 'expired', silentForMs: 41_000 },
    ],
    [
      'a returning agent renews the Lease: fresh again while Ready is still Unknown',
      { ready: ready('Unknown', 140), renewedAtMs: s(500), nowMs: s(501) },
      { kind: 'fresh', lastSeenAtMs: s(500), expiresInMs: 39_000 },
    ],
    [
      'without a Lease, a status post counts as a sign of life',
      { ready: ready('True', 100), nowMs: s(130) },
      { kind: 'fresh', lastSeenAtMs: s(100), expiresInMs: 10_000 },
    ],
    [
      'without a Lease and with an old status, Ready turns Unknown',
      { ready: ready('True', 100), nowMs: s(140) },
      { kind: 'expired', silentForMs: 40_000, patch: stoppedPosting },
    ],
    [
      'a status post newer than the Lease renewal wins',
      { ready: ready('False', 130), renewedAtMs: s(100), nowMs: s(150) },
      { kind: 'fresh', lastSeenAtMs: s(130), expiresInMs: 20_000 },
    ],
    [
      'a Ready condition without lastTransitionTime falls back to the Lease',
      { ready: ready('True'), renewedAtMs: s(100), nowMs: s(139) },
      { kind: 'fresh', lastSeenAtMs: s(100), expiresInMs: 1_000 },
    ],
    [
      'no sign of life at all: expired at once, silence unknown',
      { createdAtMs: undefined, nowMs: s(0) },
      { kind: 'expired', patch: neverUpdated },
    ],
    [
      'after a restart, a cluster whose Lease aged while nobody watched gets a full grace from first sight',
      { ready: ready('True', 5), renewedAtMs: s(100), firstSeenAtMs: s(232), nowMs: s(232) },
      { kind: 'fresh', lastSeenAtMs: s(232), expiresInMs: 40_000 },
    ],
    [
      'after a restart, the grace from first sight ends like any other',
      { ready: ready('True', 5), renewedAtMs: s(100), firstSeenAtMs: s(232), nowMs: s(272) },
      { kind: 'expired', silentForMs: 40_000, patch: stoppedPosting },
    ],
    [
      'after a restart, a stale Unknown is not written again but the cluster is still given its grace',
      { ready: ready('Unknown', 140), renewedAtMs: s(100), firstSeenAtMs: s(300), nowMs: s(310) },
      { kind: 'fresh', lastSeenAtMs: s(300), expiresInMs: 30_000 },
    ],
    [
      'a renewal after first sight counts from the renewal',
      { ready: ready('True', 5), renewedAtMs: s(240), firstSeenAtMs: s(232), nowMs: s(250) },
      { kind: 'fresh', lastSeenAtMs: s(240), expiresInMs: 30_000 },
    ],
    [
      'a renewal stamped ahead of the control-plane clock extends freshness by the skew',
      { ready: ready('True', 0), renewedAtMs: s(110), nowMs: s(100) },
      { kind: 'fresh', lastSeenAtMs: s(110), expiresInMs: 50_000 },
    ],
  ])('%s', (_name, over, expected) => {
    expect(judgeHeartbeat(pull(over), DEFAULT_HEARTBEAT_GRACE)).toEqual(expected);
  });

  it('honours configured grace periods', () => {
    const grace = { monitorGracePeriodMs: 5_000, startupGracePeriodMs: 7_000 };
    expect(judgeHeartbeat(pull({ nowMs: s(7) }), grace)).toMatchObject({ kind: 'expired' });
    expect(judgeHeartbeat(pull({ ready: ready('True', 1), nowMs: s(5) }), grace)).toMatchObject({
      kind: 'fresh',
      expiresInMs: 1_000,
    });
  });

  const ms = fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined });
  const arbitraryReady = fc
    .record({ status: fc.constantFrom<ConditionStatus>('True', 'False', 'Unknown'), atMs: ms })
    .map(({ status, atMs }): ClusterCondition => ({
      type: 'Ready',
      status,
      ...(atMs === undefined ? {} : { lastTransitionTime: formatTime(atMs) }),
    }));
  const arbitraryInput = fc.record<HeartbeatInput>({
    syncMode: fc.constant('Pull'),
    createdAtMs: ms,
    renewedAtMs: ms,
    firstSeenAtMs: ms,
    ready: fc.option(arbitraryReady, { nil: undefined }),
    nowMs: fc.integer({ min: 0, max: 2_000_000 }),
  });

  it('expires exactly when a fresh verdict said it would: no sooner, no later', () => {
    fc.assert(
      fc.property(arbitraryInput, (input) => {
        const verdict = judgeHeartbeat(input, DEFAULT_HEARTBEAT_GRACE);
        if (verdict.kind !== 'fresh') return;
        expect(verdict.expiresInMs).toBeGreaterThan(0);
        const at = input.nowMs + verdict.expiresInMs;
        expect(judgeHeartbeat({ ...input, nowMs: at - 1 }, DEFAULT_HEARTBEAT_GRACE).kind).toBe('fresh');
        expect(judgeHeartbeat({ ...input, nowMs: at }, DEFAULT_HEARTBEAT_GRACE).kind).toBe('expired');
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
