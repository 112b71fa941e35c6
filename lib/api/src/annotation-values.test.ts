import { describe, expect, it } from 'vitest';
import { wholeSeconds } from './annotation-values.ts';

describe('wholeSeconds', () => {
  it.each<[string | undefined, number | undefined]>([
    ['15', 15],
    [' 15 ', 15],
    ['0', 0],
    ['15s', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %j', (value, expected) => {
    expect(wholeSeconds(value)).toBe(expected);
  });
});
