import { pino, type DestinationStream, type LevelWithSilent, type Logger as PinoLogger } from 'pino';

/** The logger type passed down through the code (always a pino logger or a child of one). */
export type Logger = PinoLogger;

/** Level names accepted by `--log-level`, most to least verbose, then `silent`. */
export type LogLevel = LevelWithSilent;

/**
 * Paths whose values are replaced by `[Redacted]`: credentials must never reach a log line, even
 * when a whole config or request object is logged by mistake. Redaction never touches `msg`, so
 * messages stay constant and free of values.
 */
export const REDACT_PATHS: readonly string[] = Object.freeze([
  'token',
  '*.token',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  '["client-key-data"]',
  '*["client-key-data"]',
  'kubeconfig',
  '*.kubeconfig',
]);

export interface LoggerOptions {
  /** Bound as `component` on every line (`agent`, `probe`, `controlplane`…). */
  readonly component: string;
  /** Default `info`. */
  readonly level?: LogLevel;
  /** Where JSON lines go (default stdout); tests pass a sink. */
  readonly destination?: DestinationStream;
}

/**
 * Builds the root logger of a process: one JSON object per line, ISO timestamps, level names
 * instead of numbers (readable without tooling), errors serialized under `err`, secrets redacted
 * ({@link REDACT_PATHS}). Subsystems take `log.child({ … })` of it; nothing imports a singleton.
 */
export function createLogger(options: LoggerOptions): Logger {
  const config = {
    level: options.level ?? 'info',
    base: { component: options.component },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: [...REDACT_PATHS], censor: '[Redacted]' },
  };
  return options.destination === undefined ? pino(config) : pino(config, options.destination);
}

/**
 * A child of `parent` with `bindings()`, made only when something first reads it: a logging call,
 * a level check, a further child. Making a child costs a few microseconds (its bindings are
 * serialised and redacted at once), which a reconcile that logs nothing, most of them, need not
 * pay: at a cold start that is tens of thousands of reconciles back to back.
 */
export function lazyChild(parent: Logger, bindings: () => Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const real = (): Logger => (child ??= parent.child(bindings()));
  return new Proxy({} as Logger, {
    get(_target, prop) {
      const target = real();
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    set: (_target, prop, value) => Reflect.set(real(), prop, value),
    has: (_target, prop) => Reflect.has(real(), prop),
  });
}
