/**
 * A health or readiness check: resolves when healthy, throws (or rejects) with the reason when
 * not. Checks run on every probe, so they read in-memory state and do no I/O.
 */
export type HealthCheck = () => void | Promise<void>;

/** The result of one named check. */
export interface CheckResult {
  readonly name: string;
  readonly ok: boolean;
  /** Why it failed (the thrown value); absent when ok. */
  readonly error?: unknown;
}

/** A named set of checks behind one endpoint (`/healthz` or `/readyz`). */
export class HealthChecks {
  readonly #checks = new Map<string, HealthCheck>();

  /** Registers `check` under `name`; names are unique and show in the endpoint's output. */
  add(name: string, check: HealthCheck): void {
    if (this.#checks.has(name)) throw new Error(`health check "${name}" is already registered`);
    this.#checks.set(name, check);
  }

  /** Names of the registered checks, in registration order. */
  names(): string[] {
    return [...this.#checks.keys()];
  }

  /** Runs every check concurrently; a check that throws synchronously counts as failed. */
  async run(): Promise<CheckResult[]> {
    return Promise.all(
      [...this.#checks].map(async ([name, check]): Promise<CheckResult> => {
        try {
          await check();
          return { name, ok: true };
        } catch (error: unknown) {
          return { name, ok: false, error };
        }
      }),
    );
  }
}
