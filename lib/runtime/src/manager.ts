import { whenAborted } from './abort.ts';
import { systemClock, type Clock } from './clock.ts';
import { ShutdownTimeoutError } from './errors.ts';
import { HealthChecks, type HealthCheck } from './health.ts';
import type { Logger } from './logger.ts';

/** Something long-running the {@link Manager} starts and stops: a controller, a server, a loop. */
export interface Runnable {
  /** Unique within a manager; used in logs and shutdown reports. */
  readonly name: string;
  /**
   * Run only while this replica leads. Such runnables may be started again after leadership was
   * lost and re-acquired, so `start` must build fresh state each time.
   */
  readonly needLeaderElection?: boolean;
  /**
   * Runs until `signal` aborts, then stops its work and resolves. Resolving earlier is allowed
   * (finished). Rejecting before the abort is a failure: the manager shuts everything down and
   * {@link Manager.start} rejects with that error.
   */
  start(signal: AbortSignal): Promise<void>;
}

/**
 * Leader election as the manager uses it; `@kf/kube` implements it with a Lease.
 */
export interface Leadership {
  /**
   * Campaigns until `signal` aborts. Each time leadership is acquired, calls `lead(term)`, where
   * `term` aborts when leadership is lost or `signal` aborts, and stops renewing only after the
   * promise `lead` returned has settled (leader work stops before another replica may start it).
   * `lead` never rejects. Resolves once `signal` aborted, leader work ended and the lease was
   * released; rejects only on an error retrying cannot fix.
   */
  run(signal: AbortSignal, lead: (term: AbortSignal) => Promise<void>): Promise<void>;
}

export interface ManagerOptions {
  readonly log: Logger;
  /**
   * Leader election. Without it, runnables needing leadership run unconditionally (a single
   * replica, or leader election turned off by flag).
   */
  readonly leadership?: Leadership;
  /** Deadline for the whole graceful shutdown (default {@link DEFAULT_SHUTDOWN_TIMEOUT_MS}). */
  readonly shutdownTimeoutMs?: number;
  readonly clock?: Clock;
}

/**
 * 30 s, Kubernetes' default termination grace period: a pod gets SIGKILL then anyway, so waiting
 * longer gains nothing.
 */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;

type PhaseResult = 'done' | 'timeout';

/**
 * Owns the runnables of a process, leadership, and health/readiness checks.
 *
 * `start(signal)` starts the runnables that do not need leadership, campaigns for the others,
 * and on abort (or the first runnable failure) shuts down gracefully: leader work first (so a
 * successor can take over as early as possible), then everything else, within one deadline.
 */
export class Manager {
  /** Checks served at `/healthz`: is the process alive and worth keeping? */
  readonly healthz = new HealthChecks();
  /** Checks served at `/readyz`: is the process ready to do its job? */
  readonly readyz = new HealthChecks();

  readonly #log: Logger;
  readonly #leadership: Leadership | undefined;
  readonly #shutdownTimeoutMs: number;
  readonly #clock: Clock;
  readonly #runnables: Runnable[] = [];
  readonly #running = new Set<string>();
  #started = false;
  #leading = false;
  #failure: { readonly error: unknown } | undefined;
  readonly #failed = new AbortController();

  constructor(options: ManagerOptions) {
    this.#log = options.log;
    this.#leadership = options.leadership;
    this.#shutdownTimeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
    this.#clock = options.clock ?? systemClock;
  }

