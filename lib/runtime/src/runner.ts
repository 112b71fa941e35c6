import { randomUUID } from 'node:crypto';
import { whenAborted } from './abort.ts';
import { cappedBackoff, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import { systemClock, type Clock } from './clock.ts';
import { DEFAULT_RESYNC_PERIOD_MS, type ControllerSpec, type Outcome, type Source } from './controller.ts';
import type { BoundControllerMetrics, ControllerMetrics, ReconcileResult } from './controller-metrics.ts';
import { TerminalError } from './errors.ts';
import { lazyChild, type Logger } from './logger.ts';
import type { Runnable } from './manager.ts';
import { ResyncLedger } from './resync-ledger.ts';
import { processTurnBudget, type TurnBudget } from './turn-budget.ts';
import { WorkQueue } from './work-queue.ts';

/** What the runner needs from the process; everything but `log` has a production default. */
export interface RunnerDeps {
  /** Parent logger; the runner binds `{ controller }` and per reconcile `{ key, reconcileId }`. */
  readonly log: Logger;
  /** From `createControllerMetrics(registry)`; no metrics when absent. */
  readonly metrics?: ControllerMetrics;
  readonly clock?: Clock;
  /** Per-key retry backoff (default `DEFAULT_BACKOFF`). */
  readonly backoff?: BackoffPolicy;
  /** Jitter source in [0, 1) for backoff and resync (default `Math.random`). */
  readonly random?: () => number;
  /**
   * Resolves once the process is warm: every cache it holds has listed (or failed to). Until then a
   * controller whose sources have listed reconciles only the keys changes bring, and its first pass
   * over every key waits (unless its spec says `firstPassAtOnce`): at a cold start, passes over
   * tens of thousands of keys would otherwise take the one thread from the lists still coming in.
   * Absent: nothing waits.
   */
  readonly warm?: () => Promise<void>;
  /**
   * The time workers may take back to back before the event loop reads its sockets (default
   * {@link processTurnBudget}, shared by every controller of the process).
   */
  readonly turns?: TurnBudget;
}

interface Running {
  readonly spec: ControllerSpec;
  readonly queue: WorkQueue;
  readonly log: Logger;
  readonly metrics: BoundControllerMetrics | undefined;
  readonly clock: Clock;
  readonly random: () => number;
  readonly turns: TurnBudget;
  readonly signal: AbortSignal;
  /** When each key was last handed out; absent when the resync is off. */
  readonly ledger: ResyncLedger | undefined;
}

/** The spec's worker count and retry cap, or a RangeError naming the controller. */
function validated(spec: ControllerSpec): { workers: number; maxRetryDelayMs: number | undefined } {
  const workers = spec.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) {
    throw new RangeError(`controller ${spec.name}: workers must be a positive integer, got ${workers}`);
  }
  const max = spec.maxRetryDelayMs;
  if (max !== undefined && !(max > 0 && Number.isFinite(max))) {
    throw new RangeError(`controller ${spec.name}: maxRetryDelayMs must be a positive number, got ${max}`);
  }
  return { workers, maxRetryDelayMs: max };
}

/**
 * Runs one controller until `signal` aborts: subscribes to its sources, waits until all have
 * synced, queues every known key, then reconciles with `spec.workers` workers and resyncs (each
 * key once it has gone a period without a reconcile). The first pass and the resyncs queue their
 * keys in the work queue's background lane, behind every key a change brings; the first pass waits
 * for `deps.warm` too. On abort it stops taking keys, lets in-flight reconciles finish (their
 * `ctx.signal` is aborted too) and resolves. Rejects if a source's `synced()` rejects.
 *
 * This is the only place outcomes are handled: success → forget the key's failures;
 * `recheckIn` → add after the delay; `TerminalError` → forget and log at error; any other
 * error → add with per-key backoff and log at warn.
 */
