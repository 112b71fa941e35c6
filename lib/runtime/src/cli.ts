import { CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError } from './errors.ts';
import type { LogLevel } from './logger.ts';
import { MAX_TIMER_DELAY_MS } from './timer-delay.ts';

/** Default prefix of the environment variables that back flags. */
export const DEFAULT_ENV_PREFIX = 'KF_';

/**
 * The environment variable backing a long flag, derived mechanically so that nobody has to
 * remember it: `cluster-name` → `KF_CLUSTER_NAME`.
 */
export function envVarName(longFlag: string, envPrefix = DEFAULT_ENV_PREFIX): string {
  return `${envPrefix}${longFlag.replace(/^--/, '').replaceAll('-', '_').toUpperCase()}`;
}

/**
 * A commander option whose environment default is named after its long flag
 * (`--cluster-name <name>` → `KF_CLUSTER_NAME`). Precedence: flag, then environment, then default.
 * Throws when `flags` has no `--long` name.
 */
export function flag(flags: string, description: string, envPrefix = DEFAULT_ENV_PREFIX): Option {
  const long = /--([a-z0-9][a-z0-9-]*)/i.exec(flags)?.[1];
  if (long === undefined) throw new Error(`flag "${flags}" needs a --long name`);
  return new Option(flags, description).env(envVarName(long, envPrefix));
}

/** How {@link durationFlag} bounds and names one duration flag. */
export interface DurationFlagOptions {
  /** Largest accepted value (default and ceiling: {@link MAX_TIMER_DELAY_MS}). */
  readonly maxMs?: number;
  readonly envPrefix?: string;
}

/**
 * A {@link flag} taking a Go duration (`10s`, `1m30s`), parsed to ms, with `defaultMs` shown in
 * help the way Karmada shows it (`40s`, `5m0s`). Values above `maxMs` are refused with a message
 * that states the maximum.
 */
export function durationFlag(
  flags: string,
  description: string,
  defaultMs: number,
  options: DurationFlagOptions = {},
): Option {
  const maxMs = Math.min(options.maxMs ?? MAX_TIMER_DELAY_MS, MAX_TIMER_DELAY_MS);
  return flag(flags, description, options.envPrefix)
    .argParser((text: string) => parseGoDuration(text, maxMs))
    .default(defaultMs, formatDuration(defaultMs));
}

/**
 * A {@link flag} taking Go's bool syntax: `--x` alone means true, `--x=false` (or `--x false`)
 * turns it off, as Karmada's binaries accept. Help shows the flag as `--x [bool]`.
 */
export function boolFlag(
  flags: string,
  description: string,
  defaultValue: boolean,
  envPrefix = DEFAULT_ENV_PREFIX,
): Option {
  return flag(`${flags} [bool]`, description, envPrefix)
    .argParser(parseBool)
    .preset('true')
    .default(defaultValue, String(defaultValue));
}

/** Go's bool flag syntax: `true`, `false`, `1`, `0`, `t`, `f` (any case). Throws `InvalidArgumentError`. */
export function parseBool(text: string): boolean {
  const t = text.trim().toLowerCase();
  if (t === 'true' || t === 't' || t === '1') return true;
  if (t === 'false' || t === 'f' || t === '0') return false;
  throw new InvalidArgumentError(`"${text}" is not a boolean (true or false)`);
}

const NS_PER_UNIT: ReadonlyMap<string, number> = new Map([
  ['ns', 1],
  ['us', 1e3],
  ['µs', 1e3], // U+00B5 micro sign
  ['μs', 1e3], // U+03BC Greek mu
  ['ms', 1e6],
  ['s', 1e9],
  ['m', 60e9],
  ['h', 3600e9],
]);

/** Go's limit: a time.Duration is an int64 of nanoseconds. */
const MAX_NS = 2 ** 63;

/**
 * Parses a Go `time.Duration` string (`300ms`, `1.5h`, `2h45m`, `1m30s`, `0`; units ns, us, µs,
 * ms, s, m, h) to milliseconds, rounded to the nearest ms (`1us` → 0, `1500us` → 2). Negative
 * durations are refused, since no flag of ours means anything by them, and so are durations above
 * `maxMs`: by default Node's timer limit ({@link MAX_TIMER_DELAY_MS}, about 24.8 days), beyond
 * which a timer fires at once instead of late. Throws `InvalidArgumentError` (a commander error,
 * so the CLI reports it against the flag).
 */
export function parseGoDuration(text: string, maxMs: number = MAX_TIMER_DELAY_MS): number {
  const sign = /^[-+]/.exec(text)?.[0];
  const body = sign === undefined ? text : text.slice(1);
  if (body === '0') return 0; // the one unitless value Go accepts
  const ns = sumComponents(body, text);
  if (ns >= MAX_NS) throw invalidDuration(text, 'too large');
  if (sign === '-' && ns > 0) throw invalidDuration(text, 'must not be negative');
  const ms = Math.round(ns / 1e6);
  if (ms > maxMs) {
    throw new InvalidArgumentError(`duration "${text}" is too long: the maximum is ${formatDuration(maxMs)}`);
  }
  return ms;
}

