import { describe, expect, it } from 'vitest';
import { annotations, type EvictionHistoryEntry } from '@kf/api';
import {
  evictionHistoryOf,
  formatEvictionHistory,
  parseEvictionHistory,
} from './eviction-history-annotation.ts';

const m1: EvictionHistoryEntry = {
  clusterName: 'm1',
  creationTimestamp: '2026-01-01T00:00:00Z',
  reason: 'ApplicationFailure',
  producer: 'resource-binding-application-failover-controller',
};
const m2: EvictionHistoryEntry = { clusterName: 'm2', creationTimestamp: '2026-01-01T00:01:00Z' };

describe('formatEvictionHistory and parseEvictionHistory', () => {
  it('round-trip the entries, optional fields left out when unset', () => {
    const value = formatEvictionHistory([m1, m2]);
    expect(JSON.parse(value)).toEqual([m1, m2]);
    expect(parseEvictionHistory(value)).toEqual([m1, m2]);
  });

  it('write the fields in a fixed order, whatever the entry', () => {
    const shuffled = { producer: 'p', reason: 'r', creationTimestamp: 't', clusterName: 'c' };
    expect(formatEvictionHistory([shuffled])).toBe(
      '[{"clusterName":"c","creationTimestamp":"t","reason":"r","producer":"p"}]',
    );
  });

  it('write an empty history as an empty array', () => {
    expect(formatEvictionHistory([])).toBe('[]');
  });
});

describe('parseEvictionHistory', () => {
  it.each<[string, string | undefined]>([
    ['absent', undefined],
    ['empty', ''],
    ['not JSON', '{oops'],
    ['a JSON object', '{"clusterName":"m1","creationTimestamp":"2026-01-01T00:00:00Z"}'],
    ['a JSON string', '"m1"'],
    ['null', 'null'],
  ])('reads no entries from an unreadable value: %s', (_name, value) => {
    expect(parseEvictionHistory(value)).toEqual([]);
  });

  it('skips elements without a cluster name or a creation time, and ignores unknown fields', () => {
    const value = JSON.stringify([
      null,
      'm3',
      { clusterName: '', creationTimestamp: '2026-01-01T00:00:00Z' },
      { clusterName: 'm4' },
      { clusterName: 'm5', creationTimestamp: 5 },
      { ...m2, reason: 7, producer: null, extra: true },
      m1,
    ]);
    expect(parseEvictionHistory(value)).toEqual([m2, m1]);
  });

  it('keeps an entry whose time cannot be read: its readers skip it, as in the spec field', () => {
    expect(parseEvictionHistory(JSON.stringify([{ clusterName: 'm1', creationTimestamp: 'later' }]))).toEqual(
      [{ clusterName: 'm1', creationTimestamp: 'later' }],
    );
  });
});

describe('evictionHistoryOf', () => {
  const annotated = (entries: readonly EvictionHistoryEntry[]): Record<string, string> => ({
    [annotations.evictionHistory]: formatEvictionHistory(entries),
  });

  it('reads the annotation', () => {
    expect(evictionHistoryOf(annotated([m1]), undefined)).toEqual([m1]);
  });

  it('reads spec.evictionHistory, as written by an earlier version', () => {
    expect(evictionHistoryOf(undefined, [m2])).toEqual([m2]);
    expect(evictionHistoryOf({ other: 'x' }, [m2])).toEqual([m2]);
  });

  it("reads both, the annotation's entries first, an entry in both counted once", () => {
    const m1Elsewhere = { clusterName: 'm1', creationTimestamp: '2025-12-31T00:00:00Z' };
    expect(
      evictionHistoryOf(annotated([m1]), [
        { clusterName: 'm1', creationTimestamp: m1.creationTimestamp },
        m2,
        m1Elsewhere,
      ]),
    ).toEqual([m1, m2, m1Elsewhere]);
    expect(evictionHistoryOf(annotated([m1, m1]), [])).toEqual([m1]);
  });

  it('falls back to the spec entries alone when the annotation is unreadable', () => {
    expect(evictionHistoryOf({ [annotations.evictionHistory]: 'not json' }, [m2])).toEqual([m2]);
  });
});
