import type { StatusLike } from './errors.ts';
import type { KubeObject } from './resource.ts';

/** One line of a watch response. */
export type WatchEvent<T> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T }
  /** Carries only metadata.resourceVersion: the point the stream has reached. */
  | { readonly type: 'BOOKMARK'; readonly resourceVersion: string }
  /** A Status; code 410 means the resourceVersion is too old (relist). */
  | { readonly type: 'ERROR'; readonly status: StatusLike };

/** Thrown for a line that is not a watch event; the watch is restarted. */
export class WatchProtocolError extends Error {
  override readonly name = 'WatchProtocolError';
}

/** Parses one NDJSON line of a watch response. */
export function parseWatchEvent<T extends KubeObject>(line: string): WatchEvent<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    throw new WatchProtocolError('watch line is not JSON', { cause: err });
  }
  const { type, object } = fieldsOf(raw);
  switch (type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return { type, object: object as T };
    case 'BOOKMARK':
      return { type, resourceVersion: (object as KubeObject).metadata?.resourceVersion ?? '' };
    case 'ERROR':
      return { type, status: object };
    default:
      throw new WatchProtocolError(`unknown watch event type ${JSON.stringify(type)}`);
  }
}

function fieldsOf(raw: unknown): { type: unknown; object: object } {
  if (typeof raw !== 'object' || raw === null || !('type' in raw) || !('object' in raw)) {
    throw new WatchProtocolError('watch line has no type and object');
  }
  const { type, object } = raw;
  if (typeof object !== 'object' || object === null)
    throw new WatchProtocolError('watch object is not an object');
  return { type, object };
}