/** Nanoseconds in `body`, a sequence of `<decimal><unit>` components. */
function sumComponents(body: string, text: string): number {
  if (body === '') throw invalidDuration(text, 'empty');
  const component = /(\d*)(?:\.(\d*))?([^\d.]*)/y;
  let ns = 0;
  // Every iteration either throws or consumes at least one character.
  while (component.lastIndex < body.length) ns += componentNs(component.exec(body) ?? [], text);
  return ns;
}

/** Nanoseconds of one matched `<int>.<frac><unit>` component. */
function componentNs([, int = '', frac, unit = '']: readonly (string | undefined)[], text: string): number {
  if (int === '' && (frac ?? '') === '') throw invalidDuration(text, 'expected a number');
  if (unit === '') throw invalidDuration(text, 'missing unit');
  const perUnit = NS_PER_UNIT.get(unit);
  if (perUnit === undefined) throw invalidDuration(text, `unknown unit "${unit}"`);
  return Number(int === '' ? '0' : int) * perUnit + Number(`0.${frac ?? ''}0`) * perUnit;
}

function invalidDuration(text: string, why: string): InvalidArgumentError {
  return new InvalidArgumentError(`invalid duration "${text}": ${why} (examples: 500ms, 10s, 1m30s, 2h)`);
}

/**
 * Formats milliseconds the way Go's `time.Duration.String()` does (`0s`, `500ms`, `1.5s`,
 * `1m30s`, `1h0m0s`), so help texts show defaults exactly as Karmada's binaries do.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`cannot format duration ${ms}`);
  const sign = ms < 0 ? '-' : '';
  let u = BigInt(Math.round(Math.abs(ms) * 1e6)); // nanoseconds, as Go counts them
  if (u === 0n) return '0s';
  if (u < 1_000_000_000n) {
    if (u < 1_000n) return `${sign}${u}ns`;
    if (u < 1_000_000n) return `${sign}${withFraction(u, 3)}µs`;
    return `${sign}${withFraction(u, 6)}ms`;
  }
  const seconds = `${withFraction(u % 60_000_000_000n, 9)}s`;
  u /= 60_000_000_000n; // whole minutes
  if (u === 0n) return `${sign}${seconds}`;
  const minutes = `${u % 60n}m`;
  u /= 60n; // whole hours
  return u === 0n ? `${sign}${minutes}${seconds}` : `${sign}${u}h${minutes}${seconds}`;
}

/** `value / 10^digits` in decimal, trailing zeros of the fraction dropped. */
function withFraction(value: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const frac = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return frac === '' ? `${value / scale}` : `${value / scale}.${frac}`;
}

/** Parses a decimal integer ≥ 1 (worker counts, replicas). Throws `InvalidArgumentError`. */
export function parsePositiveInt(text: string): number {
  const value = /^\+?\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new InvalidArgumentError(`"${text}" is not a positive integer`);
  }
  return value;
}

/** Parses a ratio in [0, 1] (`0`, `0.55`, `1`). Throws `InvalidArgumentError`. */
export function parseRatio(text: string): number {
  const value = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(value >= 0 && value <= 1)) throw new InvalidArgumentError(`"${text}" is not a ratio between 0 and 1`);
  return value;
}

/** The accepted `--log-level` values, most verbose first. */
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze([
  'trace',
  'debug',
  'info',
  'warn',
  'error',
  'fatal',
  'silent',
]);

/** Parses a log level name (case-insensitive). Throws `InvalidArgumentError` listing the valid ones. */
export function parseLogLevel(text: string): LogLevel {
  const level = LOG_LEVELS.find((l) => l === text.trim().toLowerCase());
  if (level === undefined) {
    throw new InvalidArgumentError(`"${text}" is not a log level (one of ${LOG_LEVELS.join(', ')})`);
  }
  return level;
}

/** Collects configuration problems while a config is being built; see {@link collectProblems}. */
export interface Problems {
  /** Records a problem: one sentence saying what is wrong and, ideally, how to fix it. */
  add(problem: string): void;
  /** Records `problem` unless `ok`. */
  check(ok: boolean, problem: string): void;
  /**
   * Parses `text` with `parse`; if it throws, records `<name>: <message>` and returns `fallback`
   * so that building can go on and find the remaining problems. `undefined` text gives `fallback`.
   */
  parse<T>(name: string, text: string | undefined, parse: (text: string) => T, fallback: T): T;
}

/**
 * Builds a configuration, reporting every problem at once: `build` records problems as it goes
 * and returns the config; if any were recorded this throws one {@link ConfigError} listing them
 * all, else it returns the config deeply frozen.
 */
export function collectProblems<T extends object>(build: (problems: Problems) => T): Readonly<T> {
  const found: string[] = [];
  const problems: Problems = {
    add: (problem) => void found.push(problem),
    check: (ok, problem) => {
      if (!ok) found.push(problem);
    },
    parse: (name, text, parse, fallback) => {
      if (text === undefined) return fallback;
      try {
        return parse(text);
      } catch (err: unknown) {
        found.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
        return fallback;
      }
    },
  };
  const config = build(problems);
  if (found.length > 0) throw new ConfigError(found);
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}

/**
 * The exit code for an error that reached `main.ts`: 0 for commander's help and version exits,
 * 2 for bad flags or configuration ({@link ConfigError}, commander usage errors), 1 otherwise.
 */
export function exitCodeFor(err: unknown): number {
  if (err instanceof ConfigError) return 2;
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
  return 1;
}
