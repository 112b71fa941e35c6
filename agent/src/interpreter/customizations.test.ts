import { describe, expect, it } from 'vitest';
import type { ResourceInterpreterCustomization } from '@kf/api';
import { customization } from '@kf/interpreter/testing';
import { createLogger } from '@kf/runtime';
import {
  InterpreterCustomizations,
  type CustomizationSource,
  type FollowingInterpreter,
} from './customizations.ts';

const log = createLogger({ component: 'test', level: 'silent' });

/** A cache of customizations the test changes by hand. */
function fakeCache(): CustomizationSource & { set(items: ResourceInterpreterCustomization[]): void } {
  let items: ResourceInterpreterCustomization[] = [];
  let synced = false;
  let resolve = (): void => undefined;
  const syncedPromise = new Promise<void>((r) => {
    resolve = r;
  });
  const handlers = new Set<() => void>();
  return {
    list: () => items,
    onEvent: (h) => {
      handlers.add(h);
      return () => handlers.delete(h);
    },
    synced: () => syncedPromise,
    isSynced: () => synced,
    set(next) {
      items = next;
      synced = true;
      resolve();
      for (const h of handlers) h();
    },
  };
}

/** Makes fake interpreters that record the lists they are given; `fail` makes the next one fail. */
function factory() {
  const made: { updates: string[][]; closed: boolean }[] = [];
  let fail = false;
  return {
    made,
    failNext: () => {
      fail = true;
    },
    create: (): Promise<FollowingInterpreter> => {
      if (fail) {
        fail = false;
        return Promise.reject(new Error('no WebAssembly here'));
      }
      const record = { updates: [] as string[][], closed: false };
      made.push(record);
      return Promise.resolve({
        interpretHealth: () => true,
        reflectStatus: () => undefined,
        retain: () => undefined,
        update: (list: readonly ResourceInterpreterCustomization[]) => {
          record.updates.push(list.map((c) => c.metadata.name ?? ''));
        },
        close: () => {
          record.closed = true;
        },
      });
    },
  };
}

const cs = (name: string) => customization(name, { apiVersion: 'example.com/v1', kind: 'Widget' }, {});

describe('InterpreterCustomizations', () => {
  it('makes no interpreter while there is no customization: built-in rules only', async () => {
    const cache = fakeCache();
    const f = factory();
    const c = new InterpreterCustomizations(cache, f.create, log);
    cache.set([]);
    await c.synced();
    expect(c.interpreter).toBeUndefined();
    expect(f.made).toEqual([]);
    expect(c.isSynced()).toBe(true);
  });

  it('makes one with the first customization, then gives it the whole list on every change', async () => {
    const cache = fakeCache();
    const f = factory();
    const c = new InterpreterCustomizations(cache, f.create, log);
    cache.set([cs('a')]);
    await c.synced();
    expect(c.interpreter).toBeDefined();
    cache.set([cs('a'), cs('b')]);
    cache.set([]);
    expect(f.made).toHaveLength(1);
    expect(f.made[0]?.updates).toEqual([['a'], ['a', 'b'], []]);
    expect(c.generation).toBe(3);
    c.close();
    expect(f.made[0]?.closed).toBe(true);
    expect(c.interpreter).toBeUndefined();
  });

  it('holds a controller source back until listed and made, then enqueues the given keys on each change', async () => {
    const cache = fakeCache();
    const c = new InterpreterCustomizations(cache, factory().create, log);
    const source = c.source(() => ['ns/w1', 'ns/w2']);
    const enqueued: string[] = [];
    const stop = source.onChange((k) => enqueued.push(k));
    let synced = false;
    void source.synced().then(() => {
      synced = true;
    });
    await Promise.resolve();
    expect(synced).toBe(false);
    cache.set([cs('a')]);
    await source.synced();
    // Made: the verdicts change from built-in rules to scripts.
    expect(enqueued).toEqual(['ns/w1', 'ns/w2']);
    stop();
    cache.set([]);
    expect(enqueued).toHaveLength(2);
    expect(source.keys()).toEqual([]);
    // Without keys: it only waits.
    const quiet: string[] = [];
    c.source().onChange((k) => quiet.push(k));
    cache.set([cs('b')]);
    expect(quiet).toEqual([]);
  });

  it('fails the wait when the interpreter cannot be made, and tries again on the next change', async () => {
    const cache = fakeCache();
    const f = factory();
    f.failNext();
    const c = new InterpreterCustomizations(cache, f.create, log);
    cache.set([cs('a')]);
    await expect(c.synced()).rejects.toThrow('no WebAssembly here');
    expect(c.interpreter).toBeUndefined();
    cache.set([cs('a'), cs('b')]);
    await c.synced();
    expect(f.made[0]?.updates).toEqual([['a', 'b']]);
  });
});
