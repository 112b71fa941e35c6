/**
 * Errors that carry intent: the runner and the process edge branch on these classes, never on
 * message text.
 */

/**
 * Retrying cannot help until the object changes (an invalid spec, a reference that can never
 * resolve). The runner logs it at `error`, counts it, resets the key's backoff and does not
 * requeue; the next change to the object queues the key again.
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
}

/**
 * Flags, environment or files do not form a valid configuration. Lists every problem found, so
 * that one run of the program tells the operator everything to fix; `main.ts` exits with 2.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** One human sentence per problem, in the order they were found. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[], options?: ErrorOptions) {
    super(formatProblems(problems), options);
    this.problems = Object.freeze([...problems]);
  }
}

/**
 * A graceful shutdown did not finish within its deadline: some runnable ignored its abort
 * signal. The process edge should exit non-zero instead of waiting any longer.
 */
export class ShutdownTimeoutError extends Error {
  override readonly name = 'ShutdownTimeoutError';
  /** Names of the runnables still running when the deadline passed. */
  readonly pending: readonly string[];

  constructor(pending: readonly string[], timeoutMs: number) {
    super(`graceful shutdown did not finish within ${timeoutMs} ms; still running: ${pending.join(', ')}`);
    this.pending = Object.freeze([...pending]);
  }
}

function formatProblems(problems: readonly string[]): string {
  if (problems.length === 0) return 'invalid configuration';
  if (problems.length === 1) return `invalid configuration: ${problems[0] ?? ''}`;
  return ['invalid configuration:', ...problems.map((p) => `  - ${p}`)].join('\n');
}
