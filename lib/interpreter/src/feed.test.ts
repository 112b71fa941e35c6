import { describe, expect, it } from 'vitest';
import type { ResourceInterpreterCustomization } from '@kf/api';
import { changedTargets, InterpreterFeed, type CustomizationCache, type FedInterpreter } from './feed.ts';
import { customization } from './testing/sources.ts';

type Customization = ResourceInterpreterCustomization;
type Handler = Parameters<CustomizationCache['onEvent']>[0];

const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget' };
const GADGET = { apiVersion: 'example.com/v1', kind: 'Gadget' };
const cs = (name: string, target = WIDGET): Customization => customization(name, target, {});

/** A cache of customizations the test changes by hand: `put` adds or replaces, `list` re-lists. */
class FakeCache implements CustomizationCache {
  items: Customization[] = [];
  readonly handlers = new Set<Handler>();
  #markSynced: () => void = () => undefined;
  readonly #synced = new Promise<void>((resolve) => {
    this.#markSynced = resolve;
  });
  list(): readonly Customization[] {
    return this.items;
  }
  onEvent(h: Handler): () => void {
    this.handlers.add(h);
    return () => this.handlers.delete(h);
  }
  synced(): Promise<void> {
    return this.#synced;
  }
  /** The first list: its objects arrive as events, then the cache is synced. */
  listed(items: Customization[]): void {
    for (const c of items) this.put(c);
    this.#markSynced();
  }
  put(c: Customization): void {
    const old = this.items.find((x) => x.metadata.name === c.metadata.name);
    this.items = [...this.items.filter((x) => x !== old), c];
    for (const h of this.handlers) h(old === undefined ? 'ADDED' : 'MODIFIED', c, old);
  }
  remove(name: string): void {
    const gone = this.items.find((x) => x.metadata.name === name);
    if (gone === undefined) return;
    this.items = this.items.filter((x) => x !== gone);
    for (const h of this.handlers) h('DELETED', gone);
  }
}

/** Makes fake interpreters that record the lists they are given; `failNext` fails the next one. */
function factory() {
  const made: { updates: string[][]; closed: boolean }[] = [];
  let fail = false;
  return {
    made,
    failNext: () => {
      fail = true;
    },
    create: (): Promise<FedInterpreter> => {
      if (fail) {
        fail = false;
        return Promise.reject(new Error('no WebAssembly here'));
      }
      const record = { updates: [] as string[][], closed: false };
      made.push(record);
      return Promise.resolve({
        update: (list: readonly Customization[]) => {
          record.updates.push(list.map((c) => c.metadata.name ?? ''));
        },
        close: () => {
          record.closed = true;
        },
      });
    },
  };
}

function recordingLog() {
  const lines: string[] = [];
  return {
    lines,
    info: (_obj: object, msg: string) => lines.push(`info: ${msg}`),
    error: (_obj: object, msg: string) => lines.push(`error: ${msg}`),
  };
}

describe('InterpreterFeed, eager', () => {
  it('makes the interpreter once listed, even with no customization, and closes it when stopped', async () => {
    const cache = new FakeCache();
    const f = factory();
    const feed = new InterpreterFeed(cache, { create: f.create });
    const abort = new AbortController();
    const running = feed.run(abort.signal);
    expect(feed.isReady()).toBe(false);
    cache.listed([]);
    await feed.synced();
    expect(feed.isReady()).toBe(true);
    expect(f.made[0]?.updates).toEqual([[]]);
    abort.abort();
    await running;
    expect(f.made[0]?.closed).toBe(true);
  });

  it('follows every change after the first list, naming the kinds it touched', async () => {
    const cache = new FakeCache();
    const f = factory();
    const feed = new InterpreterFeed(cache, { create: f.create });
    const queued: string[] = [];
    feed.source((targets) => targets.map((t) => t.kind)).onChange((k) => queued.push(k));
    const abort = new AbortController();
    const running = feed.run(abort.signal);
    cache.listed([cs('a')]);
    await feed.synced();
    // Nothing was judged before: making it queues nothing.
    expect(queued).toEqual([]);
    cache.put(cs('a', GADGET));
    cache.remove('a');
    expect(f.made[0]?.updates).toEqual([['a'], ['a'], []]);
    expect(queued).toEqual(['Gadget', 'Widget', 'Gadget']);
    expect(feed.generation).toBe(2);
    abort.abort();
    await running;
  });

  it('ends the run with the error when the interpreter cannot be made, and stays unready', async () => {
    const cache = new FakeCache();
    const f = factory();
    f.failNext();
    const feed = new InterpreterFeed(cache, { create: f.create });
    const running = feed.run(new AbortController().signal);
    cache.listed([cs('a')]);
    await expect(running).rejects.toThrow('no WebAssembly here');
    cache.put(cs('b'));
    expect(feed.isReady()).toBe(false);
    expect(f.made).toEqual([]);
  });

  it('makes nothing when stopped before the first list', async () => {
    const f = factory();
    const feed = new InterpreterFeed(new FakeCache(), { create: f.create });
    const abort = new AbortController();
    const running = feed.run(abort.signal);
    abort.abort();
    await running;
    expect(f.made).toEqual([]);
  });
});

