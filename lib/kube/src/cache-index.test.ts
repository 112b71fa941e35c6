import { describe, expect, it } from 'vitest';
import { CacheIndex } from './cache-index.ts';
import { applyDeltas, diffRelist, planWatchEvent } from './cache-store.ts';
import type { KubeObject } from './resource.ts';

type Labelled = KubeObject & { readonly metadata: { readonly labels?: Record<string, string> } };

const obj = (name: string, rv: string, labels: Record<string, string> = {}): Labelled => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv, labels },
});
const byOwner = (o: Labelled): readonly string[] =>
  Object.entries(o.metadata.labels ?? {}).map(([k, v]) => `${k}=${v}`);
const names = (objects: readonly Labelled[]): string[] => objects.map((o) => o.metadata.name ?? '').sort();

/** A store and its index, changed as a watch cache changes them. */
function indexed(): {
  index: CacheIndex<Labelled>;
  watch: (type: 'ADDED' | 'MODIFIED' | 'DELETED', o: Labelled) => void;
  relist: (items: Labelled[]) => void;
  store: Map<string, Labelled>;
} {
  const store = new Map<string, Labelled>();
  const index = new CacheIndex(byOwner);
  return {
    index,
    store,
    watch: (type, o) => {
      const d = planWatchEvent(store, type, o);
      if (d === undefined) return;
      applyDeltas(store, [d]);
      index.apply([d]);
    },
    relist: (items) => {
      const deltas = diffRelist(store, items);
      applyDeltas(store, deltas);
      index.apply(deltas);
    },
  };
}

describe('CacheIndex', () => {
  it('finds the objects holding a value, and none for a value nobody holds', () => {
    const { index, watch } = indexed();
    watch('ADDED', obj('a', '1', { owner: 'x' }));
    watch('ADDED', obj('b', '2', { owner: 'x', team: 't' }));
    watch('ADDED', obj('c', '3', { owner: 'y' }));
    expect(names(index.get('owner=x'))).toEqual(['a', 'b']);
    expect(names(index.get('team=t'))).toEqual(['b']);
    expect(index.get('owner=z')).toEqual([]);
  });

  it('moves an object whose values change, and drops a deleted one', () => {
    const { index, watch } = indexed();
    watch('ADDED', obj('a', '1', { owner: 'x' }));
    watch('MODIFIED', obj('a', '2', { owner: 'y' }));
    expect(index.get('owner=x')).toEqual([]);
    expect(names(index.get('owner=y'))).toEqual(['a']);
    watch('DELETED', obj('a', '3', { owner: 'y' }));
    expect(index.get('owner=y')).toEqual([]);
  });

  it('hands out the current object of a key, not an older one', () => {
    const { index, watch } = indexed();
    watch('ADDED', obj('a', '1', { owner: 'x' }));
    watch('MODIFIED', obj('a', '2', { owner: 'x' }));
    expect(index.get('owner=x').map((o) => o.metadata.resourceVersion)).toEqual(['2']);
  });

  it('follows a relist: new, changed and vanished objects', () => {
    const { index, watch, relist } = indexed();
    watch('ADDED', obj('a', '1', { owner: 'x' }));
    watch('ADDED', obj('b', '1', { owner: 'x' }));
    relist([obj('b', '5', { owner: 'y' }), obj('c', '5', { owner: 'x' })]);
    expect(names(index.get('owner=x'))).toEqual(['c']);
    expect(names(index.get('owner=y'))).toEqual(['b']);
  });

  it('indexes what a store already holds when added', () => {
    const { store, watch } = indexed();
    watch('ADDED', obj('a', '1', { owner: 'x' }));
    const late = new CacheIndex(byOwner);
    late.addAll(store);
    expect(names(late.get('owner=x'))).toEqual(['a']);
  });
});
