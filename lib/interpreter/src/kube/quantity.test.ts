import { describe, expect, it } from 'vitest';
import {
  QuantityError,
  ZERO,
  addQuantities,
  approximateNumber,
  formatQuantity,
  parseQuantity,
  quantityOf,
  scaledValue,
} from './quantity.ts';

const canonical = (text: string): string => formatQuantity(parseQuantity(text));
const sum = (...texts: string[]): string =>
  formatQuantity(texts.map(parseQuantity).reduce(addQuantities, ZERO));

describe('quantities', () => {
  it.each([
    ['0', '0'],
    ['1', '1'],
    ['1.5', '1500m'],
    ['0.1', '100m'],
    ['1000', '1k'],
    ['1500', '1500'],
    ['2048m', '2048m'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['1000Ki', '1000Ki'],
    ['512', '512'],
    ['1e3', '1e3'],
    ['1.5e3', '1500'],
    ['12e6', '12e6'],
    ['100n', '100n'],
    ['0.0000000001', '1n'],
    ['-1.5', '-1500m'],
    ['+2', '2'],
    ['0.5Ki', '512'],
    ['1.5Ki', '1536'],
    ['.5', '500m'],
    ['5E', '5E'],
  ])('%s prints as %s', (text, expected) => {
    expect(canonical(text)).toBe(expected);
  });

  it.each(['', 'abc', '1.2.3', '1Zi', '1 Gi', '--1', '1e'])('refuses %j', (text) => {
    expect(() => parseQuantity(text)).toThrow(QuantityError);
  });

  it('adds exactly, in the format of the first non-zero term', () => {
    expect(sum('1', '500m')).toBe('1500m');
    expect(sum('1Gi', '512Mi')).toBe('1536Mi');
    expect(sum('100m', '1Gi')).toBe('1073741824100m');
    expect(sum('1n', '1n')).toBe('2n');
    expect(sum('1e3', '1e3')).toBe('2e3');
    expect(sum()).toBe('0');
    expect(sum('1', '-1')).toBe('0');
  });

  it('scales rounding up, as MilliValue and Value do', () => {
    expect(scaledValue(parseQuantity('1.5'), -3)).toBe(1500n);
    expect(scaledValue(parseQuantity('0.1m'), -3)).toBe(1n);
    expect(scaledValue(parseQuantity('2048m'), 0)).toBe(3n);
    expect(scaledValue(parseQuantity('1Ki'), 0)).toBe(1024n);
  });

  it('approximates as a float', () => {
    expect(approximateNumber(parseQuantity('2Gi'))).toBe(2147483648);
    expect(approximateNumber(parseQuantity('2048m'))).toBeCloseTo(2.048);
  });

  it('prints computed amounts like NewMilliQuantity and NewQuantity', () => {
    expect(formatQuantity(quantityOf(2500n, 'DecimalSI', true))).toBe('2500m');
    expect(formatQuantity(quantityOf(3000n, 'DecimalSI', true))).toBe('3');
    expect(formatQuantity(quantityOf(2147483648n, 'BinarySI'))).toBe('2Gi');
    expect(formatQuantity(quantityOf(1000000000n, 'BinarySI'))).toBe('1000000000');
    expect(formatQuantity(quantityOf(1000n, 'BinarySI'))).toBe('1k');
  });
});
