import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { backoffDelayMs, systemClock, type BackoffPolicy, type Clock, type Logger } from '@kf/runtime';
import { DropTally } from './drop-tally.ts';
import { isAlreadyExists, isNotFound, isRetryable, toKubeError } from './errors.ts';
import {
  decideEventWrite,
  eventDedupeKey,
  eventName,
  formatTime,
  truncateMessage,
  type RecordedEvent,
} from './event-dedupe.ts';
import { paceWhile, startPace, takeToken, type EventPace, type PaceState } from './event-pace.ts';
import { ResourceClient } from './resource-client.ts';
import type { TransportOptions } from './transport.ts';
import type { KubeObject, ResourceDescriptor } from './resource.ts';

export type EventType = 'Normal' | 'Warning';

/** core/v1 ObjectReference of the object an Event is about. */
export interface InvolvedObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
}

/** core/v1 Event as JSON. */
export interface CoreEvent extends KubeObject {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
  };
  readonly involvedObject: InvolvedObject;
  readonly reason: string;
  readonly message: string;
  readonly type: EventType;
  readonly count?: number;
  readonly firstTimestamp?: string;
  readonly lastTimestamp?: string;
  readonly source?: { readonly component?: string; readonly host?: string };
  readonly reportingComponent?: string;
  readonly reportingInstance?: string;
}

export const CORE_EVENT_RESOURCE: ResourceDescriptor = {
  group: '',
  version: 'v1',
  plural: 'events',
  namespaced: true,
  kind: 'Event',
};

export interface EventRecorderOptions {
  readonly kubeConfig: KubeConfig;
  /** How the recorder's connections are made (default: HTTP/2 offered). */
  readonly transport?: TransportOptions;
  /** `source.component` / `reportingComponent`, e.g. `karmada-agent`. */
  readonly component: string;
  /** `source.host` / `reportingInstance` (default: host name). */
  readonly instance?: string;
  readonly log: Logger;
  readonly clock?: Clock;
  /** A repeat within this time bumps the count of the Event already written (default 10 min). */
  readonly dedupeWindowMs?: number;
  /** Events waiting to be written beyond this are dropped (default 1000). */
  readonly maxPending?: number;
  /** Recorded events remembered for deduplication (default 4096, least recently used dropped). */
  readonly cacheSize?: number;
  /** Deadline of each write (default 10 s). */
  readonly timeoutMs?: number;
  /**
   * Tries of an event whose write failed in a way that may pass (a timeout, an API server away or
   * overloaded), the first included (default 4: 1 s, 2 s and 4 s apart). A flush tries once.
   */
  readonly maxTries?: number;
  /** How fast Events are written (default: as fast as one write at a time goes); see event-pace.ts. */
  readonly pace?: EventPace;
  /**
   * Whether the process is busy now (its controllers hold a backlog): the pace's busy rate then
   * holds (see event-pace.ts). Asked before each write. Default: never busy.
   */
  readonly busy?: () => boolean;
}

/**
 * Writes core/v1 Events (what `kubectl describe` shows and what Karmada's controllers write
 * through client-go's recorder). An event repeated within the dedupe window bumps `count` and
 * `lastTimestamp` of the Event already written. Writes run one at a time in the background, at
 * the recorder's pace if it has one, with the time each event was recorded; recording never throws
 * and never blocks the caller. A write that may pass later is tried again a few times, seconds
 * apart (as client-go's recorder does), so that a Warning an operator is promised is not lost to
 * one timeout; other failures, and the last try, are logged.
 * Cluster-scoped objects get their Events in namespace `default`, as with client-go.
 */
export class EventRecorder {
  private readonly opts: EventRecorderOptions;
  private readonly client: ResourceClient<CoreEvent>;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly instance: string;
  private readonly recorded = new Map<string, RecordedEvent>();
  /**
   * Events waiting for their write, oldest first, from `head` on. Kept as plain records (at
   * 10,000 waiting, a promise chain of one link per event held several times their size).
   */
  private queue: (QueuedEvent | undefined)[] = [];
  private head = 0;
  /** The loop writing the queue, while there is anything to write. */
  private draining: Promise<void> | undefined;
  private seq = 0;
  private paceState: PaceState | undefined;
  /** Flushes under way: a stopping process writes what is left without the pace. */
  private flushing = 0;
  /** Events dropped with the queue full, told of in a few log lines rather than one each. */
  private readonly drops = new DropTally(DROPS_TOLD_EVERY_MS);