describe('InterpreterFeed, lazy', () => {
  it('makes no interpreter while there is no customization: built-in rules only', async () => {
    const cache = new FakeCache();
    const f = factory();
    const feed = new InterpreterFeed(cache, { create: f.create, lazy: true });
    expect(feed.isReady()).toBe(false);
    cache.listed([]);
    await feed.synced();
    expect(feed.interpreter).toBeUndefined();
    expect(feed.isReady()).toBe(true);
    expect(f.made).toEqual([]);
  });

  it('makes one with the first customization, then gives it the whole list on every change', async () => {
    const cache = new FakeCache();
    const f = factory();
    const log = recordingLog();
    const feed = new InterpreterFeed(cache, { create: f.create, lazy: true, log });
    cache.listed([cs('a')]);
    expect(feed.isReady()).toBe(false);
    await feed.synced();
    expect(feed.interpreter).toBeDefined();
    expect(feed.isReady()).toBe(true);
    cache.put(cs('b'));
    cache.remove('a');
    cache.remove('b');
    expect(f.made).toHaveLength(1);
    expect(f.made[0]?.updates).toEqual([['a'], ['a', 'b'], ['b'], []]);
    expect(feed.generation).toBe(4);
    expect(log.lines).toEqual(['info: resource interpreter started']);
    feed.close();
    expect(f.made[0]?.closed).toBe(true);
    expect(feed.interpreter).toBeUndefined();
  });

  it('queues the keys of the kinds of the first customizations once made: they were judged by built-in rules', async () => {
    const cache = new FakeCache();
    const feed = new InterpreterFeed(cache, { create: factory().create, lazy: true });
    const queued: string[] = [];
    const source = feed.source((targets) => targets.map((t) => t.kind));
    const stop = source.onChange((k) => queued.push(k));
    let synced = false;
    void source.synced().then(() => {
      synced = true;
    });
    await Promise.resolve();
    expect(synced).toBe(false);
    cache.listed([]);
    cache.put(cs('a'));
    cache.put(cs('g', GADGET));
    await source.synced();
    expect(queued).toEqual(['Widget', 'Gadget']);
    stop();
    cache.remove('a');
    expect(queued).toHaveLength(2);
    expect(source.keys()).toEqual([]);
    // Without keys: it only waits.
    const quiet: string[] = [];
    feed.source().onChange((k) => quiet.push(k));
    cache.put(cs('b'));
    expect(quiet).toEqual([]);
  });

  it('fails the wait when the interpreter cannot be made, and tries again on the next change', async () => {
    const cache = new FakeCache();
    const f = factory();
    f.failNext();
    const log = recordingLog();
    const feed = new InterpreterFeed(cache, { create: f.create, lazy: true, log });
    cache.listed([cs('a')]);
    await expect(feed.synced()).rejects.toThrow('no WebAssembly here');
    expect(feed.interpreter).toBeUndefined();
    expect(feed.isReady()).toBe(false);
    cache.put(cs('b'));
    await feed.synced();
    expect(f.made[0]?.updates).toEqual([['a', 'b']]);
    expect(log.lines).toEqual([
      'error: resource interpreter could not start; customizations are not applied',
      'info: resource interpreter started',
    ]);
  });

  it('closes an interpreter made after the feed was closed', async () => {
    const cache = new FakeCache();
    const f = factory();
    const feed = new InterpreterFeed(cache, { create: f.create, lazy: true });
    cache.listed([cs('a')]);
    feed.close();
    await feed.synced();
    expect(f.made[0]?.closed).toBe(true);
    expect(feed.interpreter).toBeUndefined();
  });

  it('runs until aborted, then closes', async () => {
    const cache = new FakeCache();
    const f = factory();
    const feed = new InterpreterFeed(cache, { create: f.create, lazy: true });
    const abort = new AbortController();
    const running = feed.run(abort.signal);
    cache.listed([cs('a')]);
    await feed.synced();
    abort.abort();
    await running;
    expect(f.made[0]?.closed).toBe(true);
    expect(cache.handlers.size).toBe(0);
  });
});

describe('changedTargets', () => {
  it('names the old and the new target of a customization that moved', () => {
    expect(changedTargets(cs('a', GADGET), cs('a'))).toEqual([GADGET, WIDGET]);
    expect(changedTargets(cs('a'), undefined)).toEqual([WIDGET]);
  });
});
