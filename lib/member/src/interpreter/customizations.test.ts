import { describe, expect, it } from 'vitest';
import type { ResourceInterpreterCustomization } from '@kf/api';
import type { CustomizationCache } from '@kf/interpreter';
import { customization } from '@kf/interpreter/testing';
import { createLogger } from '@kf/runtime';
import { InterpreterCustomizations, type FollowingInterpreter } from './customizations.ts';

const log = createLogger({ component: 'test', level: 'silent' });

type Handler = Parameters<CustomizationCache['onEvent']>[0];

/** A cache of customizations that lists once and then takes additions. */
function fakeCache(): CustomizationCache & { add(c: ResourceInterpreterCustomization): void; sync(): void } {
  const items: ResourceInterpreterCustomization[] = [];
  let resolve = (): void => undefined;
  const synced = new Promise<void>((r) => {
    resolve = r;
  });
  const handlers = new Set<Handler>();
  return {
    list: () => items,
    onEvent: (h) => {
      handlers.add(h);
      return () => handlers.delete(h);
    },
    synced: () => synced,
    sync: () => {
      resolve();
    },
    add(c) {
      items.push(c);
      for (const h of handlers) h('ADDED', c);
    },
  };
}

function factory() {
  const made: string[][] = [];
  const create = (): Promise<FollowingInterpreter> => {
    const updates: string[] = [];
    made.push(updates);
    return Promise.resolve({
      interpretHealth: () => true,
      reflectStatus: () => undefined,
      retain: () => undefined,
      update: (list: readonly ResourceInterpreterCustomization[]) => {
        updates.push(list.map((c) => c.metadata.name ?? '').join(','));
      },
      close: () => undefined,
    });
  };
  return { made, create };
}

const cs = (name: string) => customization(name, { apiVersion: 'example.com/v1', kind: 'Widget' }, {});

describe('InterpreterCustomizations', () => {
  it('starts no interpreter until the first customization, then re-queues every key the controller gives', async () => {
    const cache = fakeCache();
    const f = factory();
    const c = new InterpreterCustomizations(cache, f.create, log);
    const queued: string[] = [];
    c.source(() => ['ns/w1', 'ns/w2']).onChange((k) => queued.push(k));
    cache.sync();
    await c.synced();
    expect(c.interpreter).toBeUndefined();
    expect(f.made).toEqual([]);

    cache.add(cs('a'));
    await c.synced();
    expect(c.interpreter?.interpretHealth({})).toBe(true);
    expect(queued).toEqual(['ns/w1', 'ns/w2']);
    cache.add(cs('b'));
    expect(f.made).toEqual([['a', 'a,b']]);
    expect(c.generation).toBe(2);
    c.close();
  });
});
