/**
 * Kubernetes resource quantities with the exact arithmetic and canonical strings of apimachinery's
 * `resource.Quantity`, which the `kube` helpers return to scripts: a value is an exact decimal
 * (rounded up to nano-units when parsed), remembers the suffix family it was written in, and
 * prints in the largest suffix that keeps its number whole (`1500m`, `2k`, `1536Mi`, `12e6`).
 */
import { DECIMAL_SUFFIX_EXPONENTS } from '@kf/api';

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** value = mantissa × 10^exponent. A zero quantity that was never given a format has none. */
export interface Quantity {
  readonly mantissa: bigint;
  readonly exponent: number;
  readonly format: QuantityFormat | undefined;
}

export class QuantityError extends Error {}

export const ZERO: Quantity = { mantissa: 0n, exponent: 0, format: undefined };

const SYNTAX = /^([+-]?)(\d*)(?:\.(\d*))?([eEinumkKMGTP]*[+-]?\d*)$/;
// The suffixes are the API's; the exact nano-unit arithmetic scripts need is this module's own.
const DECIMAL_SUFFIXES = DECIMAL_SUFFIX_EXPONENTS;
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const NANO = -9;
const MAX_BINARY = 2n ** 63n - 1n;
const QUANTITY_PATTERN = "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** Parses a quantity as apimachinery's ParseQuantity does; throws QuantityError otherwise. */
export function parseQuantity(text: string): Quantity {
  const match = SYNTAX.exec(text);
  if (text === '' || match === null) {
    throw new QuantityError(
      `cannot parse '${text}': quantities must match the regular expression ${QUANTITY_PATTERN}`,
    );
  }
  const [, sign, whole = '', fraction = '', suffix = ''] = match;
  const scale = suffixScale(suffix, text);
  const digits = BigInt(`0${whole}${fraction}`);
  const exact =
    scale.base === 10
      ? { mantissa: digits, exponent: scale.power - fraction.length }
      : { mantissa: digits * 2n ** BigInt(scale.power), exponent: -fraction.length };
  const magnitude = boundBinary(roundUpToNano(exact.mantissa, exact.exponent), scale.format);
  return { ...magnitude, mantissa: sign === '-' ? -magnitude.mantissa : magnitude.mantissa };
}

/** Binary quantities are capped at 2^63-1 and shown as decimal below one unit. */
function boundBinary(q: { mantissa: bigint; exponent: number }, format: QuantityFormat): Quantity {
  if (format !== 'BinarySI') return { ...q, format };
  const capped =
    compareTo(q.mantissa, q.exponent, MAX_BINARY) > 0 ? { mantissa: MAX_BINARY, exponent: 0 } : q;
  const belowOne = capped.mantissa !== 0n && compareTo(capped.mantissa, capped.exponent, 1n) < 0;
  return { ...capped, format: belowOne ? 'DecimalSI' : 'BinarySI' };
}

function suffixScale(suffix: string, text: string): { base: 2 | 10; power: number; format: QuantityFormat } {
  const decimal = DECIMAL_SUFFIXES[suffix];
  if (decimal !== undefined) return { base: 10, power: decimal, format: 'DecimalSI' };
  const binary = BINARY_SUFFIXES[suffix];
  if (binary !== undefined) return { base: 2, power: binary, format: 'BinarySI' };
  if (/^[eE][+-]?\d+$/.test(suffix))
    return { base: 10, power: Number(suffix.slice(1)), format: 'DecimalExponent' };
  throw new QuantityError(`cannot parse '${text}': unable to parse quantity's suffix`);
}

/** Anything finer than a nano-unit is rounded away from zero, so a tiny request stays non-zero. */
function roundUpToNano(mantissa: bigint, exponent: number): { mantissa: bigint; exponent: number } {
  if (exponent >= NANO || mantissa === 0n) return { mantissa, exponent };
  const divisor = 10n ** BigInt(NANO - exponent);
  const quotient = mantissa / divisor;
  return { mantissa: mantissa % divisor === 0n ? quotient : quotient + 1n, exponent: NANO };
}

/** Sign of (mantissa × 10^exponent − other), for mantissa ≥ 0. */
function compareTo(mantissa: bigint, exponent: number, other: bigint): number {
  const left = exponent >= 0 ? mantissa * 10n ** BigInt(exponent) : mantissa;
  const right = exponent >= 0 ? other : other * 10n ** BigInt(-exponent);
  return left === right ? 0 : left > right ? 1 : -1;
}

/** The exact sum; a zero left-hand side takes the format of what is added, as Quantity.Add does. */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  const exponent = Math.min(a.exponent, b.exponent);
  const mantissa =
    a.mantissa * 10n ** BigInt(a.exponent - exponent) + b.mantissa * 10n ** BigInt(b.exponent - exponent);
  return { mantissa, exponent, format: a.mantissa === 0n ? b.format : a.format };
}

/** A whole number of milli-units (or units) as a quantity, like NewMilliQuantity / NewQuantity. */
export function quantityOf(value: bigint, format: QuantityFormat, milli = false): Quantity {
  return { mantissa: value, exponent: milli ? -3 : 0, format };
}

/** The value scaled by 10^scale, rounded up (away from zero) to a whole number. */
export function scaledValue(q: Quantity, scale: number): bigint {
  const shift = q.exponent - scale;
  if (shift >= 0) return q.mantissa * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  const quotient = q.mantissa / divisor;
  if (q.mantissa % divisor === 0n) return quotient;
  return q.mantissa > 0n ? quotient + 1n : quotient - 1n;
}

/** As AsApproximateFloat64: mantissa × 10^exponent in floating point. */
export function approximateNumber(q: Quantity): number {
  return Number(q.mantissa) * 10 ** q.exponent;
}

/** The canonical string, as Quantity.String() prints a computed quantity. */
export function formatQuantity(q: Quantity): string {
  if (q.mantissa === 0n) return '0';
  let format = q.format ?? 'DecimalExponent';
  if (format === 'BinarySI' && (isBelow1024(q) || !isWhole(q))) format = 'DecimalSI';
  if (format === 'BinarySI') return formatBinary(scaledValue(q, 0));
  return formatDecimal(q, format);
}

function isBelow1024(q: Quantity): boolean {
  const magnitude = q.mantissa < 0n ? -q.mantissa : q.mantissa;
  return compareTo(magnitude, q.exponent, 1024n) < 0;
}

function isWhole(q: Quantity): boolean {
  return q.exponent >= 0 || q.mantissa % 10n ** BigInt(-q.exponent) === 0n;
}

function formatDecimal(q: Quantity, format: QuantityFormat): string {
  let mantissa = q.mantissa;
  let exponent = q.exponent;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  while (exponent % 3 !== 0) {
    mantissa *= 10n;
    exponent--;
  }
  if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  const suffix = Object.keys(DECIMAL_SUFFIXES).find((s) => DECIMAL_SUFFIXES[s] === exponent);
  return suffix === undefined ? `${mantissa}e${exponent}` : `${mantissa}${suffix}`;
}

function formatBinary(value: bigint): string {
  const suffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
  let n = value;
  let power = 0;
  while (power < suffixes.length - 1 && n % 1024n === 0n) {
    n /= 1024n;
    power++;
  }
  return `${n}${suffixes[power] ?? ''}`;
}
