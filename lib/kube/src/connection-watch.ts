import type { EventEmitter } from 'node:events';
import { Client, Pool, type Agent, type Dispatcher } from 'undici';
import { silenceVerdict, type SilenceRule } from './connection-silence.ts';

/**
 * Listens to one undici Agent's connections to one server and gives them up when they fall
 * silent (see connection-silence.ts for the rule): its clients PING every interval over HTTP/2,
 * every answer, part of one and PING acknowledgement counts as heard, and a timer checks the
 * verdict every interval. Until a first PING was acknowledged (the server may speak HTTP/1.1 only,
 * where a quiet watch is no sign of a dead connection) only a request that never got onto a
 * connection counts.
 */
export class ConnectionWatch {
  readonly #rule: SilenceRule;
  readonly #now: () => number;
  readonly #onDead: (why: string) => void;
  #lastHeardMs = Number.NEGATIVE_INFINITY;
  #unansweredSinceMs: number | undefined;
  /** Requests on a connection, not yet ended: the connection owes them an answer. */
  #outstanding = 0;
  readonly #waiting = new Map<object, number>();
  /** The latest round trip measured: a PING's, or half a new connection's handshake. */
  #roundTripMs = 0;
  #connectingSinceMs: number | undefined;
  #connections = 0;
  /** A PING was acknowledged: the connections speak HTTP/2 and answer PINGs. */
  #pingsAnswered = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(rule: SilenceRule, onDead: (why: string) => void, now: () => number = () => performance.now()) {
    this.#rule = rule;
    this.#onDead = onDead;
    this.#now = now;
  }

  /** Agent options: clients that PING and report the acknowledgements here. */
  agentOptions(): Pick<Agent.Options, 'factory' | 'h2Options'> {
    return {
      h2Options: { pingInterval: Math.max(1, Math.round(this.#rule.pingIntervalMs)) },
      factory: (origin, opts) =>
        new Pool(origin, {
          ...opts,
          factory: (o, clientOpts) => {
            const client = new Client(o, clientOpts);
            // undici's Client emits `ping` with the round trip of each acknowledged PING (its
            // type declarations leave the event out).
            (client as unknown as EventEmitter).on('ping', (durationMs: number) => {
              this.pinged(durationMs);
            });
            return client;
          },
        }),
    };
  }

  /** A PING was acknowledged after `durationMs`. */
  pinged(durationMs: number): void {
    this.#pingsAnswered = true;
    this.#roundTripMs = durationMs;
    this.heard();
  }

  /** Starts listening to the agent's connections and checking every PING interval. */
  start(agent: EventEmitter): void {
    agent.on('connect', () => {
      this.#connections++;
      // TCP and TLS: two round trips, the first measure of a new connection's.
      if (this.#connectingSinceMs !== undefined)
        this.#roundTripMs = (this.#now() - this.#connectingSinceMs) / 2;
      this.#connectingSinceMs = undefined;
      this.heard();
    });
    agent.on('disconnect', () => {
      this.#connections = Math.max(0, this.#connections - 1);
      // Closed (idle, or by either end): the next request starts over on a new connection.
      if (this.#connections === 0) this.#unansweredSinceMs = undefined;
    });
    this.#timer = setInterval(() => {
      this.check();
    }, this.#rule.pingIntervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Checks the verdict now; gives the connections up (once) when they count as dead. */
  check(): void {
    if (this.#timer === undefined) return;
    const nowMs = this.#now();
    let oldestWaitingSinceMs: number | undefined;
    for (const since of this.#waiting.values()) {
      if (oldestWaitingSinceMs === undefined || since < oldestWaitingSinceMs) oldestWaitingSinceMs = since;
    }
    const verdict = silenceVerdict(
      {
        nowMs,
        lastHeardMs: this.#lastHeardMs,
        unansweredSinceMs: this.#pingsAnswered ? this.#silentSinceMs() : undefined,
        oldestWaitingSinceMs,
        roundTripMs: this.#roundTripMs,
      },
      this.#rule,
    );
    if (verdict === undefined) return;
    this.stop();
    this.#onDead(
      verdict === 'silent'
        ? `nothing heard from the server for ${String(Math.round(nowMs - this.#lastHeardMs))} ms, PINGs unanswered`
        : `a request waited ${String(Math.round(nowMs - (oldestWaitingSinceMs ?? nowMs)))} ms for a connection`,
    );
  }

  /**
   * Since when the connection owes an answer and gave none: with requests on it, since the later
   * of what was last heard and the first request sent after it; otherwise since that request (a
   * request that ended unanswered, by its deadline, still asked).
   */
  #silentSinceMs(): number | undefined {
    return this.#outstanding > 0 ? (this.#unansweredSinceMs ?? this.#lastHeardMs) : this.#unansweredSinceMs;
  }

  heard(): void {
    this.#lastHeardMs = this.#now();
    this.#unansweredSinceMs = undefined;
  }

  /** An interceptor that tells this watch when each request waits, goes out and is answered. */
  interceptor(): Dispatcher.DispatcherComposeInterceptor {
    return (dispatch) => (opts, handler) => dispatch(opts, new RequestWatch(handler, this));
  }

  /** A request was made: it waits for a connection until it goes out. */
  waiting(request: object): void {
    const nowMs = this.#now();
    this.#waiting.set(request, nowMs);
    if (this.#connections === 0) this.#connectingSinceMs ??= nowMs;
  }

  /** A request went out on a connection. */
  sent(request: object): void {
    this.#waiting.delete(request);
    this.#outstanding++;
    this.#unansweredSinceMs ??= this.#now();
  }

  /** A request ended: answered, failed, or never sent. */
  ended(request: object, wasSent: boolean): void {
    this.#waiting.delete(request);
    if (wasSent) this.#outstanding = Math.max(0, this.#outstanding - 1);
  }
}

/** Passes every callback on, telling the watch what happened to the request. */
class RequestWatch implements Dispatcher.DispatchHandler {
  readonly #inner: Dispatcher.DispatchHandler;
  readonly #watch: ConnectionWatch;
  #sent = false;
  #ended = false;

  constructor(inner: Dispatcher.DispatchHandler, watch: ConnectionWatch) {
    this.#inner = inner;
    this.#watch = watch;
    watch.waiting(this);
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    if (!this.#sent) this.#watch.sent(this);
    this.#sent = true;
    this.#inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.#watch.heard();
    this.#end();
    this.#inner.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>): void {
    this.#watch.heard();
    this.#inner.onResponseStart?.(...args);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#watch.heard();
    this.#inner.onResponseData?.(controller, chunk);
  }

  onResponseEnd(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>): void {
    this.#watch.heard();
    this.#end();
    this.#inner.onResponseEnd?.(...args);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#end();
    this.#inner.onResponseError?.(controller, error);
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#watch.ended(this, this.#sent);
  }

  onRequestSent(): void {
    this.#inner.onRequestSent?.();
  }

  onBodySent(chunk: Buffer): void {
    this.#inner.onBodySent?.(chunk);
  }

  onResponseStarted(): void {
    this.#inner.onResponseStarted?.();
  }
}
