import { describe, expect, it } from 'vitest';
import type { ResourceInterpreterCustomization } from '@kf/api';
import type { ObjectEventHandler } from '@kf/runtime';
import { currentInterpreter, customizationSource, interpreterFeed } from './feed.ts';
import { asKubeObject } from '../template.ts';
import { CLONESET, cloneSet, cloneSetScripts, failingScripts } from './test-scripts.ts';

/** A customization cache the test fills by hand. */
class FakeSource {
  items: ResourceInterpreterCustomization[] = [];
  readonly handlers = new Set<ObjectEventHandler<ResourceInterpreterCustomization>>();
  #synced: () => void = () => undefined;
  readonly #ready = new Promise<void>((resolve) => {
    this.#synced = resolve;
  });
  list(): readonly ResourceInterpreterCustomization[] {
    return this.items;
  }
  onEvent(h: ObjectEventHandler<ResourceInterpreterCustomization>): () => void {
    this.handlers.add(h);
    return () => this.handlers.delete(h);
  }
  synced(): Promise<void> {
    return this.#ready;
  }
  markSynced(): void {
    this.#synced();
  }
  put(c: ResourceInterpreterCustomization, old?: ResourceInterpreterCustomization): void {
    this.items = [...this.items.filter((x) => x.metadata.name !== c.metadata.name), c];
    for (const h of this.handlers) h(old === undefined ? 'ADDED' : 'MODIFIED', c, old);
  }
}

describe('InterpreterFeed', () => {
  it('is ready once the first list is in, and follows every change, naming the kinds it touched', async () => {
    const source = new FakeSource();
    const feed = interpreterFeed(source);
    const queued: string[] = [];
    customizationSource(feed, (targets) => targets.map((t) => `${t.apiVersion}/${t.kind}`)).onChange((k) =>
      queued.push(k),
    );
    const abort = new AbortController();
    const running = feed.run(abort.signal);
    expect(() => currentInterpreter(feed)).toThrow(/not loaded/);
    source.items = [cloneSetScripts];
    source.markSynced();
    await feed.synced();
    expect(currentInterpreter(feed)?.getReplicas(asKubeObject(cloneSet(3)))?.replicas).toBe(3);

    const broken = {
      ...failingScripts(CLONESET, 'cloneset'),
      metadata: { name: 'cloneset', resourceVersion: '2' },
    };
    source.put(broken, cloneSetScripts);
    expect(() => currentInterpreter(feed)?.getReplicas(asKubeObject(cloneSet(3)))).toThrow(/no luck/);
    expect(queued).toEqual(['apps.kruise.io/v1alpha1/CloneSet']);

    abort.abort();
    await running;
  });

  it('runs without scripts when the process has no feed', () => {
    expect(currentInterpreter(undefined)).toBeUndefined();
  });
});
