import { describe, expect, it } from 'vitest';
import type { ClusterCondition } from './cluster.ts';
import {
  findCondition,
  isConditionTrue,
  removeCondition,
  setCondition,
  type ConditionUpdate,
} from './conditions.ts';
import type { Condition } from './meta.ts';

const t0 = '2026-11-20T10:00:00Z';
const nowMs = Date.parse('2026-11-20T10:05:30.750Z');
const now = '2026-11-20T10:05:30Z';

const ready: Condition = {
  type: 'Ready',
  status: 'True',
  lastTransitionTime: t0,
  reason: 'ClusterReady',
  message: 'cluster is healthy and ready to accept workloads',
};
const apis: Condition = {
  type: 'CompleteAPIEnablements',
  status: 'True',
  lastTransitionTime: t0,
  reason: 'Complete',
  message: 'collected complete APIEnablements from the cluster',
};

describe('findCondition', () => {
  it.each([
    ['a list', [apis, ready], 'Ready', ready],
    ['a status object', { conditions: [apis, ready] }, 'Ready', ready],
    ['a status without conditions', {}, 'Ready', undefined],
    ['undefined', undefined, 'Ready', undefined],
    ['a missing type', [apis], 'Ready', undefined],
  ] as const)('finds by type in %s', (_name, source, type, expected) => {
    expect(findCondition(source, type)).toBe(expected);
  });
});

describe('isConditionTrue', () => {
  it.each([
    ['True', [ready], true],
    ['False', [{ ...ready, status: 'False' }], false],
    ['Unknown', [{ ...ready, status: 'Unknown' }], false],
    ['absent', [apis], false],
  ] as const)('is %s → %s', (_name, list, expected) => {
    expect(isConditionTrue(list, 'Ready')).toBe(expected);
  });
});

describe('setCondition', () => {
  const unknown: ConditionUpdate = {
    type: 'Ready',
    status: 'Unknown',
    reason: 'ClusterStatusUnknown',
    message: 'Cluster status controller stopped posting cluster status.',
  };

  it.each<[string, readonly Condition[] | undefined, ConditionUpdate, readonly Condition[]]>([
    [
      'appends a new type with now as transition time',
      [apis],
      unknown,
      [
        apis,
        {
          type: 'Ready',
          status: 'Unknown',
          lastTransitionTime: now,
          reason: unknown.reason,
          message: unknown.message,
        },
      ],
    ],
    [
      'starts a list from undefined',
      undefined,
      unknown,
      [
        {
          type: 'Ready',
          status: 'Unknown',
          lastTransitionTime: now,
          reason: unknown.reason,
          message: unknown.message,
        },
      ],
    ],
    [
      'replaces in place and moves the transition time when the status changes',
      [ready, apis],
      unknown,
      [
        {
          type: 'Ready',
          status: 'Unknown',
          lastTransitionTime: now,
          reason: unknown.reason,
          message: unknown.message,
        },
        apis,
      ],
    ],
    [
      'keeps the transition time when the status stays, but takes reason and message',
      [ready],
      { type: 'Ready', status: 'True', reason: 'StillReady', message: 'still fine' },
      [{ ...ready, reason: 'StillReady', message: 'still fine' }],
    ],
    [
      'keeps the transition time even when the update carries a newer one',
      [ready],
      { ...ready, lastTransitionTime: now },
      [ready],
    ],
    [
      'uses the transition time of the update when the status changes',
      [ready],
      { ...unknown, lastTransitionTime: '2026-11-20T10:04:00Z' },
      [
        {
          type: 'Ready',
          status: 'Unknown',
          lastTransitionTime: '2026-11-20T10:04:00Z',
          reason: unknown.reason,
          message: unknown.message,
        },
      ],
    ],
    [
      'sets observedGeneration when given',
      [ready],
      {
        type: 'Ready',
        status: 'True',
        reason: 'ClusterReady',
        message: ready.message,
        observedGeneration: 7,
      },
      [
        {
          type: 'Ready',
          status: 'True',
          observedGeneration: 7,
          lastTransitionTime: t0,
          reason: 'ClusterReady',
          message: ready.message,
        },
      ],
    ],
    [
      'drops observedGeneration when the update has none',
      [{ ...ready, observedGeneration: 3 }],
      { type: 'Ready', status: 'True', reason: 'ClusterReady', message: ready.message },
      [ready],
    ],
  ])('%s', (_name, list, update, expected) => {
    expect(setCondition(list, update, nowMs)).toEqual(expected);
  });

  it('never mutates its input', () => {
    const list = [ready, apis];
    const copy = structuredClone(list);
    const out = setCondition(list, unknown, nowMs);
    expect(list).toEqual(copy);
    expect(out).not.toBe(list);
  });

  it('gives a cluster condition without a transition time one, even when the status stays', () => {
    const written: ClusterCondition = { type: 'ServiceDomainNameResolutionReady', status: 'False' };
    const out = setCondition(
      [written],
      { type: written.type, status: 'False', reason: 'Failed', message: 'm' },
      nowMs,
    );
    expect(out).toEqual([
      { type: written.type, status: 'False', lastTransitionTime: now, reason: 'Failed', message: 'm' },
    ]);
  });
});

describe('removeCondition', () => {
  it.each([
    ['removes the type', [ready, apis], [apis]],
    ['leaves others alone', [apis], [apis]],
    ['accepts undefined', undefined, []],
  ] as const)('%s', (_name, list, expected) => {
    expect(removeCondition(list, 'Ready')).toEqual(expected);
  });
});
