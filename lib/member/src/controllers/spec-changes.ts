/**
 * A key source that ignores status-only updates: objects are queued when they appear, disappear,
 * change `metadata.generation` (spec), or get a deletionTimestamp. Controllers that write an
 * object's status would otherwise queue themselves with every write.
 */
import { keysFrom, type ObjectSource, type Source } from '@kf/runtime';

interface Meta {
  readonly metadata?: {
    readonly generation?: number;
    readonly deletionTimestamp?: string;
    readonly finalizers?: readonly string[];
  };
}

/** True when the change from `old` to `obj` is more than a status write. */
export function isSpecChange(obj: Meta, old: Meta | undefined): boolean {
  if (old === undefined) return true;
  const a = obj.metadata;
  const b = old.metadata;
  return (
    a?.generation !== b?.generation ||
    a?.deletionTimestamp !== b?.deletionTimestamp ||
    (a?.finalizers ?? []).join(',') !== (b?.finalizers ?? []).join(',')
  );
}

export function specChanges<T extends Meta>(
  objects: ObjectSource<T>,
  keysOf: (obj: T) => readonly string[],
): Source {
  const filtered: ObjectSource<T> = {
    list: () => objects.list(),
    synced: () => objects.synced(),
    onEvent: (handler) =>
      objects.onEvent((type, obj, old) => {
        if (type !== 'MODIFIED' || isSpecChange(obj, old)) handler(type, obj, old);
      }),
  };
  return keysFrom(filtered, keysOf);
}
