import { describe, expect, it } from 'vitest';
import {
  formatHealthyClusters,
  healthyClustersOf,
  isSameSet,
  parseHealthyClusters,
  seedHealthy,
} from './healthy-record.ts';

describe('healthy clusters record', () => {
  it.each([
    [undefined, []],
    ['', []],
    ['m1', ['m1']],
    [' m2 , m1,,', ['m2', 'm1']],
  ])('parses %j', (value, expected) => {
    expect(parseHealthyClusters(value)).toEqual(expected);
  });

  it('formats sorted, and undefined for none', () => {
    expect(formatHealthyClusters(['m2', 'm1'])).toBe('m1,m2');
    expect(formatHealthyClusters([])).toBeUndefined();
  });

  it('seeds healthySeen without losing running timers', () => {
    const seeded = seedHealthy({ m1: { unhealthySinceMs: 5 } }, ['m1', 'm3']);
    expect(seeded).toEqual({ m1: { unhealthySinceMs: 5, healthySeen: true }, m3: { healthySeen: true } });
    expect(healthyClustersOf(seeded)).toEqual(['m1', 'm3']);
  });

  it.each([
    [['a', 'b'], ['b', 'a'], true],
    [['a'], ['a', 'b'], false],
    [[], [], true],
  ])('isSameSet(%j, %j) = %s', (a, b, same) => {
    expect(isSameSet(a, b)).toBe(same);
  });
});
