import { describe, expect, it } from 'vitest';
import { MAX_CLOCK_AHEAD_MS, MAX_CLOCK_BEHIND_MS, clockOffsetEnv, parseClockOffset } from './clock-offset.ts';

const LIB = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

describe('parseClockOffset', () => {
  it.each([
    ['-60s', -60_000],
    ['+60s', 60_000],
    ['+10m', 600_000],
    ['-1h', -MAX_CLOCK_BEHIND_MS],
    ['+2d', 2 * 86_400_000],
    ['+365d', MAX_CLOCK_AHEAD_MS],
    ['+0s', 0],
    [' -5s ', -5_000],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseClockOffset(text)).toBe(ms);
  });

  it.each([
    ['60s', 'expected a sign'],
    ['-60', 'expected a sign'],
    ['-1.5s', 'expected a sign'],
    ['-60 s', 'expected a sign'],
    ['+1y', 'expected a sign'],
    ['-60ms', 'expected a sign'],
    ['', 'expected a sign'],
    ['@2026-01-01 00:00:00', 'expected a sign'],
    ['-61m', 'at most 1h behind'],
    ['-2h', 'at most 1h behind'],
    ['+366d', 'at most 365d ahead'],
  ])('rejects %j with a one-line error saying what to fix', (text, says) => {
    expect(() => parseClockOffset(text)).toThrow(RangeError);
    expect(() => parseClockOffset(text)).toThrow(says);
    expect(() => parseClockOffset(text)).toThrow(`clock offset "${text}"`);
  });
});

describe('clockOffsetEnv', () => {
  it('preloads libfaketime with the offset in seconds and the monotonic clock left alone', () => {
    expect(clockOffsetEnv(-60_000, LIB)).toEqual({
      LD_PRELOAD: LIB,
      FAKETIME: '-60s',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    });
    expect(clockOffsetEnv(600_000, LIB).FAKETIME).toBe('+600s');
  });

  it('keeps a preload the process would have had, after libfaketime', () => {
    expect(clockOffsetEnv(1_000, LIB, '/opt/other.so').LD_PRELOAD).toBe(`${LIB}:/opt/other.so`);
    expect(clockOffsetEnv(1_000, LIB, '').LD_PRELOAD).toBe(LIB);
  });

  it('clears every variable for the host clock, keeping the inherited preload', () => {
    expect(clockOffsetEnv(0, LIB, '/opt/other.so')).toEqual({
      LD_PRELOAD: '/opt/other.so',
      FAKETIME: undefined,
      FAKETIME_DONT_FAKE_MONOTONIC: undefined,
    });
    expect(clockOffsetEnv(0, LIB)).toEqual({
      LD_PRELOAD: undefined,
      FAKETIME: undefined,
      FAKETIME_DONT_FAKE_MONOTONIC: undefined,
    });
  });
});