  /** Adds a runnable; only before {@link start}. Names must be unique. */
  add(runnable: Runnable): void {
    if (this.#started) throw new Error('runnables must be added before the manager starts');
    if (this.#runnables.some((r) => r.name === runnable.name)) {
      throw new Error(`a runnable named "${runnable.name}" was already added`);
    }
    this.#runnables.push(runnable);
  }

  /** Shorthand for `healthz.add`. */
  addHealthzCheck(name: string, check: HealthCheck): void {
    this.healthz.add(name, check);
  }

  /** Shorthand for `readyz.add`. */
  addReadyzCheck(name: string, check: HealthCheck): void {
    this.readyz.add(name, check);
  }

  /** True while leader work runs (always false before the first term). */
  isLeader(): boolean {
    return this.#leading;
  }

  /**
   * Runs until `signal` aborts or a runnable fails, then shuts down. Resolves after a clean
   * shutdown; rejects with the first runnable's failure, or with {@link ShutdownTimeoutError}
   * when something outlived the deadline. Callable once.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error('the manager was already started');
    this.#started = true;
    if (signal.aborted) return;
    const leaderStop = new AbortController();
    const othersStop = new AbortController();
    const others = this.#runnables
      .filter((r) => r.needLeaderElection !== true)
      .map((r) => this.#run(r, othersStop.signal));
    const leaderWork = this.#runLeaderWork(leaderStop.signal);
    this.#log.info({ runnables: this.#runnables.map((r) => r.name) }, 'manager started');

    await whenAborted(AbortSignal.any([signal, this.#failed.signal]));
    this.#log.info('shutting down');
    const deadline = new AbortController();
    const expired = this.#clock.sleep(this.#shutdownTimeoutMs, deadline.signal).then(
      (): PhaseResult => 'timeout',
      (): PhaseResult => 'done',
    );
    try {
      leaderStop.abort(new Error('shutting down'));
      let phase = await Promise.race([leaderWork.then((): PhaseResult => 'done'), expired]);
      if (phase === 'done') {
        othersStop.abort(new Error('shutting down'));
        phase = await Promise.race([Promise.all(others).then((): PhaseResult => 'done'), expired]);
      }
      if (phase === 'timeout') throw new ShutdownTimeoutError([...this.#running], this.#shutdownTimeoutMs);
    } finally {
      deadline.abort();
    }
    if (this.#failure !== undefined) throw this.#failure.error;
    this.#log.info('shutdown complete');
  }

  /** Runs the runnables needing leadership, under leader election when there is one. */
  async #runLeaderWork(stop: AbortSignal): Promise<void> {
    const leaders = this.#runnables.filter((r) => r.needLeaderElection === true);
    if (leaders.length === 0) return;
    if (this.#leadership === undefined) {
      await this.#lead(leaders, stop);
      return;
    }
    this.#running.add('leader-election');
    try {
      await this.#leadership.run(stop, (term) => this.#lead(leaders, term));
    } catch (error: unknown) {
      this.#fail('leader-election', error);
    } finally {
      this.#running.delete('leader-election');
    }
  }

  async #lead(leaders: readonly Runnable[], term: AbortSignal): Promise<void> {
    this.#leading = true;
    this.#log.info('started leading; starting leader work');
    try {
      await Promise.all(leaders.map((r) => this.#run(r, term)));
    } finally {
      this.#leading = false;
      this.#log.info('leader work stopped');
    }
  }

  /** Runs one runnable to its end; never rejects (failures go to #fail). */
  async #run(r: Runnable, signal: AbortSignal): Promise<void> {
    this.#running.add(r.name);
    try {
      await r.start(signal);
    } catch (error: unknown) {
      if (!signal.aborted) this.#fail(r.name, error);
      else if (!isAbortError(error, signal))
        this.#log.warn({ runnable: r.name, err: error }, 'runnable failed while stopping');
    } finally {
      this.#running.delete(r.name);
    }
  }

  #fail(name: string, error: unknown): void {
    this.#log.error({ runnable: name, err: error }, 'runnable failed; shutting down');
    if (this.#failure !== undefined) return;
    this.#failure = { error };
    this.#failed.abort();
  }
}

/** Rejections that only say "you asked me to stop". */
function isAbortError(error: unknown, signal: AbortSignal): boolean {
  return error === signal.reason || (error instanceof Error && error.name === 'AbortError');
}
