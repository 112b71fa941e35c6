/** An Event this process wrote and may bump instead of writing a new one. */
export interface RecordedEvent {
  /** `metadata.name` of the Event object. */
  readonly name: string;
  readonly namespace: string;
  readonly count: number;
  readonly lastSeenAtMs: number;
}

/** Write a new Event, or bump the count of one written before. */
export type EventWrite = { readonly kind: 'create' } | { readonly kind: 'increment'; readonly count: number };

/**
 * The same event (object, type, reason, message) seen again within `windowMs` of its last
 * occurrence bumps that Event's count; otherwise a new Event is written.
 */
export function decideEventWrite(
  previous: RecordedEvent | undefined,
  nowMs: number,
  windowMs: number,
): EventWrite {
  if (previous === undefined || nowMs - previous.lastSeenAtMs > windowMs) return { kind: 'create' };
  return { kind: 'increment', count: previous.count + 1 };
}

/** What identifies "the same event" for deduplication. */
export interface EventIdentity {
  readonly kind?: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
  readonly type: string;
  readonly reason: string;
  readonly message: string;
}

/** A collision-free string key of an {@link EventIdentity}. */
export function eventDedupeKey(e: EventIdentity): string {
  return JSON.stringify([e.kind ?? '', e.namespace ?? '', e.name, e.uid ?? '', e.type, e.reason, e.message]);
}

/**
 * Event object name as client-go makes it: `<involved name>.<hex timestamp>`; `seq` keeps two
 * events of the same object in the same millisecond apart.
 */
export function eventName(involvedName: string, nowMs: number, seq: number): string {
  const nanos = BigInt(Math.floor(nowMs)) * 1_000_000n + BigInt(seq % 1_000_000);
  return `${involvedName}.${nanos.toString(16)}`;
}

/** metav1.Time: RFC 3339 with second precision. */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Longest message stored; client-go cuts Event messages at 1 KiB as well. */
export const MAX_EVENT_MESSAGE_LENGTH = 1024;

export function truncateMessage(message: string): string {
  return message.length <= MAX_EVENT_MESSAGE_LENGTH
    ? message
    : `${message.slice(0, MAX_EVENT_MESSAGE_LENGTH - 3)}...`;
}
