/**
 * How an operator command (`agent status`, `agent condition set`, `controlplane explain`, …; not a
 * long-running `run`, whose failures are logged) ends on an error: one plain line for stderr and an
 * exit code. 2 when the input was wrong: bad flags or files ({@link ConfigError}, commander's usage
 * errors) and a request the API server refused as invalid (400 or 422: a type, reason or name given
 * on the command line). 1 for the rest: an API server that cannot be reached, refuses the
 * credentials or the permission, or fails.
 */
import { ConfigError, exitCodeFor, type Logger } from '@kf/runtime';
import { KubeError, type KubeErrorCode } from './errors.ts';

export interface CommandFailure {
  readonly exitCode: number;
  /** What to print on stderr; undefined when commander printed its own message (or help). */
  readonly message?: string;
}

/** What the operator is told first, by the kind of API failure; the server's words follow. */
const KUBE_PREFIX: Partial<Record<KubeErrorCode, string>> = {
  Invalid: 'the API server refused the request as invalid',
  Network: 'cannot reach the API server',
  Timeout: 'the API server did not answer in time',
  Unauthorized: 'the API server refused the credentials of the kubeconfig',
  Unavailable: 'the API server is unavailable',
};

/** The failure of an operator command: see the module header. */
export function commandFailure(err: unknown): CommandFailure {
  if (err instanceof ConfigError) return { exitCode: 2, message: err.message };
  const exitCode = exitCodeFor(err);
  if (exitCode !== 1) return { exitCode }; // commander: usage error, help or version, already printed
  return {
    exitCode: err instanceof KubeError && err.code === 'Invalid' ? 2 : 1,
    message: `error: ${describeFailure(err)}`,
  };
}

/**
 * One line for a failure: an API failure says first what kind it is, and an error that wraps
 * another (`new Error('cannot register …', { cause })`) says what it was doing, then why.
 */
function describeFailure(err: unknown): string {
  if (err instanceof KubeError) {
    const prefix = KUBE_PREFIX[err.code];
    const text = oneLine(err.message);
    return prefix === undefined ? text : `${prefix}: ${text}`;
  }
  if (!(err instanceof Error)) return oneLine(String(err));
  const text = oneLine(err.message);
  return err.cause === undefined ? text : `${text}: ${describeFailure(err.cause)}`;
}

/**
 * How a service's `run` ends on a failure once its flags were accepted: the caller logs it (a
 * fatal entry with its stack, for the log pipeline) and prints this one line on stderr for the
 * operator (a terminal, `kubectl logs --previous`). Its input was taken already, so the exit code
 * is 1 whatever the API server said; a configuration error is 2 and speaks for itself.
 */
export function serviceFailure(err: unknown, service: string): Required<CommandFailure> {
  if (err instanceof ConfigError) return { exitCode: 2, message: err.message };
  return { exitCode: exitCodeFor(err), message: `error: ${service} failed: ${describeFailure(err)}` };
}

/**
 * Ends a service's `run` on a failure: the fatal log entry (`<service> failed`, with the error and
 * its stack), the one plain line on stderr; returns the exit code.
 */
export function reportServiceFailure(
  err: unknown,
  service: string,
  log: Logger,
  stderr: Pick<NodeJS.WritableStream, 'write'> = process.stderr,
): number {
  log.fatal({ err }, `${service} failed`);
  const failure = serviceFailure(err, service);
  stderr.write(`${failure.message}\n`);
  return failure.exitCode;
}

/** Line breaks (an API server may send a message on several lines) become "; ". */
function oneLine(text: string): string {
  return text
    .split(/\s*\n\s*/)
    .filter((part) => part !== '')
    .join('; ');
}
