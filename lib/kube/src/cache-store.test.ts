import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDeltas, deepFreeze, diffRelist, planWatchEvent, type CacheDelta } from './cache-store.ts';

interface Obj {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly resourceVersion: string };
}

const obj = (name: string, rv: string, namespace?: string): Obj => ({
  metadata: { name, resourceVersion: rv, ...(namespace === undefined ? {} : { namespace }) },
});
const storeOf = (...objs: Obj[]): Map<string, Obj> =>
  new Map(
    objs.map((o) => [
      o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name,
      o,
    ]),
  );
const summary = (ds: readonly CacheDelta<Obj>[]): string[] =>
  ds.map((d) => `${d.type} ${d.key}@${d.obj.metadata.resourceVersion}`);

describe('planWatchEvent', () => {
  interface Row {
    readonly name: string;
    readonly store: Map<string, Obj>;
    readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
    readonly o: Obj;
    readonly expected: string | undefined;
  }
  it.each<Row>([
    { name: 'ADDED for a new key', store: storeOf(), type: 'ADDED', o: obj('a', '2'), expected: 'ADDED a@2' },
    {
      name: 'MODIFIED for a changed version',
      store: storeOf(obj('a', '1')),
      type: 'MODIFIED',
      o: obj('a', '2'),
      expected: 'MODIFIED a@2',
    },
    {
      name: 'ADDED for a known key becomes MODIFIED',
      store: storeOf(obj('a', '1')),
      type: 'ADDED',
      o: obj('a', '2'),
      expected: 'MODIFIED a@2',
    },
    {
      name: 'MODIFIED for an unknown key becomes ADDED',
      store: storeOf(),
      type: 'MODIFIED',
      o: obj('a', '2'),
      expected: 'ADDED a@2',
    },
    {
      name: 'nothing for a repeat of the cached version',
      store: storeOf(obj('a', '2')),
      type: 'MODIFIED',
      o: obj('a', '2'),
      expected: undefined,
    },
    {
      name: 'DELETED for a cached key',
      store: storeOf(obj('a', '1')),
      type: 'DELETED',
      o: obj('a', '3'),
      expected: 'DELETED a@3',
    },
    {
      name: 'nothing for deleting an unknown key',
      store: storeOf(),
      type: 'DELETED',
      o: obj('a', '3'),
      expected: undefined,
    },
    {
      name: 'namespaced keys',
      store: storeOf(),
      type: 'ADDED',
      o: obj('a', '1', 'ns'),
      expected: 'ADDED ns/a@1',
    },
  ])('$name', ({ store, type, o, expected }) => {
    const d = planWatchEvent(store, type, o);
    expect(d === undefined ? undefined : summary([d])[0]).toBe(expected);
  });

  it('hands the cached object as old', () => {
    const cached = obj('a', '1');
    const d = planWatchEvent(storeOf(cached), 'DELETED', obj('a', '3'));
    expect(d?.type === 'DELETED' ? d.old : undefined).toBe(cached);
  });
});

describe('diffRelist', () => {
  it('reports additions, changes and deletions, deletions last by key', () => {
    const store = storeOf(obj('z', '1'), obj('a', '1'), obj('b', '1'), obj('c', '1'));
    const deltas = diffRelist(store, [obj('d', '5'), obj('b', '4'), obj('c', '1')]);
    expect(summary(deltas)).toEqual(['ADDED d@5', 'MODIFIED b@4', 'DELETED a@1', 'DELETED z@1']);
  });

  it('is empty when nothing changed', () => {
    expect(diffRelist(storeOf(obj('a', '1')), [obj('a', '1')])).toEqual([]);
  });

  it('makes the store equal to the list, whatever both were', () => {
    const item = fc.record({
      name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      rv: fc.constantFrom('1', '2', '3'),
    });
    const unique = (xs: { name: string; rv: string }[]): Obj[] => [
      ...new Map(xs.map((x) => [x.name, obj(x.name, x.rv)])).values(),
    ];
    fc.assert(
      fc.property(fc.array(item), fc.array(item), (before, after) => {
        const store = storeOf(...unique(before));
        const list = unique(after);
        applyDeltas(store, diffRelist(store, list));
        expect(new Map([...store].sort())).toEqual(
          new Map(list.map((o) => [o.metadata.name, o] as const).sort()),
        );
        expect(diffRelist(store, list)).toEqual([]);
      }),
    );
  });
});

describe('deepFreeze', () => {
  it('freezes nested objects and arrays', () => {
    const o = deepFreeze({ a: { b: [1, { c: 2 }] } });
    expect(Object.isFrozen(o)).toBe(true);
    expect(Object.isFrozen(o.a.b)).toBe(true);
    expect(Object.isFrozen(o.a.b[1])).toBe(true);
    expect(() => {
      (o.a as { b: unknown }).b = [];
    }).toThrow(TypeError);
  });

  it('leaves primitives alone', () => {
    expect(deepFreeze(3)).toBe(3);
    expect(deepFreeze(null)).toBe(null);
  });
});
