/**
 * Kubernetes resource quantities (`100m`, `1.5`, `4Gi`, `1e3`) as exact integers of milli-units,
 * with the canonical string forms the API server prints (`1500m`, `2`, `5k`, `256Gi`). Node
 * allocatable sums of a large cluster overflow 2^53 in milli-units, hence bigint; comparing one
 * request against a cluster's capacity fits a number ({@link parseMilli}).
 */
import type { Quantity } from './meta.ts';

/** How a quantity is printed: the suffix family it was written in. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface ParsedQuantity {
  /** The value × 1000, rounded up (as MilliValue rounds). */
  readonly milli: bigint;
  readonly format: QuantityFormat;
}

const BINARY: Readonly<Record<string, number>> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
/** Decimal suffixes (`m`, `k`, `M`...) and the power of ten each stands for. */
export const DECIMAL_SUFFIX_EXPONENTS: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE])|[eE]([+-]?\d+))?$/;

/** Parses `100m`, `1.5`, `4Gi`, `1e3`; undefined for anything else. */
export function parseQuantity(text: Quantity): ParsedQuantity | undefined {
  const m = QUANTITY.exec(String(text).trim());
  if (m === null) return undefined;
  const [, sign = '', number = '', binary, decimal, exponent] = m;
  const [whole = '', fraction = ''] = number.split('.');
  const digits = BigInt(`0${whole}${fraction}`);
  const s = scaleOf(binary, decimal, exponent);
  const value = digits * s.factor;
  const power10 = 3 - fraction.length + s.power10; // milli-units
  const format = s.format;
  const milli = power10 >= 0 ? value * 10n ** BigInt(power10) : ceilDiv(value, 10n ** BigInt(-power10));
  return { milli: sign === '-' ? -milli : milli, format };
}

/**
 * The quantity × 1000 as a number, rounded up to a whole milli-unit (as Kubernetes' MilliValue
 * rounds); undefined when the text is not a quantity. Exact up to 2^53 milli-units (8 PiB of
 * memory), far beyond what one workload asks of a cluster.
 */
export function parseMilli(quantity: Quantity): number | undefined {
  const q = parseQuantity(quantity);
  return q === undefined ? undefined : Number(q.milli);
}

/** Whole units rounded up, as Kubernetes' Value() reads a quantity. */
export function wholeUnits(milli: number): number {
  return Math.ceil(milli / 1000);
}

/** What a suffix does: a binary factor, or a power of ten; and the format it implies. */
function scaleOf(
  binary: string | undefined,
  decimal: string | undefined,
  exponent: string | undefined,
): { factor: bigint; power10: number; format: QuantityFormat } {
  if (binary !== undefined)
    return { factor: 1024n ** BigInt(BINARY[binary] ?? 0), power10: 0, format: 'BinarySI' };
  if (exponent !== undefined) return { factor: 1n, power10: Number(exponent), format: 'DecimalExponent' };
  return { factor: 1n, power10: DECIMAL_SUFFIX_EXPONENTS[decimal ?? ''] ?? 0, format: 'DecimalSI' };
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

const DECIMAL_SUFFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'] as const;
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;

/**
 * The canonical string of `milli` in `format`, as apimachinery prints it: the largest suffix
 * that keeps the number whole; binary only for whole values of at least 1024 (else decimal).
 */
export function formatQuantity(milli: bigint, format: QuantityFormat): string {
  if (milli < 0n) return `-${formatQuantity(-milli, format)}`;
  if (format === 'BinarySI' && milli % 1000n === 0n && milli >= 1024_000n) {
    return withLargestSuffix(milli / 1000n, 1024n, BINARY_SUFFIXES);
  }
  if (milli % 1000n !== 0n) return `${milli}m`;
  return withLargestSuffix(milli / 1000n, 1000n, DECIMAL_SUFFIXES);
}

function withLargestSuffix(value: bigint, base: bigint, suffixes: readonly string[]): string {
  if (value === 0n) return '0';
  let n = value;
  let i = 0;
  while (i < suffixes.length - 1 && n % base === 0n) {
    n /= base;
    i++;
  }
  return `${n}${suffixes[i] ?? ''}`;
}
