/**
 * The ResourceInterpreterCustomizations of the control plane, as the agent follows them: one
 * watch cache of them and one interpreter running their scripts (the health, status and retained
 * fields of member objects), given the whole list again on every change, as upstream reloads it.
 *
 * The interpreter (its Lua VM and a spare, about 7 MiB of resident memory) is made when the first
 * customization appears, not before: most members never see one, and the agent's memory is kept
 * for its caches. Until then every kind is judged by the built-in rules, as it is without scripts.
 *
 * Until the first list is in (and the interpreter made, when there are customizations),
 * controllers that judge or apply member objects wait ({@link InterpreterCustomizations.source}):
 * a Retain script not yet known would let an apply overwrite what the member keeps, a health
 * script not yet known would report the built-in verdict for a moment.
 */
import type { ResourceInterpreterCustomization } from '@kf/api';
import type { ResourceInterpreter } from '@kf/interpreter';
import type { Logger, Source } from '@kf/runtime';

/** What the controllers ask the interpreter; each answer is undefined when no script covers the kind. */
export type MemberInterpreter = Pick<ResourceInterpreter, 'interpretHealth' | 'reflectStatus' | 'retain'>;

/** The interpreter as this module drives it. */
export type FollowingInterpreter = MemberInterpreter & Pick<ResourceInterpreter, 'update' | 'close'>;

/** The cache of customizations, as far as the agent uses it. */
export interface CustomizationSource {
  list(): readonly ResourceInterpreterCustomization[];
  onEvent(handler: () => void): () => void;
  synced(): Promise<void>;
  isSynced(): boolean;
}

export class InterpreterCustomizations {
  private readonly cache: CustomizationSource;
  private readonly create: () => Promise<FollowingInterpreter>;
  private readonly log: Logger;
  private readonly listeners = new Set<() => void>();
  private made: FollowingInterpreter | undefined;
  private making: Promise<void> | undefined;
  private failed = false;
  private closed = false;
  private changes = 0;

  constructor(cache: CustomizationSource, create: () => Promise<FollowingInterpreter>, log: Logger) {
    this.cache = cache;
    this.create = create;
    this.log = log;
    // Subscribed before the cache runs: the first list arrives as events too.
    cache.onEvent(() => {
      this.changed();
    });
  }

  /** The interpreter, once there were customizations; undefined: built-in rules only. */
  get interpreter(): MemberInterpreter | undefined {
    return this.made;
  }

  /**
   * How many times the scripts changed: a script failure already reported is reported again
   * after a change, since it may be another script failing the same way.
   */
  get generation(): number {
    return this.changes;
  }

  isSynced(): boolean {
    return this.cache.isSynced();
  }

  /** Listed, and the interpreter made if the list asked for one; rejects when it cannot be made. */
  async synced(): Promise<void> {
    await this.cache.synced();
    await this.making;
  }

  /**
   * A controller source that holds the controller back until {@link synced} and, on each later
   * change of the scripts, enqueues `keysOnChange()` (none by default): the verdicts of scripts
   * follow the scripts, not only the objects they judge.
   */
  source(keysOnChange: () => readonly string[] = () => []): Source {
    return {
      onChange: (enqueue) => {
        const l = (): void => {
          for (const key of keysOnChange()) enqueue(key);
        };
        this.listeners.add(l);
        return () => {
          this.listeners.delete(l);
        };
      },
      keys: () => [],
      synced: () => this.synced(),
    };
  }

  close(): void {
    this.closed = true;
    this.made?.close();
    this.made = undefined;
  }

  private changed(): void {
    if (this.made !== undefined) {
      this.made.update(this.cache.list());
      this.notify();
    } else if ((this.making === undefined || this.failed) && this.cache.list().length > 0 && !this.closed) {
      this.failed = false;
      this.making = this.make();
      // Awaited by synced(); a failure after start-up is logged, not left unhandled.
      this.making.catch(() => undefined);
    }
  }

  private async make(): Promise<void> {
    try {
      const made = await this.create();
      if (this.closed) {
        made.close();
        return;
      }
      made.update(this.cache.list());
      this.made = made;
      this.log.info({ customizations: this.cache.list().length }, 'resource interpreter started');
      this.notify();
    } catch (err: unknown) {
      // Tried again on the next change; a controller waiting for the first list fails with it.
      this.failed = true;
      this.log.error({ err }, 'resource interpreter could not start; customizations are not applied');
      throw err;
    }
  }

  private notify(): void {
    this.changes += 1;
    for (const l of [...this.listeners]) l();
  }
}
