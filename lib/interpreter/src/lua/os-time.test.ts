import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { osDate, osTime } from './os-time.ts';

const NOW = Date.UTC(2024, 2, 14, 9, 5, 7);

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(NOW);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('os.date', () => {
  it('formats the current time in UTC with a leading !', () => {
    expect(osDate('!%Y-%m-%dT%H:%M:%SZ', undefined)).toBe('2024-03-14T09:05:07Z');
    expect(osDate('!!%F', undefined)).toBe('2024-03-14');
  });

  it('knows the conversions Karmada knows, and leaves others as written', () => {
    expect(osDate('!%a|%A|%b|%B|%d|%H|%I|%m|%M|%p|%P|%S|%w|%x|%X|%y|%z|%Z|%%|%q|%', undefined)).toBe(
      'mon|Thursday|Mar|March|14|09|09|03|05|AM|am|07|4|09/05/07|09:05:07|24|+0000|UTC|%|%q|%',
    );
    expect(osDate('!%c', undefined)).toBe('14 Mar 24 09:05 UTC');
  });

  it('returns a table for *t', () => {
    expect(osDate('!*t', undefined)).toEqual({
      year: 2024,
      month: 3,
      day: 14,
      hour: 9,
      min: 5,
      sec: 7,
      wday: 5,
      yday: 0,
      isdst: false,
    });
  });

  it('reads a given time in local time, even after !', () => {
    const local = new Date(NOW);
    expect(osDate('!%H', NOW / 1000)).toBe(String(local.getHours()).padStart(2, '0'));
  });
});

describe('os.time', () => {
  it('is the current Unix time without arguments', () => {
    expect(osTime()).toBe(NOW / 1000);
  });

  it('reads a table in local time, hour 12 by default, rolling over out-of-range fields', () => {
    expect(osTime({ year: 2024, month: 3, day: 14 })).toBe(new Date(2024, 2, 14, 12).getTime() / 1000);
    expect(osTime({ year: 2024, month: 13, day: 1, hour: 0 })).toBe(new Date(2025, 0, 1, 0).getTime() / 1000);
    expect(osTime({ year: 2024, month: 1, day: 1, hour: 0, min: 'x' })).toBe(
      new Date(2024, 0, 1).getTime() / 1000,
    );
  });
});
