/**
 * Resource quantities (`100m`, `1.5`, `4Gi`, `1e3`) as milli-units, the way the replica estimator
 * compares them. Values are exact up to 2^53 milli-units (8 PiB of memory), far beyond a cluster.
 */
import type { Quantity } from '@kf/api';

const BINARY_POWERS: Readonly<Record<string, bigint>> = { Ki: 1n, Mi: 2n, Gi: 3n, Ti: 4n, Pi: 5n, Ei: 6n };
const DECIMAL_EXPONENTS: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE])|[eE]([+-]?\d+))?$/;

/**
 * The quantity × 1000, rounded up to a whole milli-unit (as Kubernetes' MilliValue rounds);
 * undefined when the text is not a quantity.
 */
export function parseMilli(quantity: Quantity): number | undefined {
  const m = QUANTITY.exec(String(quantity).trim());
  if (m === null) return undefined;
  const [, sign = '', number = '', binary, decimal, exponent] = m;
  const [whole = '', fraction = ''] = number.split('.');
  const scaled = BigInt(`0${whole}${fraction}`) * binaryFactor(binary);
  const exponent10 = 3 - fraction.length + decimalExponent(decimal, exponent);
  const milli =
    exponent10 >= 0 ? scaled * 10n ** BigInt(exponent10) : ceilDivide(scaled, 10n ** BigInt(-exponent10));
  return Number(sign === '-' ? -milli : milli);
}

/** Whole units rounded up, as Kubernetes' Value() reads a quantity. */
export function wholeUnits(milli: number): number {
  return Math.ceil(milli / 1000);
}

function binaryFactor(suffix: string | undefined): bigint {
  return suffix === undefined ? 1n : 1024n ** (BINARY_POWERS[suffix] ?? 0n);
}

function decimalExponent(suffix: string | undefined, exponent: string | undefined): number {
  if (exponent !== undefined) return Number(exponent);
  return suffix === undefined ? 0 : (DECIMAL_EXPONENTS[suffix] ?? 0);
}

function ceilDivide(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
