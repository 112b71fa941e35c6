import { describe, expect, it } from 'vitest';
import type { EvictionHistoryEntry } from '@kf/api';
import { isActive, recordEvictions } from './eviction-record.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const entry = (clusterName: string, at: string): EvictionHistoryEntry => ({
  clusterName,
  creationTimestamp: at,
  reason: 'ApplicationFailure',
  producer: 'p',
});
const opts = { nowMs: T0, reason: 'ApplicationFailure', producer: 'p', blockPredecessorMs: 600_000 };

describe('recordEvictions', () => {
  it.each<
    [string, readonly EvictionHistoryEntry[] | undefined, readonly string[], number, EvictionHistoryEntry[]]
  >([
    ['starts a history', undefined, ['m1'], 600_000, [entry('m1', '2026-01-01T00:00:00Z')]],
    [
      'replaces the entry of a cluster evicted again',
      [entry('m1', '2025-12-31T23:59:00Z')],
      ['m1'],
      600_000,
      [entry('m1', '2026-01-01T00:00:00Z')],
    ],
    [
      'keeps entries still blocking, drops those that ran out',
      [entry('m2', '2025-12-31T23:55:00Z'), entry('m3', '2025-12-31T23:40:00Z')],
      ['m1'],
      600_000,
      [entry('m2', '2025-12-31T23:55:00Z'), entry('m1', '2026-01-01T00:00:00Z')],
    ],
    [
      'keeps every entry when blocks are for good',
      [entry('m3', '2020-01-01T00:00:00Z')],
      ['m2', 'm1'],
      Number.POSITIVE_INFINITY,
      [
        entry('m3', '2020-01-01T00:00:00Z'),
        entry('m1', '2026-01-01T00:00:00Z'),
        entry('m2', '2026-01-01T00:00:00Z'),
      ],
    ],
  ])('%s', (...[, history, clusters, blockPredecessorMs, expected]) => {
    expect(recordEvictions(history, clusters, { ...opts, blockPredecessorMs })).toEqual(expected);
  });

  it('rounds the time up to the second so that the block never ends early', () => {
    const [e] = recordEvictions(undefined, ['m1'], { ...opts, nowMs: T0 + 200 });
    expect(e?.creationTimestamp).toBe('2026-01-01T00:00:01Z');
  });
});

describe('isActive', () => {
  it.each([
    ['inside the block', '2025-12-31T23:55:00Z', true],
    ['exactly at its end', '2025-12-31T23:50:00Z', false],
    ['unreadable time', 'yesterday', false],
  ])('%s → %s', (_name, at, expected) => {
    expect(isActive(entry('m1', at), { nowMs: T0, blockPredecessorMs: 600_000 })).toBe(expected);
  });
});
