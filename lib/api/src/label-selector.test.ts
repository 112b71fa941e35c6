import { describe, expect, it } from 'vitest';
import { matchesLabelSelector } from './label-selector.ts';
import type { LabelSelector } from './meta.ts';

describe('matchesLabelSelector', () => {
  const labels = { env: 'prod', tier: 'gold' };
  it.each<[string, LabelSelector, boolean]>([
    ['empty selector', {}, true],
    ['matchLabels equal', { matchLabels: { env: 'prod' } }, true],
    ['matchLabels differ', { matchLabels: { env: 'dev' } }, false],
    ['matchLabels missing key', { matchLabels: { zone: 'a' } }, false],
    ['In', { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev', 'prod'] }] }, true],
    ['In without the value', { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] }, false],
    ['In on a missing key', { matchExpressions: [{ key: 'x', operator: 'In', values: ['a'] }] }, false],
    ['NotIn', { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] }, true],
    [
      'NotIn with the value',
      { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] },
      false,
    ],
    ['NotIn on a missing key', { matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['a'] }] }, true],
    ['Exists', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, true],
    ['Exists on a missing key', { matchExpressions: [{ key: 'x', operator: 'Exists' }] }, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, true],
    [
      'DoesNotExist on a present key',
      { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] },
      false,
    ],
    [
      'malformed: In without values',
      { matchExpressions: [{ key: 'env', operator: 'In', values: [] }] },
      false,
    ],
    ['malformed: NotIn without values', { matchExpressions: [{ key: 'x', operator: 'NotIn' }] }, false],
    [
      'malformed: Exists with values',
      { matchExpressions: [{ key: 'env', operator: 'Exists', values: ['prod'] }] },
      false,
    ],
    [
      'malformed: unknown operator',
      { matchExpressions: [{ key: 'env', operator: 'Gt' as never, values: ['1'] }] },
      false,
    ],
    [
      'labels and expressions together',
      { matchLabels: { env: 'prod' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }] },
      true,
    ],
  ])('%s → %s', (_name, selector, expected) => {
    expect(matchesLabelSelector(labels, selector)).toBe(expected);
  });

  it('does not read inherited properties as labels', () => {
    expect(matchesLabelSelector({}, { matchExpressions: [{ key: 'toString', operator: 'Exists' }] })).toBe(
      false,
    );
  });
});
