import { describe, expect, it } from 'vitest';
import { MAX_TIMER_DELAY_MS, timerDelayMs } from './timer-delay.ts';

describe('timerDelayMs', () => {
  it.each([
    ['a delay in range as it is', 1_500, 1_500],
    ['zero as zero', 0, 0],
    ['a past deadline as due now', -20, 0],
    ['NaN as due now', Number.NaN, 0],
    ['the largest delay a timer keeps as it is', MAX_TIMER_DELAY_MS, MAX_TIMER_DELAY_MS],
    ['one more millisecond as the largest', MAX_TIMER_DELAY_MS + 1, MAX_TIMER_DELAY_MS],
    ['700 hours as the largest', 700 * 3_600_000, MAX_TIMER_DELAY_MS],
    ['infinity as the largest', Number.POSITIVE_INFINITY, MAX_TIMER_DELAY_MS],
  ])('gives %s', (_name, ms, expected) => {
    expect(timerDelayMs(ms)).toBe(expected);
  });

  it('is the limit of Node timers: 2^31 - 1 ms, about 24.8 days', () => {
    expect(MAX_TIMER_DELAY_MS).toBe(2_147_483_647);
  });
});
