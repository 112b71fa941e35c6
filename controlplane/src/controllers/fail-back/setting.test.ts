import { describe, expect, it } from 'vitest';
import { annotations } from '@kf/api';
import { MAX_FAIL_BACK_WINDOW_SECONDS, readFailBackSetting } from './setting.ts';

const KEY = 'failover.karmada-failover.io/fail-back-after-seconds';
const withValue = (value: string): Record<string, string> => ({ [KEY]: value });

describe('readFailBackSetting', () => {
  it('reads the annotation the resource detector copies from the policy', () => {
    expect(annotations.failBackAfterSeconds).toBe(KEY);
  });

  it('is off without annotations or without the annotation', () => {
    expect(readFailBackSetting(undefined)).toEqual({ kind: 'off' });
    expect(readFailBackSetting({})).toEqual({ kind: 'off' });
    expect(readFailBackSetting({ 'example.com/other': '300' })).toEqual({ kind: 'off' });
  });

  it('turns whole seconds into a window in milliseconds', () => {
    expect(readFailBackSetting(withValue('300'))).toEqual({ kind: 'on', windowMs: 300_000 });
    expect(readFailBackSetting(withValue('1'))).toEqual({ kind: 'on', windowMs: 1_000 });
  });

  it('ignores spaces around the number', () => {
    expect(readFailBackSetting(withValue(' 60 '))).toEqual({ kind: 'on', windowMs: 60_000 });
    expect(readFailBackSetting(withValue('\t60\n'))).toEqual({ kind: 'on', windowMs: 60_000 });
  });

  it('accepts the maximum, one week', () => {
    expect(MAX_FAIL_BACK_WINDOW_SECONDS).toBe(604_800);
    expect(readFailBackSetting(withValue('604800'))).toEqual({ kind: 'on', windowMs: 604_800_000 });
  });

  it.each<[string, string, string]>([
    ['zero', '0', `${KEY} must be between 1 and 604800 seconds, got 0`],
    ['over the maximum', '604801', `${KEY} must be between 1 and 604800 seconds, got 604801`],
    ['over the maximum, with spaces', ' 999999 ', `${KEY} must be between 1 and 604800 seconds, got 999999`],
    ['negative', '-5', `${KEY} must be a whole number of seconds, got "-5"`],
    ['fractional', '1.5', `${KEY} must be a whole number of seconds, got "1.5"`],
    ['not a number', 'abc', `${KEY} must be a whole number of seconds, got "abc"`],
    ['empty', '', `${KEY} must be a whole number of seconds, got ""`],
    ['blank', '   ', `${KEY} must be a whole number of seconds, got "   "`],
    ['a unit', '60s', `${KEY} must be a whole number of seconds, got "60s"`],
    ['an exponent', '1e3', `${KEY} must be a whole number of seconds, got "1e3"`],
    ['two numbers', '60 60', `${KEY} must be a whole number of seconds, got "60 60"`],
  ])('is invalid when %s (%j), naming the annotation and the value', (_name, value, problem) => {
    expect(readFailBackSetting(withValue(value))).toEqual({ kind: 'invalid', problem });
  });
});
