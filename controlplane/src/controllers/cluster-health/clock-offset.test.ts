import { describe, expect, it } from 'vitest';
import { describeClockOffset, parseRecordedOffsetMs, planClockOffset } from './clock-offset.ts';

describe('planClockOffset', () => {
  it.each<[string, number | undefined, string | undefined, unknown]>([
    ['nothing while the offset is unknown', undefined, undefined, { kind: 'none' }],
    ['nothing for a small offset never recorded', 4_999, undefined, { kind: 'none' }],
    ['nothing for a small negative offset never recorded', -4_999, undefined, { kind: 'none' }],
    [
      'records and warns once the offset reaches 5 s ahead',
      5_000,
      undefined,
      { kind: 'record', value: '5.0', warn: true },
    ],
    [
      'records and warns once the offset reaches 5 s behind',
      -62_340,
      undefined,
      { kind: 'record', value: '-62.3', warn: true },
    ],
    ['nothing while the recorded offset is within 5 s of the estimate', 64_000, '60.0', { kind: 'none' }],
    [
      'updates without a warning once the estimate moved 5 s from the record',
      65_000,
      '60.0',
      { kind: 'record', value: '65.0', warn: false },
    ],
    [
      'updates without a warning when the member crossed from ahead to behind',
      -30_000,
      '30.0',
      { kind: 'record', value: '-30.0', warn: false },
    ],
    [
      'replaces an unreadable record and warns',
      20_000,
      'soon',
      { kind: 'record', value: '20.0', warn: true },
    ],
    ['keeps a record between 4 and 5 s (no flapping at the bound)', 4_500, '5.2', { kind: 'none' }],
    ['keeps a record between -4 and -5 s', -4_000, '-5.2', { kind: 'none' }],
    ['clears a record once the offset is under 4 s', 3_999, '5.2', { kind: 'clear' }],
    ['clears a record once the offset is over -4 s', -100, '-61.0', { kind: 'clear' }],
    ['clears an unreadable record under 5 s', 4_500, 'x', { kind: 'clear' }],
  ])('%s', (_name, offsetMs, recorded, expected) => {
    expect(planClockOffset(offsetMs, recorded)).toMatchObject(expected as object);
  });

  it('says which way and how far, in the Event message', () => {
    const action = planClockOffset(-62_340, undefined);
    expect(action.kind === 'record' ? action.message : '').toContain('62.3 s behind');
  });
});

describe('parseRecordedOffsetMs', () => {
  it.each<[string | undefined, number | undefined]>([
    ['62.0', 62_000],
    ['-20.5', -20_500],
    ['+7', 7_000],
    [undefined, undefined],
    ['', undefined],
    ['1e3', undefined],
    ['ahead', undefined],
  ])('reads %s as %s', (text, ms) => {
    expect(parseRecordedOffsetMs(text)).toBe(ms);
  });
});

describe('describeClockOffset', () => {
  it('names the direction', () => {
    expect(describeClockOffset(600_000)).toContain('600.0 s ahead of');
    expect(describeClockOffset(-1_500)).toContain('1.5 s behind');
  });
});
