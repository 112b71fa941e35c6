import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatQuantity, parseMilli, parseQuantity, wholeUnits } from './quantity.ts';

describe('parseQuantity', () => {
  it.each([
    ['100m', 100n, 'DecimalSI'],
    ['1', 1000n, 'DecimalSI'],
    ['1.5', 1500n, 'DecimalSI'],
    ['.5', 500n, 'DecimalSI'],
    ['32', 32_000n, 'DecimalSI'],
    ['5k', 5_000_000n, 'DecimalSI'],
    ['1Ki', 1_024_000n, 'BinarySI'],
    ['256Gi', 256n * 1024n ** 3n * 1000n, 'BinarySI'],
    ['1e3', 1_000_000n, 'DecimalExponent'],
    ['1u', 1n, 'DecimalSI'], // rounded up to a whole milli-unit
    ['-2', -2000n, 'DecimalSI'],
    [110, 110_000n, 'DecimalSI'],
  ] as const)('parses %j', (text, milli, format) => {
    expect(parseQuantity(text)).toEqual({ milli, format });
  });

  it.each(['', 'abc', '1Kb', '1..5', 'Gi', '1 Gi'])('refuses %j', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });
});

describe('formatQuantity', () => {
  it.each([
    [0n, 'DecimalSI', '0'],
    [100n, 'DecimalSI', '100m'],
    [1500n, 'DecimalSI', '1500m'],
    [2000n, 'DecimalSI', '2'],
    [1_500_000n, 'DecimalSI', '1500'],
    [5_000_000n, 'DecimalSI', '5k'],
    [16_000_000_000n, 'DecimalSI', '16M'],
    [1_024_000n, 'BinarySI', '1Ki'],
    [1_536_000n, 'BinarySI', '1536'],
    [1_000_000n, 'BinarySI', '1k'], // below 1024: printed as decimal
    [1500n, 'BinarySI', '1500m'], // not whole: printed as decimal
    [64n * 1024n ** 2n * 1000n, 'BinarySI', '64Mi'],
    [500n * 256n * 1024n ** 3n * 1000n, 'BinarySI', '125Ti'],
    [-2000n, 'DecimalSI', '-2'],
  ] as const)('prints %d milli in %s as %s', (milli, format, text) => {
    expect(formatQuantity(milli, format)).toBe(text);
  });

  it('round-trips through parseQuantity', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 21n }),
        fc.constantFrom('DecimalSI', 'BinarySI'),
        (m, f) => {
          expect(parseQuantity(formatQuantity(m, f))?.milli).toBe(m);
        },
      ),
    );
  });
});

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
