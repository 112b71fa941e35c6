import { describe, expect, it } from 'vitest';
import type { Taint, Toleration } from '@kf/api';
import { isToleratedBy, pairTolerations } from './tolerations.ts';

const notReady: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute' };
const withValue: Taint = { key: 'team', value: 'a', effect: 'NoSchedule' };

describe('isToleratedBy', () => {
  it.each<[string, Taint, Toleration, boolean]>([
    [
      'Exists on the key and effect',
      notReady,
      { key: notReady.key, operator: 'Exists', effect: 'NoExecute' },
      true,
    ],
    [
      'Exists with another effect',
      notReady,
      { key: notReady.key, operator: 'Exists', effect: 'NoSchedule' },
      false,
    ],
    ['Exists with another key', notReady, { key: 'other', operator: 'Exists' }, false],
    ['Exists with no effect matches every effect', notReady, { key: notReady.key, operator: 'Exists' }, true],
    [
      'empty effect matches every effect',
      notReady,
      { key: notReady.key, operator: 'Exists', effect: '' },
      true,
    ],
    ['empty key with Exists tolerates everything', withValue, { operator: 'Exists' }, true],
    [
      'empty key with Exists and an effect tolerates that effect only',
      withValue,
      { operator: 'Exists', effect: 'NoExecute' },
      false,
    ],
    ['Equal with the same value', withValue, { key: 'team', operator: 'Equal', value: 'a' }, true],
    ['Equal with another value', withValue, { key: 'team', operator: 'Equal', value: 'b' }, false],
    [
      'Equal without value against a valueless taint',
      notReady,
      { key: notReady.key, operator: 'Equal' },
      true,
    ],
    ['Equal without value against a valued taint', withValue, { key: 'team', operator: 'Equal' }, false],
    ['an empty operator means Equal', withValue, { key: 'team', operator: '', value: 'a' }, true],
    ['an absent operator means Equal', withValue, { key: 'team', value: 'a' }, true],
    ['an absent operator means Equal (value differs)', withValue, { key: 'team', value: 'b' }, false],
    [
      'empty key with Equal tolerates any key with that value',
      withValue,
      { operator: 'Equal', value: 'a' },
      true,
    ],
    ['Gt is disabled', withValue, { key: 'team', operator: 'Gt' as 'Equal', value: '0' }, false],
    ['Lt is disabled', withValue, { key: 'team', operator: 'Lt' as 'Equal', value: 'z' }, false],
    [
      'PreferNoSchedule tolerates neither cluster effect',
      withValue,
      { key: 'team', operator: 'Exists', effect: 'PreferNoSchedule' },
      false,
    ],
  ])('%s', (_name, taint, toleration, expected) => {
    expect(isToleratedBy(taint, toleration)).toBe(expected);
  });
});

describe('pairTolerations', () => {
  it('pairs each taint with the first toleration that tolerates it', () => {
    const first: Toleration = { key: notReady.key, operator: 'Exists', tolerationSeconds: 60 };
    const second: Toleration = { operator: 'Exists' };
    expect(pairTolerations([notReady, withValue], [first, second])).toEqual([
      { taint: notReady, toleration: first },
      { taint: withValue, toleration: second },
    ]);
    expect(pairTolerations([withValue], [first])).toEqual([{ taint: withValue, toleration: undefined }]);
  });
});