  constructor(opts: EventRecorderOptions) {
    this.opts = opts;
    this.client = new ResourceClient<CoreEvent>(opts.kubeConfig, CORE_EVENT_RESOURCE, {
      timeoutMs: opts.timeoutMs ?? 10_000,
      transport: opts.transport,
    });
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log.child({ recorder: opts.component });
    this.instance = opts.instance ?? hostname();
  }

  /** Events recorded and not yet written (nor failed). */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  /** Records an event about `regarding` (an object, or a reference to one). */
  record(regarding: KubeObject | InvolvedObject, type: EventType, reason: string, message: string): void {
    const ref = referenceOf(regarding);
    if (ref.name === '') {
      this.log.warn({ reason }, 'event about an object without a name dropped');
      return;
    }
    if (this.waiting >= (this.opts.maxPending ?? 1000)) {
      const dropped = this.drops.dropped(this.clock.monotonic());
      if (dropped !== undefined) {
        this.log.warn({ reason, name: ref.name, dropped }, 'too many events pending; events dropped');
      }
      return;
    }
    this.tellDrops(this.drops.kept(this.clock.monotonic()));
    this.queue.push({ ref, type, reason, message: truncateMessage(message), atMs: this.clock.now() });
    this.draining ??= this.drain();
  }

  /**
   * Resolves once every event recorded so far was written (or failed); while it waits, the
   * pace is lifted (a stopping process writes what is left as fast as one write at a time goes).
   */
  async flush(): Promise<void> {
    this.flushing++;
    try {
      while (this.draining !== undefined) await this.draining;
    } finally {
      this.flushing--;
      this.tellDrops(this.drops.rest(this.clock.monotonic()));
    }
  }

  private tellDrops(untold: number | undefined): void {
    if (untold !== undefined)
      this.log.warn({ dropped: untold }, 'events dropped while too many were pending');
  }

