import { describe, expect, it } from 'vitest';
import type { Cluster } from '@kf/api';
import {
  changeOf,
  firstMatchAt,
  isHealthy,
  readyAt,
  readyFirstAt,
  readyTransitions,
  taintsAdded,
  taintsHeld,
  timesReadyLeftTrue,
  type ClusterChange,
} from './cluster-history.ts';

const UNREACHABLE = 'cluster.karmada.io/unreachable:NoSchedule';

function cluster(ready: string | undefined, taints: readonly string[] = [], reason?: string): Cluster {
  return {
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name: 'member1' },
    spec: {
      syncMode: 'Pull',
      taints: taints.map((t) => {
        const [key = '', effect = ''] = t.split(':');
        return { key, effect: effect as 'NoSchedule' | 'NoExecute' };
      }),
    },
    ...(ready === undefined
      ? {}
      : {
          status: {
            conditions: [
              {
                type: 'Ready',
                status: ready,
                reason: reason ?? 'ClusterReady',
                message: '',
                lastTransitionTime: '2026-01-01T00:00:00Z',
              },
            ],
          },
        }),
  } as Cluster;
}

describe('changeOf', () => {
  it('records the first sight of a cluster', () => {
    expect(changeOf(undefined, cluster('True'), 5)).toEqual({
      atMs: 5,
      cluster: 'member1',
      ready: 'True',
      readyReason: 'ClusterReady',
      taints: [],
    });
  });

  it('ignores an update that changes neither Ready nor the taints', () => {
    const first = changeOf(undefined, cluster('True'), 5);
    expect(changeOf(first, cluster('True'), 6)).toBeUndefined();
  });

  it.each([
    ['Ready', cluster('Unknown', [], 'ClusterReady')],
    ['its reason', cluster('True', [], 'Other')],
    ['a taint', cluster('True', [UNREACHABLE])],
  ])('records a change of %s', (_what, next) => {
    const first = changeOf(undefined, cluster('True'), 5);
    expect(changeOf(first, next, 6)?.atMs).toBe(6);
  });

  it('says absent without a Ready condition, and sorts the taints', () => {
    const c = changeOf(undefined, cluster(undefined, ['b:NoSchedule', 'a:NoExecute']), 1);
    expect(c?.ready).toBe('absent');
    expect(c?.taints).toEqual(['a:NoExecute', 'b:NoSchedule']);
  });
});

/** member1's Ready flapping once at 10–11, then dead from 20; member2 interleaved. */
const history: ClusterChange[] = [
  { atMs: 0, cluster: 'member1', ready: 'True', taints: [] },
  { atMs: 1, cluster: 'member2', ready: 'Unknown', taints: [UNREACHABLE] },
  { atMs: 10, cluster: 'member1', ready: 'Unknown', taints: [] },
  { atMs: 10.5, cluster: 'member1', ready: 'Unknown', taints: [UNREACHABLE] },
  { atMs: 11, cluster: 'member1', ready: 'True', taints: [UNREACHABLE] },
  { atMs: 11.5, cluster: 'member1', ready: 'True', taints: [] },
  { atMs: 20, cluster: 'member1', ready: 'Unknown', taints: [] },
  { atMs: 21, cluster: 'member1', ready: 'Unknown', taints: [UNREACHABLE] },
];

describe('the questions asked of a history', () => {
  it('reads Ready at a moment, undefined before the first sight', () => {
    expect(readyAt(history, 'member1', -1)).toBeUndefined();
    expect(readyAt(history, 'member1', 10)).toBe('Unknown');
    expect(readyAt(history, 'member1', 12)).toBe('True');
    expect(readyAt(history, 'member2', 12)).toBe('Unknown');
  });

  it('lists the changes of Ready in a window, the window start excluded', () => {
    expect(readyTransitions(history, 'member1', 0, 15)).toEqual([
      { atMs: 10, from: 'True', to: 'Unknown' },
      { atMs: 11, from: 'Unknown', to: 'True' },
    ]);
    expect(readyTransitions(history, 'member1', 10, 15)).toEqual([{ atMs: 11, from: 'Unknown', to: 'True' }]);
    expect(timesReadyLeftTrue(history, 'member1', 0, 30)).toBe(2);
    expect(timesReadyLeftTrue(history, 'member1', 11, 19)).toBe(0);
  });

  it('lists each taint every time it appears', () => {
    expect(taintsAdded(history, 'member1', 0, 30)).toEqual([
      { atMs: 10.5, taint: UNREACHABLE },
      { atMs: 21, taint: UNREACHABLE },
    ]);
    expect(taintsAdded(history, 'member2', 5, 30)).toEqual([]);
  });

  it('lists the taints held in a window, those held at its start included', () => {
    expect(taintsHeld(history, 'member1', 12, 19)).toEqual([]);
    expect(taintsHeld(history, 'member1', 11, 19)).toEqual([UNREACHABLE]);
    expect(taintsHeld(history, 'member2', 5, 30)).toEqual([UNREACHABLE]);
  });

  it('finds the first moment Ready had a status from a moment on', () => {
    expect(readyFirstAt(history, 'member1', 'Unknown', 15)).toBe(20);
    // Already Unknown when asked: that moment itself.
    expect(readyFirstAt(history, 'member1', 'Unknown', 10.2)).toBe(10.2);
    expect(readyFirstAt(history, 'member1', 'False', 0)).toBeUndefined();
  });

  it('finds the first moment a member was Ready and untainted from a moment on', () => {
    expect(firstMatchAt(history, 'member1', 10, isHealthy)).toBe(11.5);
    expect(firstMatchAt(history, 'member1', 12, isHealthy)).toBe(12);
    expect(firstMatchAt(history, 'member1', 20, isHealthy)).toBeUndefined();
    expect(firstMatchAt(history, 'member2', 0, isHealthy)).toBeUndefined();
  });
});
