import { describe, expect, it } from 'vitest';
import { formatMicroTime, formatTime, parseTime } from './time.ts';

describe('formatTime', () => {
  it.each([
    [Date.parse('2024-01-25T04:05:57.000Z'), '2024-01-25T04:05:57Z'],
    [Date.parse('2024-01-25T04:05:57.999Z'), '2024-01-25T04:05:57Z'],
    [0, '1970-01-01T00:00:00Z'],
  ])('%d → %s (seconds, truncated)', (ms, expected) => {
    expect(formatTime(ms)).toBe(expected);
  });
});

describe('formatMicroTime', () => {
  it.each([
    [Date.parse('2024-01-25T04:05:57.123Z'), '2024-01-25T04:05:57.123000Z'],
    [Date.parse('2024-01-25T04:05:57Z'), '2024-01-25T04:05:57.000000Z'],
  ])('%d → %s (six fractional digits)', (ms, expected) => {
    expect(formatMicroTime(ms)).toBe(expected);
  });
});

describe('parseTime', () => {
  it.each([
    ['2024-01-25T04:05:57Z', Date.parse('2024-01-25T04:05:57Z')],
    ['2024-01-25T04:05:57.123000Z', Date.parse('2024-01-25T04:05:57.123Z')],
    ['2024-01-25T06:05:57+02:00', Date.parse('2024-01-25T04:05:57Z')],
    ['', undefined],
    [undefined, undefined],
    ['yesterday', undefined],
  ])('%j → %j', (text, expected) => {
    expect(parseTime(text)).toBe(expected);
  });
});
