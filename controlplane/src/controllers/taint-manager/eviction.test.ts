import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTime, type Taint, type Toleration } from '@kf/api';
import { judgeEviction, type EvictionInput, type EvictionVerdict } from './eviction.ts';

// Cluster m1 tainted not-ready:NoExecute at 10:00:00; unless a case says otherwise, judged 1 s later.
const T0 = Date.parse('2026-11-20T10:00:00Z');
const s = (seconds: number): number => T0 + seconds * 1000;
const taint = (key: string, addedSeconds?: number): Taint => ({
  key,
  effect: 'NoExecute',
  ...(addedSeconds === undefined ? {} : { timeAdded: formatTime(s(addedSeconds)) }),
});
const A = taint('cluster.karmada.io/not-ready', 0);
const B = taint('example.com/b', 120);
const schedule: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' };
const exists = (key: string, seconds?: number, effect: Toleration['effect'] = 'NoExecute'): Toleration => ({
  key,
  operator: 'Exists',
  effect,
  ...(seconds === undefined ? {} : { tolerationSeconds: seconds }),
});

const input = (over: Partial<EvictionInput>): EvictionInput => ({
  clusterName: 'm1',
  boundClusters: [
    { name: 'm1', replicas: 5 },
    { name: 'm2', replicas: 3 },
  ],
  taints: [A],
  tolerations: [],
  nowMs: s(1),
  ...over,
});

describe('judgeEviction', () => {
  it.each<[string, Partial<EvictionInput>, EvictionVerdict]>([
    ['no tolerations: evicted now', {}, { kind: 'evictNow', untolerated: [A] }],
    [
      'tolerated for 300s: evicted at 10:05:00',
      { tolerations: [exists(A.key, 300)] },
      { kind: 'evictAt', atMs: s(300), inMs: 299_000, taint: A },
    ],
    [
      'tolerated without seconds: never evicted',
      { tolerations: [exists(A.key)] },
      { kind: 'keep', reason: 'ToleratedForever' },
    ],
    [
      'empty key Exists tolerates everything forever',
      { tolerations: [{ operator: 'Exists' }] },
      { kind: 'keep', reason: 'ToleratedForever' },
    ],
    [
      'a NoSchedule toleration does not tolerate NoExecute',
      { tolerations: [exists(A.key, undefined, 'NoSchedule')] },
      { kind: 'evictNow', untolerated: [A] },
    ],
    [
      'two taints: the earliest deadline wins (A 600s, B 60s → 10:03)',
      { taints: [A, B], tolerations: [exists(A.key, 600), exists(B.key, 60)] },
      { kind: 'evictAt', atMs: s(180), inMs: 179_000, taint: B },
    ],
    [
      'one of two taints untolerated: evicted now',
      { taints: [A, B], tolerations: [exists(A.key, 600)] },
      { kind: 'evictNow', untolerated: [B] },
    ],
    [
      'deadline reached exactly: evicted now',
      { tolerations: [exists(A.key, 300)], nowMs: s(300) },
      { kind: 'evictNow', untolerated: [] },
    ],
    [
      'deadline passed: evicted now',
      { tolerations: [exists(A.key, 300)], nowMs: s(900) },
      { kind: 'evictNow', untolerated: [] },
    ],
    [
      'tolerationSeconds 0: evicted now',
      { tolerations: [exists(A.key, 0)] },
      { kind: 'evictNow', untolerated: [] },
    ],
    [
      'negative tolerationSeconds: evicted now',
      { tolerations: [exists(A.key, -10)] },
      { kind: 'evictNow', untolerated: [] },
    ],
    ['only NoSchedule taints: kept', { taints: [schedule] }, { kind: 'keep', reason: 'NoNoExecuteTaint' }],
    ['no taints: kept', { taints: undefined }, { kind: 'keep', reason: 'NoNoExecuteTaint' }],
    [
      'cluster not in spec.clusters: kept',
      { boundClusters: [{ name: 'm2' }] },
      { kind: 'keep', reason: 'NotBound' },
    ],
    ['binding without clusters: kept', { boundClusters: undefined }, { kind: 'keep', reason: 'NotBound' }],
    [
      'a taint without timeAdded starts no timer (as upstream)',
      { taints: [taint(A.key)], tolerations: [exists(A.key, 30)] },
      { kind: 'keep', reason: 'ToleratedForever' },
    ],
    [
      'the first matching toleration times a taint (Kubernetes rule)',
      { tolerations: [exists(A.key, 30), exists(A.key)] },
      { kind: 'evictAt', atMs: s(30), inMs: 29_000, taint: A },
    ],
    [
      'differs from upstream: a toleration used for B does not also time A, which another tolerates forever',
      { taints: [A, B], tolerations: [exists(A.key), { operator: 'Exists', tolerationSeconds: 60 }] },
      { kind: 'evictAt', atMs: s(180), inMs: 179_000, taint: B },
    ],
  ])('%s', (_name, over, expected) => {
    expect(judgeEviction(input(over))).toEqual(expected);
  });

  it('an evictAt verdict turns into evictNow exactly at its time', () => {
    const toleration = fc.record<Toleration>({
      key: fc.constantFrom(A.key, B.key, ''),
      operator: fc.constant('Exists'),
      tolerationSeconds: fc.integer({ min: -5, max: 900 }),
    });
    fc.assert(
      fc.property(
        fc.array(toleration, { maxLength: 3 }),
        fc.integer({ min: 0, max: 1_000 }),
        (tolerations, now) => {
          const base = input({ taints: [A, B], tolerations, nowMs: s(now) });
          const verdict = judgeEviction(base);
          if (verdict.kind !== 'evictAt') return;
          expect(verdict.inMs).toBeGreaterThan(0);
          expect(judgeEviction({ ...base, nowMs: verdict.atMs - 1 }).kind).toBe('evictAt');
          expect(judgeEviction({ ...base, nowMs: verdict.atMs })).toEqual({
            kind: 'evictNow',
            untolerated: [],
          });
        },
      ),
    );
  });
});
