import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMilli, wholeUnits } from './quantity.ts';

describe('parseMilli', () => {
  it.each([
    ['100m', 100],
    ['1', 1000],
    ['1.5', 1500],
    ['.5', 500],
    ['0.1', 100],
    ['5k', 5_000_000],
    ['1Ki', 1_024_000],
    ['4Gi', 4 * 1024 ** 3 * 1000],
    ['1e3', 1_000_000],
    ['1E-3', 1],
    ['1u', 1], // rounded up to a whole milli-unit
    ['1n', 1],
    ['-2', -2000],
    [' 3 ', 3000],
    [110, 110_000],
  ] as const)('reads %j as %d milli', (text, milli) => {
    expect(parseMilli(text)).toBe(milli);
  });

  it.each(['', 'abc', '1Kb', '1..5', 'Gi', '1 Gi', '--1'])('refuses %j', (text) => {
    expect(parseMilli(text)).toBeUndefined();
  });

  it('reads every integer as a thousand milli-units', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (n) => {
        expect(parseMilli(String(n))).toBe(n * 1000);
      }),
    );
  });
});

describe('wholeUnits', () => {
  it.each([
    [0, 0],
    [1, 1],
    [1000, 1],
    [1001, 2],
    [-500, -0],
  ])('rounds %d milli up to %d', (milli, units) => {
    expect(wholeUnits(milli)).toBe(units);
  });
});
