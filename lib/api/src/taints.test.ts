import { describe, expect, it } from 'vitest';
import type { Taint } from './meta.ts';
import { addTaint, findTaint, hasTaint, isSameTaint, removeTaint } from './taints.ts';

const notReadyNoSchedule: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' };
const notReadyNoExecute: Taint = {
  key: 'cluster.karmada.io/not-ready',
  effect: 'NoExecute',
  timeAdded: '2026-11-20T10:00:00Z',
};
const unreachable: Taint = { key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule' };

describe('isSameTaint', () => {
  it.each([
    ['same key and effect', notReadyNoSchedule, { ...notReadyNoSchedule }, true],
    ['value ignored', notReadyNoSchedule, { ...notReadyNoSchedule, value: 'x' }, true],
    [
      'timeAdded ignored',
      notReadyNoExecute,
      { ...notReadyNoExecute, timeAdded: '2026-01-01T00:00:00Z' },
      true,
    ],
    ['other effect', notReadyNoSchedule, notReadyNoExecute, false],
    ['other key', notReadyNoSchedule, unreachable, false],
  ] as const)('%s → %s', (_name, a, b, expected) => {
    expect(isSameTaint(a, b)).toBe(expected);
    expect(isSameTaint(b, a)).toBe(expected);
  });
});

describe('findTaint / hasTaint', () => {
  it.each([
    ['present', [unreachable, notReadyNoExecute], notReadyNoExecute, notReadyNoExecute],
    [
      'matched by key and effect only',
      [{ ...unreachable, value: 'v' }],
      unreachable,
      { ...unreachable, value: 'v' },
    ],
    ['absent effect', [notReadyNoSchedule], { key: notReadyNoSchedule.key, effect: 'NoExecute' }, undefined],
    ['undefined list', undefined, unreachable, undefined],
  ] as const)('%s', (_name, list, wanted, expected) => {
    expect(findTaint(list, wanted)).toEqual(expected);
    expect(hasTaint(list, wanted)).toBe(expected !== undefined);
  });
});

describe('addTaint', () => {
  it.each<[string, readonly Taint[] | undefined, Taint, readonly Taint[]]>([
    ['appends after the existing ones', [unreachable], notReadyNoSchedule, [unreachable, notReadyNoSchedule]],
    ['starts a list', undefined, unreachable, [unreachable]],
    [
      'keeps the existing taint (value and timeAdded)',
      [notReadyNoExecute],
      { ...notReadyNoExecute, timeAdded: '2027-01-01T00:00:00Z', value: 'v' },
      [notReadyNoExecute],
    ],
    [
      'adds the same key with another effect',
      [notReadyNoSchedule],
      notReadyNoExecute,
      [notReadyNoSchedule, notReadyNoExecute],
    ],
  ])('%s', (_name, list, taint, expected) => {
    const before = structuredClone(list);
    const out = addTaint(list, taint);
    expect(out).toEqual(expected);
    expect(list).toEqual(before);
    expect(out).not.toBe(list);
  });
});

describe('removeTaint', () => {
  it.each<[string, readonly Taint[] | undefined, Taint, readonly Taint[]]>([
    [
      'removes by key and effect, whatever the value',
      [{ ...unreachable, value: 'v' }, notReadyNoSchedule],
      unreachable,
      [notReadyNoSchedule],
    ],
    [
      'keeps the other effect of the same key',
      [notReadyNoSchedule, notReadyNoExecute],
      notReadyNoSchedule,
      [notReadyNoExecute],
    ],
    ['nothing to remove', [unreachable], notReadyNoSchedule, [unreachable]],
    ['undefined list', undefined, unreachable, []],
  ])('%s', (_name, list, unwanted, expected) => {
    const before = structuredClone(list);
    const out = removeTaint(list, unwanted);
    expect(out).toEqual(expected);
    expect(list).toEqual(before);
    expect(out).not.toBe(list);
  });
});
