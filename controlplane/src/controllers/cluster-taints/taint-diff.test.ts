import { describe, expect, it } from 'vitest';
import type { Taint } from '@kf/api';
import { describeTaints, planTaintChange } from './taint-diff.ts';

const a: Taint = { key: 'a', effect: 'NoSchedule' };
const b: Taint = { key: 'b', effect: 'NoExecute', timeAdded: '2026-11-20T10:00:00Z' };
const c: Taint = { key: 'c', value: 'v', effect: 'NoSchedule' };

describe('planTaintChange', () => {
  it.each<[string, Taint[] | undefined, Taint[], Partial<ReturnType<typeof planTaintChange>>]>([
    ['nothing to nothing', undefined, [], { added: [], removed: [], changed: false }],
    ['same list', [a, b], [a, b], { added: [], removed: [], changed: false }],
    ['an added taint', [a], [a, b], { added: [b], removed: [], changed: true }],
    ['a removed taint', [a, b], [b], { added: [], removed: [a], changed: true }],
    [
      'a reorder is a change without adds or removes',
      [a, b],
      [b, a],
      { added: [], removed: [], changed: true },
    ],
    ['a value change is a change', [c], [{ ...c, value: 'w' }], { added: [], removed: [], changed: true }],
    ['a dropped duplicate is a change', [a, a], [a], { added: [], removed: [], changed: true }],
  ])('%s', (_name, current, desired, expected) => {
    expect(planTaintChange(current, desired)).toMatchObject(expected);
  });
});

describe('describeTaints', () => {
  it.each<[Taint[], string]>([
    [[], 'cluster now does not have taints'],
    [[a], 'cluster now has taints([{Key:a,Effect:NoSchedule}])'],
    [[a, c], 'cluster now has taints([{Key:a,Effect:NoSchedule},{Key:c,Value:v,Effect:NoSchedule}])'],
  ])('%j → %s', (taints, expected) => {
    expect(describeTaints(taints)).toBe(expected);
  });
});
