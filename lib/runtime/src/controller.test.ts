import { describe, expect, it } from 'vitest';
import { converged, keysFrom, recheckIn, type ObjectEventHandler, type ObjectSource } from './controller.ts';

interface Pod {
  readonly name: string;
  readonly owner: string;
}

function source(pods: Pod[]): ObjectSource<Pod> & { emit: ObjectEventHandler<Pod> } {
  const handlers = new Set<ObjectEventHandler<Pod>>();
  return {
    list: () => pods,
    onEvent: (h) => {
      handlers.add(h);
      return () => handlers.delete(h);
    },
    synced: () => Promise.resolve(),
    emit: (type, obj, old) => {
      for (const h of handlers) h(type, obj, old);
    },
  };
}

describe('keysFrom', () => {
  it('lists each key once for resync', () => {
    const s = keysFrom(
      source([
        { name: 'p1', owner: 'a' },
        { name: 'p2', owner: 'a' },
        { name: 'p3', owner: 'b' },
      ]),
      (p) => [p.owner],
    );
    expect(s.keys()).toEqual(['a', 'b']);
  });

  it('names no key for the fill and the resync when told not to list, yet queues changes', () => {
    const pods = source([{ name: 'p1', owner: 'a' }]);
    const mapped: string[] = [];
    const s = keysFrom(
      pods,
      (p) => {
        mapped.push(p.name);
        return [p.owner];
      },
      { listsKeys: false },
    );
    expect(s.keys()).toEqual([]);
    expect(mapped).toEqual([]);
    const queued: string[] = [];
    s.onChange((k) => queued.push(k));
    pods.emit('ADDED', { name: 'p2', owner: 'b' });
    expect(queued).toEqual(['b']);
  });

  it('queues the keys of the new and the old object once per event', () => {
    const pods = source([]);
    const queued: string[] = [];
    const unsubscribe = keysFrom(pods, (p) => [p.owner]).onChange((k) => queued.push(k));
    pods.emit('ADDED', { name: 'p1', owner: 'a' });
    pods.emit('MODIFIED', { name: 'p1', owner: 'b' }, { name: 'p1', owner: 'a' });
    pods.emit('MODIFIED', { name: 'p1', owner: 'b' }, { name: 'p1', owner: 'b' });
    pods.emit('DELETED', { name: 'p1', owner: 'b' });
    expect(queued).toEqual(['a', 'b', 'a', 'b', 'b']);
    unsubscribe();
    pods.emit('ADDED', { name: 'p2', owner: 'c' });
    expect(queued).toHaveLength(5);
  });

  it('skips a modification the controller does not read, never an addition, deletion or resync', () => {
    const pods = source([{ name: 'p1', owner: 'a' }]);
    const queued: string[] = [];
    const s = keysFrom(pods, (p) => [p.name], { changed: (p, old) => p.owner !== old.owner });
    s.onChange((k) => queued.push(k));
    pods.emit('ADDED', { name: 'p1', owner: 'a' });
    pods.emit('MODIFIED', { name: 'p1', owner: 'a' }, { name: 'p1', owner: 'a' });
    pods.emit('MODIFIED', { name: 'p1', owner: 'b' }, { name: 'p1', owner: 'a' });
    pods.emit('DELETED', { name: 'p1', owner: 'b' });
    expect(queued).toEqual(['p1', 'p1', 'p1']);
    expect(s.keys()).toEqual(['p1']);
  });

  it("skips an addition or modification that echoes the controller's own write, never a deletion or resync", () => {
    const pods = source([{ name: 'p1', owner: 'mine' }]);
    const queued: string[] = [];
    const s = keysFrom(pods, (p) => [p.name], { ownWrites: { isEcho: (p) => p.owner === 'mine' } });
    s.onChange((k) => queued.push(k));
    pods.emit('ADDED', { name: 'p1', owner: 'mine' });
    pods.emit('MODIFIED', { name: 'p1', owner: 'mine' }, { name: 'p1', owner: 'other' });
    pods.emit('MODIFIED', { name: 'p2', owner: 'other' }, { name: 'p2', owner: 'mine' });
    pods.emit('ADDED', { name: 'p3', owner: 'other' });
    pods.emit('DELETED', { name: 'p1', owner: 'mine' });
    expect(queued).toEqual(['p2', 'p3', 'p1']);
    expect(s.keys()).toEqual(['p1']);
  });

  it('consults the echo before the change filter, so that an echo the filter would skip is still consumed', () => {
    const pods = source([]);
    const consumed: string[] = [];
    const s = keysFrom(pods, (p) => [p.name], {
      changed: () => false,
      ownWrites: {
        isEcho: (p) => {
          consumed.push(p.name);
          return true;
        },
      },
    });
    s.onChange(() => undefined);
    pods.emit('MODIFIED', { name: 'p1', owner: 'a' }, { name: 'p1', owner: 'a' });
    expect(consumed).toEqual(['p1']);
  });

  it('queues only the events `wakes` accepts, of any type, after consuming echoes', () => {
    const pods = source([]);
    const queued: string[] = [];
    const seen: string[] = [];
    const s = keysFrom(pods, (p) => [p.name], {
      ownWrites: {
        isEcho: (p) => {
          seen.push(p.name);
          return p.owner === 'mine';
        },
      },
      wakes: (type) => type !== 'DELETED',
    });
    s.onChange((k) => queued.push(k));
    pods.emit('ADDED', { name: 'p1', owner: 'other' });
    pods.emit('ADDED', { name: 'p2', owner: 'mine' });
    pods.emit('DELETED', { name: 'p3', owner: 'other' });
    pods.emit('MODIFIED', { name: 'p4', owner: 'other' }, { name: 'p4', owner: 'x' });
    expect(queued).toEqual(['p1', 'p4']);
    expect(seen).toEqual(['p1', 'p2', 'p4']); // a deletion is never taken for an echo
  });

  it('passes synced through', async () => {
    await expect(keysFrom(source([]), (p) => [p.name]).synced()).resolves.toBeUndefined();
  });
});

describe('outcomes', () => {
  it.each([
    [5_000, 5_000],
    [0, 0],
    [-20, 0],
    [0.5, 0.5],
    [2 ** 31 - 1, 2 ** 31 - 1],
    [700 * 3_600_000, 2 ** 31 - 1], // 700h: beyond a Node timer's range
  ])('recheckIn(%d) asks for a recheck after %d ms', (ms, expected) => {
    expect(recheckIn(ms).recheckInMs).toBe(expected);
  });

  it('recheckIn refuses delays that are not finite', () => {
    expect(() => recheckIn(Number.NaN)).toThrow(RangeError);
    expect(() => recheckIn(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it('converged asks for nothing', () => {
    expect(converged().recheckInMs).toBeUndefined();
  });
});