export async function runController(
  spec: ControllerSpec,
  deps: RunnerDeps,
  signal: AbortSignal,
): Promise<void> {
  const { workers, maxRetryDelayMs } = validated(spec);
  const warm = spec.firstPassAtOnce === true ? undefined : deps.warm;
  const c = running(spec, deps, signal, { maxRetryDelayMs, holdBackground: warm !== undefined });
  const { queue } = c;
  // Subscribe before waiting for sync, so that no change between the list and the start is lost.
  // Until then what sources report is their first list: part of the first pass, not a change.
  let listed = false;
  const unsubscribes = spec.sources.map((s) =>
    s.onChange((key) => {
      if (listed) queue.add(key);
      else queue.addBackground(key);
    }),
  );
  try {
    if (!(await untilSynced(spec.sources, signal))) return;
    listed = true;
    c.log.info({ workers, waitsForWarm: warm !== undefined }, 'sources synced; starting workers');
    enqueueAll(c);
    if (warm !== undefined) releaseWhenWarm(c, warm);
    const loops = [...Array.from({ length: workers }, () => workLoop(c)), resyncLoop(c)];
    await whenAborted(signal);
    c.log.info('stopping; waiting for in-flight reconciles');
    for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
    await queue.shutDownWithDrain();
    await Promise.all(loops);
    c.log.info('stopped');
  } finally {
    for (const unsubscribe of unsubscribes) unsubscribe();
    queue.shutDown();
    await spec.onStopped?.();
  }
}

export interface ControllerRunnableOptions {
  /** Run only on the leader (default true: controllers write, so one replica at a time). */
  readonly needLeaderElection?: boolean;
}

/** Wraps {@link runController} as a manager {@link Runnable} named after the controller. */
export function controllerRunnable(
  spec: ControllerSpec,
  deps: RunnerDeps,
  options: ControllerRunnableOptions = {},
): Runnable {
  return {
    name: spec.name,
    needLeaderElection: options.needLeaderElection ?? true,
    start: (signal) => runController(spec, deps, signal),
  };
}

/** The controller's queue, logger, metrics and time, with the runner's defaults filled in. */
function running(
  spec: ControllerSpec,
  deps: RunnerDeps,
  signal: AbortSignal,
  options: { readonly maxRetryDelayMs: number | undefined; readonly holdBackground: boolean },
): Running {
  const clock = deps.clock ?? systemClock;
  const random = deps.random ?? Math.random;
  const metrics = deps.metrics?.forController(spec.name);
  const queue = new WorkQueue({
    clock,
    random,
    backoff: cappedBackoff(deps.backoff ?? DEFAULT_BACKOFF, options.maxRetryDelayMs),
    ...(metrics === undefined ? {} : { metrics: metrics.queue }),
    holdBackground: options.holdBackground,
  });
  return {
    spec,
    queue,
    log: deps.log.child({ controller: spec.name }),
    metrics,
    clock,
    random,
    turns: deps.turns ?? processTurnBudget,
    signal,
    ledger: resyncLedgerFor(spec),
  };
}

/** True once every source synced; false if `signal` aborted first. */
async function untilSynced(sources: readonly Source[], signal: AbortSignal): Promise<boolean> {
  const synced = Promise.all(sources.map((s) => s.synced())).then(() => true);
  const aborted = whenAborted(signal).then(() => false);
  return Promise.race([synced, aborted]);
}

/** Lets the first pass run once the process is warm (at once if finding that out fails). */
function releaseWhenWarm(c: Running, warm: () => Promise<void>): void {
  const release = (): void => {
    if (c.queue.isShuttingDown()) return;
    c.log.info({ keys: c.queue.len() }, 'process warm; first pass over every key');
    c.queue.releaseBackground();
  };
  warm().then(release, (err: unknown) => {
    c.log.warn({ err }, 'could not tell whether the process is warm; first pass at once');
    release();
  });
}

/** Queues every key of every source in the background lane; returns how many were named. */
function enqueueAll(c: Running): number {
  let count = 0;
  for (const source of c.spec.sources) {
    for (const key of source.keys()) {
      c.queue.addBackground(key);
      count++;
    }
  }
  return count;
}

async function workLoop(c: Running): Promise<void> {
  for (;;) {
    // Reconciles that read only caches never wait: without a pause, a pass over every key would
    // keep the event loop from reading any socket until it ended.
    const pause = c.turns.pause();
    if (pause !== undefined) await pause;
    if (!(await processOne(c))) return;
  }
}

