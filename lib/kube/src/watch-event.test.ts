import { describe, expect, it } from 'vitest';
import { WatchProtocolError, parseWatchEvent } from './watch-event.ts';

describe('parseWatchEvent', () => {
  it.each(['ADDED', 'MODIFIED', 'DELETED'] as const)('parses %s with its object', (type) => {
    const object = { metadata: { name: 'a', resourceVersion: '7' } };
    expect(parseWatchEvent(JSON.stringify({ type, object }))).toEqual({ type, object });
  });

  it('reduces a BOOKMARK to its resourceVersion', () => {
    const line = JSON.stringify({
      type: 'BOOKMARK',
      object: { kind: 'Cluster', metadata: { resourceVersion: '42' } },
    });
    expect(parseWatchEvent(line)).toEqual({ type: 'BOOKMARK', resourceVersion: '42' });
  });

  it('keeps the Status of an ERROR', () => {
    const status = {
      kind: 'Status',
      code: 410,
      reason: 'Expired',
      message: 'too old resource version: 1 (42)',
    };
    expect(parseWatchEvent(JSON.stringify({ type: 'ERROR', object: status }))).toEqual({
      type: 'ERROR',
      status,
    });
  });

  it.each([
    ['not JSON', '{"type":'],
    ['no object', '{"type":"ADDED"}'],
    ['a null object', '{"type":"ADDED","object":null}'],
    ['an unknown type', '{"type":"RENAMED","object":{}}'],
    ['an array', '[1,2]'],
  ])('rejects %s', (_name, line) => {
    expect(() => parseWatchEvent(line)).toThrow(WatchProtocolError);
  });
});
