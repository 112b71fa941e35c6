/**
 * A key source fired by code rather than by a cache: something outside a controller (the
 * heartbeat, say) asks for a key to be reconciled now.
 */
import type { Source } from '@kf/runtime';

export class KeyTrigger implements Source {
  readonly #listeners = new Set<(key: string) => void>();

  /** Queues `key` on every controller listening; a no-op before any listens. */
  fire(key: string): void {
    for (const enqueue of [...this.#listeners]) enqueue(key);
  }

  onChange(enqueue: (key: string) => void): () => void {
    const listener = (key: string): void => {
      enqueue(key);
    };
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Fired keys are not remembered: the resync has nothing to add. */
  keys(): readonly string[] {
    return [];
  }

  synced(): Promise<void> {
    return Promise.resolve();
  }
}
