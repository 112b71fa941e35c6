import type { Taint, Toleration } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { findUntoleratedTaint, formatTaint, tolerates } from './toleration.ts';

const notReady: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute' };
const dedicated: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };

describe('tolerates', () => {
  it.each<[string, Toleration, Taint, boolean]>([
    ['Exists with the key', { key: notReady.key, operator: 'Exists' }, notReady, true],
    ['Exists without key tolerates every key', { operator: 'Exists' }, dedicated, true],
    ['Exists with another key', { key: 'other', operator: 'Exists' }, notReady, false],
    ['Equal with the value', { key: 'dedicated', operator: 'Equal', value: 'gpu' }, dedicated, true],
    ['empty operator means Equal', { key: 'dedicated', value: 'gpu' }, dedicated, true],
    ['Equal with another value', { key: 'dedicated', value: 'cpu' }, dedicated, false],
    ['Equal with empty value on a taint without value', { key: notReady.key }, notReady, true],
    ['Equal with a value on a taint without value', { key: notReady.key, value: 'x' }, notReady, false],
    ['matching effect', { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, dedicated, true],
    ['empty effect matches every effect', { key: 'dedicated', value: 'gpu', effect: '' }, dedicated, true],
    ['other effect', { key: notReady.key, operator: 'Exists', effect: 'NoSchedule' }, notReady, false],
    [
      'PreferNoSchedule never matches a cluster taint',
      { operator: 'Exists', effect: 'PreferNoSchedule' },
      dedicated,
      false,
    ],
    ['Gt never tolerates', { key: 'dedicated', operator: 'Gt' as never, value: 'a' }, dedicated, false],
    ['Lt never tolerates', { key: 'dedicated', operator: 'Lt' as never, value: 'z' }, dedicated, false],
  ])('%s → %s', (_name, toleration, taint, expected) => {
    expect(tolerates(toleration, taint)).toBe(expected);
  });
});

describe('findUntoleratedTaint', () => {
  const both = ['NoSchedule', 'NoExecute'] as const;
  it.each<[string, readonly Taint[], readonly Toleration[], Taint | undefined]>([
    ['no taints', [], [], undefined],
    ['first untolerated taint', [dedicated, notReady], [], dedicated],
    ['skips tolerated ones', [dedicated, notReady], [{ key: 'dedicated', operator: 'Exists' }], notReady],
    ['all tolerated', [dedicated, notReady], [{ operator: 'Exists' }], undefined],
  ])('%s', (_name, taints, tolerations, expected) => {
    expect(findUntoleratedTaint(taints, tolerations, both)).toEqual(expected);
  });

  it('looks only at the given effects', () => {
    expect(findUntoleratedTaint([dedicated, notReady], [], ['NoExecute'])).toEqual(notReady);
  });
});

describe('formatTaint', () => {
  it.each([
    [dedicated, 'dedicated=gpu:NoSchedule'],
    [notReady, 'cluster.karmada.io/not-ready:NoExecute'],
    [{ ...notReady, value: '' }, 'cluster.karmada.io/not-ready:NoExecute'],
  ])('prints %j as %s', (taint, text) => {
    expect(formatTaint(taint)).toBe(text);
  });
});
