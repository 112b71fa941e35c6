import { describe, expect, it } from 'vitest';
import {
  MAX_EVENT_MESSAGE_LENGTH,
  decideEventWrite,
  eventDedupeKey,
  eventName,
  formatTime,
  truncateMessage,
} from './event-dedupe.ts';

const previous = { name: 'm1.abc', namespace: 'default', count: 3, lastSeenAtMs: 1_000 };

describe('decideEventWrite', () => {
  it.each([
    ['creates the first occurrence', undefined, 5_000, { kind: 'create' }],
    ['bumps a repeat within the window', previous, 1_000 + 600_000, { kind: 'increment', count: 4 }],
    ['creates a new Event after the window', previous, 1_001 + 600_000, { kind: 'create' }],
  ])('%s', (_name, prev, nowMs, expected) => {
    expect(decideEventWrite(prev, nowMs, 600_000)).toEqual(expected);
  });
});

describe('eventDedupeKey', () => {
  const base = { kind: 'Cluster', name: 'm1', uid: 'u', type: 'Warning', reason: 'R', message: 'm' };
  it('differs when any identifying field differs', () => {
    const keys = new Set([
      eventDedupeKey(base),
      eventDedupeKey({ ...base, reason: 'S' }),
      eventDedupeKey({ ...base, message: 'n' }),
      eventDedupeKey({ ...base, type: 'Normal' }),
      eventDedupeKey({ ...base, uid: 'v' }),
      eventDedupeKey({ ...base, namespace: 'ns' }),
    ]);
    expect(keys.size).toBe(6);
  });

  it('cannot be confused by separators inside fields', () => {
    expect(eventDedupeKey({ ...base, reason: 'a","b' })).not.toBe(
      eventDedupeKey({ ...base, reason: 'a', message: 'b' }),
    );
  });
});

describe('eventName', () => {
  it('is the object name and a hex nanosecond timestamp, like client-go', () => {
    expect(eventName('member1', 1_000, 0)).toBe(`member1.${1_000_000_000n.toString(16)}`);
  });

  it('separates events made in the same millisecond', () => {
    expect(eventName('m', 5, 1)).not.toBe(eventName('m', 5, 2));
  });
});

describe('formatTime', () => {
  it('has second precision', () => {
    expect(formatTime(Date.UTC(2026, 0, 1, 12, 0, 1, 999))).toBe('2026-01-01T12:00:01Z');
  });
});

describe('truncateMessage', () => {
  it('keeps short messages and cuts long ones to the limit', () => {
    expect(truncateMessage('short')).toBe('short');
    const cut = truncateMessage('x'.repeat(5_000));
    expect(cut).toHaveLength(MAX_EVENT_MESSAGE_LENGTH);
    expect(cut.endsWith('...')).toBe(true);
  });
});