/** Takes one key and reconciles it; false once the queue is shut down. */
async function processOne(c: Running): Promise<boolean> {
  const key = await c.queue.get();
  if (key === undefined) return false;
  const log = lazyChild(c.log, () => ({ key, reconcileId: randomUUID() }));
  const startMs = c.clock.monotonic();
  c.ledger?.handedOut(key, startMs);
  let result: ReconcileResult | undefined;
  try {
    const outcome = await c.spec.reconcile(key, { log, now: () => c.clock.now(), signal: c.signal });
    result = settle(c, key, outcome);
  } catch (err: unknown) {
    result = settleFailure(c, key, log, err);
  } finally {
    const seconds = Math.max(0, c.clock.monotonic() - startMs) / 1000;
    if (result !== undefined) {
      c.metrics?.reconciled(result, seconds);
      // The per-reconcile logger is made only when used: asking the controller's spares it.
      if (c.log.isLevelEnabled('debug'))
        log.debug({ result, durationMs: Math.round(seconds * 1000) }, 'reconciled');
    }
    c.queue.done(key); // runs once more if it was re-added meanwhile
  }
  return true;
}

function settle(c: Running, key: string, outcome: Outcome): ReconcileResult {
  c.queue.forget(key); // success resets backoff
  if (outcome.recheckInMs === undefined) return 'success';
  c.queue.addAfter(key, outcome.recheckInMs);
  return 'recheck';
}

/** Handles a thrown reconcile; undefined when it was only interrupted by shutdown. */
function settleFailure(c: Running, key: string, log: Logger, err: unknown): ReconcileResult | undefined {
  if (c.signal.aborted && !(err instanceof TerminalError)) {
    log.debug({ err }, 'reconcile interrupted by shutdown');
    return undefined;
  }
  if (err instanceof TerminalError) {
    c.queue.forget(key);
    log.error({ err }, 'reconcile failed; not retrying until the object changes');
    return 'terminal_error';
  }
  c.queue.addRateLimited(key);
  log.warn({ err, attempt: c.queue.failures(key) }, 'reconcile failed; will retry');
  return 'error';
}

/** The ledger of the spec's resync; none when its period is 0 or less (resync off). */
function resyncLedgerFor(spec: ControllerSpec): ResyncLedger | undefined {
  const periodMs = spec.resyncPeriodMs ?? DEFAULT_RESYNC_PERIOD_MS;
  return periodMs > 0 ? new ResyncLedger(periodMs) : undefined;
}

/** Ticks of the resync per period: how late past its due time a key may be queued. */
const RESYNC_TICKS_PER_PERIOD = 10;

/**
 * The safety net for missed events: every tenth of the period, queues (in the background lane) the
 * keys no worker has taken for a whole period, so no key goes longer than a period and a tick
 * without a reconcile, and keys a burst of changes has just reconciled are not reconciled again
 * for nothing. Once a period it also compares the ledger with every key the sources name: a key
 * no worker ever took is queued, a key no longer named is forgotten. Each tick is stretched by up
 * to 10 % at random so that controllers started together do not tick in lockstep.
 */
async function resyncLoop(c: Running): Promise<void> {
  const ledger = c.ledger;
  if (ledger === undefined) return;
  const tickMs = ledger.periodMs / RESYNC_TICKS_PER_PERIOD;
  for (let tick = 1; ; tick++) {
    try {
      await c.clock.sleep(tickMs * (1 + 0.1 * c.random()), c.signal);
    } catch {
      return; // aborted: stopping
    }
    const nowMs = c.clock.monotonic();
    const swept = tick % RESYNC_TICKS_PER_PERIOD === 0 ? ledger.sweep(namedKeys(c.spec.sources), nowMs) : [];
    const due = ledger.takeDue(nowMs);
    for (const key of swept) c.queue.addBackground(key);
    for (const key of due) c.queue.addBackground(key);
    if (swept.length + due.length > 0) {
      c.log.debug(
        { due: due.length, neverTaken: swept.length },
        'resync queued the keys not reconciled for a period',
      );
    }
  }
}

/** Every key the sources name now. */
function* namedKeys(sources: readonly Source[]): Generator<string> {
  for (const source of sources) yield* source.keys();
}