  /** Writes the queue one event at a time until it is empty. */
  private async drain(): Promise<void> {
    try {
      for (let next = this.queue[this.head]; next !== undefined; next = this.queue[this.head]) {
        await this.writeWithRetries(next);
        this.queue[this.head++] = undefined;
        // Drop the written part now and then, so that a long backlog does not keep its slots.
        if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
          this.queue = this.queue.slice(this.head);
          this.head = 0;
        }
      }
    } finally {
      this.queue = [];
      this.head = 0;
      this.draining = undefined;
    }
  }

  /** Writes one event, trying again while the failure may pass (see {@link eventRetryDelayMs}). */
  private async writeWithRetries(event: QueuedEvent): Promise<void> {
    // One name for every try: a try whose answer was lost but whose Event was written is found
    // AlreadyExists by the next, instead of written twice.
    const name = eventName(event.ref.name, event.atMs, this.seq++);
    for (let tries = 1; ; tries++) {
      try {
        await this.awaitTurn();
        await this.write(event.ref, event, name);
        return;
      } catch (err: unknown) {
        const delayMs = eventRetryDelayMs(err, tries, {
          maxTries: this.opts.maxTries ?? DEFAULT_EVENT_TRIES,
          flushing: this.flushing > 0,
        });
        if (delayMs === undefined) {
          this.log.warn(
            { err: toKubeError(err), reason: event.reason, name: event.ref.name, tries },
            'could not write event',
          );
          return;
        }
        await this.clock.sleep(delayMs);
      }
    }
  }

  /** Waits for the pace's next token (at once without a pace, or while flushing). */
  private async awaitTurn(): Promise<void> {
    const pace = this.opts.pace;
    if (pace === undefined) return;
    for (;;) {
      if (this.flushing > 0) return;
      const nowMs = this.clock.monotonic();
      const now = paceWhile(pace, this.opts.busy?.() ?? false);
      const taken = takeToken(now, this.paceState ?? startPace(pace, nowMs), nowMs);
      this.paceState = taken.state;
      if (taken.waitMs === 0) return;
      // Short waits, so that a flush begun meanwhile is not held up by a slow pace.
      await this.clock.sleep(Math.min(taken.waitMs, 100));
    }
  }

  private async write(ref: InvolvedObject, event: PendingEvent, name: string): Promise<void> {
    const { type, reason, message, atMs: nowMs } = event;
    const key = eventDedupeKey({ ...ref, type, reason, message });
    const previous = this.recorded.get(key);
    const plan = decideEventWrite(previous, nowMs, this.opts.dedupeWindowMs ?? 10 * 60_000);
    if (plan.kind === 'increment' && previous !== undefined) {
      try {
        await this.client.mergePatch(`${previous.namespace}/${previous.name}`, {
          count: plan.count,
          lastTimestamp: formatTime(nowMs),
        });
        this.remember(key, { ...previous, count: plan.count, lastSeenAtMs: nowMs });
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // Expired (Events live one hour by default): write a new one.
      }
    }
    const namespace = ref.namespace ?? 'default';
    const time = formatTime(nowMs);
    const written: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: ref,
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: time,
      lastTimestamp: time,
      source: { component: this.opts.component, host: this.instance },
      reportingComponent: this.opts.component,
      reportingInstance: this.instance,
    };
    try {
      await this.client.create(written);
    } catch (err: unknown) {
      // The name is this event's own: there already, it is an earlier try that landed.
      if (!isAlreadyExists(err)) throw err;
    }
    this.remember(key, { name, namespace, count: 1, lastSeenAtMs: nowMs });
  }

  private remember(key: string, e: RecordedEvent): void {
    this.recorded.delete(key);
    this.recorded.set(key, e);
    const max = this.opts.cacheSize ?? 4096;
    while (this.recorded.size > max) {
      const oldest = this.recorded.keys().next();
      if (oldest.done === true) break;
      this.recorded.delete(oldest.value);
    }
  }
}

const DEFAULT_EVENT_TRIES = 4;

/** Dropped Events are told of at most this often while the queue stays full. */
const DROPS_TOLD_EVERY_MS = 10_000;

/**
 * How long to wait before trying an event's write again after try number `tries` failed with
 * `err`; undefined: give up. Only failures that may pass are tried again (not an invalid or
 * forbidden event), 1 s, 2 s, then 4 s apart, and not while flushing: a stopping process does not
 * wait on an API server that is away.
 */
export function eventRetryDelayMs(
  err: unknown,
  tries: number,
  opts: { readonly maxTries: number; readonly flushing: boolean },
): number | undefined {
  if (opts.flushing || tries >= opts.maxTries || !isRetryable(err)) return undefined;
  return backoffDelayMs(EVENT_RETRY_BACKOFF, tries - 1, 0);
}

/** 1 s, 2 s, 4 s, 4 s …: the default four tries span 7 s; no jitter (events are few and unordered). */
const EVENT_RETRY_BACKOFF: BackoffPolicy = { initialMs: 1000, factor: 2, maxMs: 4000, jitter: 0 };

/** An event waiting for its write, with the time it was recorded. */
interface PendingEvent {
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly atMs: number;
}

/** A recorded event in the queue: what it is about, and the event. */
interface QueuedEvent extends PendingEvent {
  readonly ref: InvolvedObject;
}

/** The ObjectReference for an object or a reference. */
export function referenceOf(o: KubeObject | InvolvedObject): InvolvedObject {
  if ('name' in o && typeof o.name === 'string') return o;
  const obj = o as KubeObject;
  const m = obj.metadata;
  return {
    ...(obj.apiVersion === undefined ? {} : { apiVersion: obj.apiVersion }),
    ...(obj.kind === undefined ? {} : { kind: obj.kind }),
    name: m?.name ?? '',
    ...(m?.namespace === undefined || m.namespace === '' ? {} : { namespace: m.namespace }),
    ...(m?.uid === undefined ? {} : { uid: m.uid }),
  };
}
