import { describe, expect, it } from 'vitest';
import {
  formatUnhealthySince,
  parseUnhealthySince,
  seedUnhealthy,
  unhealthySinceOf,
  type UnhealthySince,
} from './unhealthy-record.ts';

const T0 = Date.UTC(2026, 10, 28, 12, 0, 0, 123);
const iso = (ms: number): string => new Date(ms).toISOString();

describe('parseUnhealthySince', () => {
  it.each<[string, string | undefined, UnhealthySince, readonly string[]]>([
    ['absent: no entry, no problem', undefined, {}, []],
    ['one cluster', `{"m1":"${iso(T0)}"}`, { m1: T0 }, []],
    ['several clusters', `{"m2":"${iso(T0 + 5)}","m1":"${iso(T0)}"}`, { m1: T0, m2: T0 + 5 }, []],
    ['an empty object', '{}', {}, []],
    [
      'second precision and an offset',
      '{"m1":"2026-11-28T13:00:00+01:00"}',
      { m1: Date.UTC(2026, 10, 28, 12) },
      [],
    ],
    ['an array', `["${iso(T0)}"]`, {}, ['not a JSON object of cluster → time']],
    ['null', 'null', {}, ['not a JSON object of cluster → time']],
    ['a string', `"${iso(T0)}"`, {}, ['not a JSON object of cluster → time']],
    [
      'an entry whose time is not RFC 3339, next to a good one',
      `{"m1":"${iso(T0)}","m2":"yesterday"}`,
      { m1: T0 },
      ['entry {"m2":"yesterday"} is not a cluster and a time'],
    ],
    [
      'a number instead of a time',
      `{"m1":${String(T0)}}`,
      {},
      [`entry {"m1":${String(T0)}} is not a cluster and a time`],
    ],
    [
      'a date Date.parse would guess',
      '{"m1":"Nov 28 2026"}',
      {},
      ['entry {"m1":"Nov 28 2026"} is not a cluster and a time'],
    ],
    [
      'an impossible date',
      '{"m1":"2026-13-40T99:00:00Z"}',
      {},
      ['entry {"m1":"2026-13-40T99:00:00Z"} is not a cluster and a time'],
    ],
    [
      'an empty cluster name',
      `{"":"${iso(T0)}"}`,
      {},
      [`entry {"":"${iso(T0)}"} is not a cluster and a time`],
    ],
  ])('%s', (_case, value, since, problems) => {
    expect(parseUnhealthySince(value)).toEqual({ since, problems });
  });
});

describe('parseUnhealthySince of a value that is not JSON', () => {
  it('has no entry and names the problem', () => {
    const parsed = parseUnhealthySince('{m1:');
    expect(parsed.since).toEqual({});
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]).toMatch(/^not JSON \(/);
  });
});

describe('formatUnhealthySince', () => {
  it('is undefined (no annotation) for no cluster', () => {
    expect(formatUnhealthySince({})).toBeUndefined();
  });

  it('sorts the clusters and keeps milliseconds', () => {
    expect(formatUnhealthySince({ m2: T0 + 1, m1: T0 })).toBe(`{"m1":"${iso(T0)}","m2":"${iso(T0 + 1)}"}`);
  });

  it('round-trips through parseUnhealthySince, the same text again', () => {
    const since = { a: T0, b: T0 - 86_400_000, c: 0 };
    const text = formatUnhealthySince(since);
    expect(parseUnhealthySince(text)).toEqual({ since, problems: [] });
    expect(formatUnhealthySince(parseUnhealthySince(text).since)).toBe(text);
  });
});

describe('seedUnhealthy', () => {
  it('times each recorded cluster from its recorded sighting', () => {
    expect(seedUnhealthy({}, { m1: T0 }, T0 + 10_000)).toEqual({ m1: { unhealthySinceMs: T0 } });
  });

  it("prefers the record over this process's memory (another leader saw it first)", () => {
    expect(seedUnhealthy({ m1: { unhealthySinceMs: T0 + 5_000 } }, { m1: T0 }, T0 + 10_000)).toEqual({
      m1: { unhealthySinceMs: T0 },
    });
  });

  it('forgets a streak the record does not hold (cleared, or never recorded): it is seen afresh', () => {
    expect(seedUnhealthy({ m1: { unhealthySinceMs: T0 } }, {}, T0 + 10_000)).toEqual({});
  });

  it('keeps what the memory saw Healthy, with or without a recorded streak', () => {
    const memory = { m1: { healthySeen: true, unhealthySinceMs: T0 + 1 }, m2: { healthySeen: true } };
    expect(seedUnhealthy(memory, { m1: T0 }, T0 + 10_000)).toEqual({
      m1: { healthySeen: true, unhealthySinceMs: T0 },
      m2: { healthySeen: true },
    });
  });

  it('counts a sighting recorded in the future (a clock ahead) as now', () => {
    expect(seedUnhealthy({}, { m1: T0 + 60_000 }, T0)).toEqual({ m1: { unhealthySinceMs: T0 } });
  });

  it('keeps a record for another cluster apart', () => {
    expect(seedUnhealthy({ m2: { healthySeen: true } }, { m1: T0 }, T0 + 1)).toEqual({
      m1: { unhealthySinceMs: T0 },
      m2: { healthySeen: true },
    });
  });
});

describe('unhealthySinceOf', () => {
  it('lists the timed clusters but those leaving', () => {
    const memory = {
      m1: { unhealthySinceMs: T0 },
      m2: { healthySeen: true },
      m3: { healthySeen: true, unhealthySinceMs: T0 + 1 },
    };
    expect(unhealthySinceOf(memory, new Set())).toEqual({ m1: T0, m3: T0 + 1 });
    expect(unhealthySinceOf(memory, new Set(['m3']))).toEqual({ m1: T0 });
  });
});
