import type { Clock } from './clock.ts';

interface Sleeper {
  readonly atMs: number;
  readonly seq: number;
  readonly resolve: () => void;
}

/**
 * A {@link Clock} that moves only when told to, for deterministic tests of timers (work queue
 * delays, resync periods, backoff). Both `now()` and `monotonic()` advance together.
 */
export class ManualClock implements Clock {
  #wallMs: number;
  #monoMs = 0;
  #seq = 0;
  #sleepers: Sleeper[] = [];

  /** @param startMs initial wall-clock time (defaults to 2026-01-01T00:00:00Z). */
  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.#wallMs = startMs;
  }

  now(): number {
    return this.#wallMs;
  }

  monotonic(): number {
    return this.#monoMs;
  }

  /** Resolves once {@link advance} has moved time past `ms` from now; rejects on abort. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(reasonOf(signal));
        return;
      }
      const onAbort = (): void => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(reasonOf(signal));
      };
      const sleeper: Sleeper = {
        atMs: this.#monoMs + Math.max(0, ms),
        seq: this.#seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.#sleepers.push(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Number of sleeps not yet woken: lets a test wait until the code under test is parked. */
  pendingSleeps(): number {
    return this.#sleepers.length;
  }

  /**
   * Moves time forward by `ms`, waking sleepers in deadline order. After each wake-up the event
   * loop turns once, so that sleeps started by the woken code inside the window also fire.
   */
  async advance(ms: number): Promise<void> {
    const targetMs = this.#monoMs + ms;
    for (;;) {
      const next = this.#nextDue(targetMs);
      if (next === undefined) break;
      this.#moveTo(next.atMs);
      this.#sleepers = this.#sleepers.filter((s) => s !== next);
      next.resolve();
      await turn();
    }
    this.#moveTo(targetMs);
    await turn();
  }

  #nextDue(targetMs: number): Sleeper | undefined {
    let best: Sleeper | undefined;
    for (const s of this.#sleepers) {
      if (s.atMs > targetMs) continue;
      if (best === undefined || s.atMs < best.atMs || (s.atMs === best.atMs && s.seq < best.seq)) best = s;
    }
    return best;
  }

  #moveTo(monoMs: number): void {
    if (monoMs <= this.#monoMs) return;
    this.#wallMs += monoMs - this.#monoMs;
    this.#monoMs = monoMs;
  }
}

/** One macrotask turn: every promise continuation queued so far has run. */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function reasonOf(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}
