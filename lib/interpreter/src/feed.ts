/**
 * One resource interpreter kept in step with the ResourceInterpreterCustomization objects of a
 * cache. Customizations come and go while the process runs; each change hands the interpreter the
 * whole list again (unchanged scripts stay compiled), as upstream reloads it, and then tells the
 * listeners which kinds it touched, so that what the old scripts judged is judged again.
 *
 * The interpreter starts in one of two ways:
 * - eagerly, by {@link InterpreterFeed.run}: made once the first list is in, even an empty one.
 *   `synced()` resolves when it is made; a failure to make it ends `run` with the error.
 * - lazily (`lazy: true`): made when the first customization appears. The interpreter (a Lua VM
 *   and a spare, about 7 MiB of resident memory) is not paid for by a process that never sees a
 *   customization; until then `interpreter` is undefined and every kind is judged by the built-in
 *   rules. A failure to make it is logged and rejects `synced()`; the next change tries again.
 */
import type { ResourceInterpreterCustomization } from '@kf/api';
import type { ResourceInterpreter } from './resource-interpreter.ts';

type Customization = ResourceInterpreterCustomization;

/** A kind scripts are written for, as a customization's `spec.target` names it. */
export interface TargetKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/**
 * The cache of customizations, as far as the feed reads it. Handlers are called after the cache
 * changed (`list()` already shows the change), for the first list too.
 */
export interface CustomizationCache {
  list(): readonly Customization[];
  onEvent(
    handler: (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: Customization, old?: Customization) => void,
  ): () => void;
  /** Resolves once the first complete list is in. */
  synced(): Promise<void>;
}

/** What the feed itself asks of the interpreter it keeps. */
export type FedInterpreter = Pick<ResourceInterpreter, 'update' | 'close'>;

/** Where the feed reports the interpreter starting, or failing to. */
export interface FeedLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface InterpreterFeedOptions<I extends FedInterpreter> {
  /** Makes the interpreter (empty: the feed gives it the list). */
  readonly create: () => Promise<I>;
  /** Make it only when the first customization appears (default: once the first list is in). */
  readonly lazy?: boolean;
  readonly log?: FeedLog;
}

/** A stream of keys to reconcile, shaped as the controller runner consumes it. */
export interface KeySource {
  onChange(enqueue: (key: string) => void): () => void;
  keys(): readonly string[];
  synced(): Promise<void>;
}

type ChangeHandler = (targets: readonly TargetKind[]) => void;

/** Kinds whose scripts a change of `obj` (from `old`) may have changed. */
export function changedTargets(obj: Customization, old: Customization | undefined): readonly TargetKind[] {
  return targetsOf([obj, old]);
}

/** Whether `apiVersion`/`kind` is one of `targets`. */
export function isTargeted(targets: readonly TargetKind[], apiVersion: string, kind: string): boolean {
  return targets.some((t) => t.apiVersion === apiVersion && t.kind === kind);
}

function targetsOf(customizations: readonly (Customization | undefined)[]): readonly TargetKind[] {
  const out = new Map<string, TargetKind>();
  for (const c of customizations) {
    const t = c?.spec.target;
    if (t !== undefined) out.set(`${t.apiVersion}/${t.kind}`, { apiVersion: t.apiVersion, kind: t.kind });
  }
  return [...out.values()];
}

function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    signal.addEventListener(
      'abort',
      () => {
        resolve();
      },
      { once: true },
    );
  });
}

export class InterpreterFeed<I extends FedInterpreter = ResourceInterpreter> {
  readonly #source: CustomizationCache;
  readonly #create: () => Promise<I>;
  readonly #lazy: boolean;
  readonly #log: FeedLog | undefined;
  readonly #handlers = new Set<ChangeHandler>();
  readonly #unsubscribe: () => void;
  readonly #made: Promise<void>;
  #markMade: () => void = () => undefined;
  #interpreter: I | undefined;
  #making: Promise<void> | undefined;
  #failed = false;
  #closed = false;
  #listed = false;
  #changes = 0;

  constructor(source: CustomizationCache, options: InterpreterFeedOptions<I>) {
    this.#source = source;
    this.#create = options.create;
    this.#lazy = options.lazy ?? false;
    this.#log = options.log;
    this.#made = new Promise((resolve) => {
      this.#markMade = resolve;
    });
    // Subscribed before the cache runs: the first list arrives as events too, and a change made
    // while the interpreter is being made is in the list it is given.
    this.#unsubscribe = source.onEvent((_type, obj, old) => {
      this.#changed(changedTargets(obj, old));
    });
    void source.synced().then(
      () => {
        this.#listed = true;
      },
      () => undefined,
    );
  }

  /** The interpreter; undefined until it is made (lazily: built-in rules only). */
  get interpreter(): I | undefined {
    return this.#interpreter;
  }

  /**
   * How many times the scripts changed: a script failure already reported is reported again
   * after a change, since it may be another script failing the same way.
   */
  get generation(): number {
    return this.#changes;
  }

  /** The interpreter holds the customizations of the first list (lazily: or none was needed). */
  isReady(): boolean {
    if (this.#interpreter !== undefined) return true;
    return this.#lazy && this.#listed && this.#making === undefined;
  }

  /**
   * Resolves once the interpreter holds the customizations of the first list. Lazily: once
   * listed, and the interpreter made if the list asked for one; rejects when it cannot be made.
   */
  synced(): Promise<void> {
    return this.#lazy ? this.#listedAndMade() : this.#made;
  }

  /** Calls `handler` after each change the interpreter took in, with the kinds it touched. */
  onChange(handler: ChangeHandler): () => void {
    this.#handlers.add(handler);
    return () => {
      this.#handlers.delete(handler);
    };
  }

  /**
   * A controller source that holds the controller back until {@link synced} and, on each later
   * change of the scripts, queues the keys `keysOf` gives for the kinds it touched (none by
   * default); it has no keys of its own.
   */
  source(keysOf: (targets: readonly TargetKind[]) => readonly string[] = () => []): KeySource {
    return {
      onChange: (enqueue) =>
        this.onChange((targets) => {
          for (const key of keysOf(targets)) enqueue(key);
        }),
      keys: () => [],
      synced: () => this.synced(),
    };
  }

  /**
   * Follows the customizations until `signal` aborts, then closes the feed (a runnable). Eagerly,
   * makes the interpreter once the first list is in and rejects when it cannot.
   */
  async run(signal: AbortSignal): Promise<void> {
    try {
      if (!this.#lazy) {
        await Promise.race([this.#source.synced(), whenAborted(signal)]);
        if (signal.aborted) return;
        await this.#start();
      }
      await whenAborted(signal);
    } finally {
      this.close();
    }
  }

  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    this.#interpreter?.close();
    this.#interpreter = undefined;
  }

  async #listedAndMade(): Promise<void> {
    await this.#source.synced();
    await this.#making;
  }

  #changed(targets: readonly TargetKind[]): void {
    if (this.#interpreter !== undefined) {
      this.#interpreter.update(this.#source.list());
      this.#notify(targets);
    } else if (this.#lazy && this.#mayStart()) {
      // Awaited by synced(); a failure after start-up is logged, not left unhandled.
      this.#start().catch(() => undefined);
    }
  }

  #mayStart(): boolean {
    const idle = this.#making === undefined || this.#failed;
    return idle && !this.#closed && this.#source.list().length > 0;
  }

  #start(): Promise<void> {
    this.#failed = false;
    this.#making = this.#make();
    return this.#making;
  }

  async #make(): Promise<void> {
    try {
      const made = await this.#create();
      if (this.#closed) {
        made.close();
        return;
      }
      const list = this.#source.list();
      made.update(list);
      this.#interpreter = made;
      this.#log?.info({ customizations: list.length }, 'resource interpreter started');
      this.#markMade();
      // Made lazily, its scripts replace the built-in verdicts already given for their kinds.
      if (this.#lazy) this.#notify(targetsOf(list));
    } catch (err: unknown) {
      this.#failed = true;
      this.#log?.error({ err }, 'resource interpreter could not start; customizations are not applied');
      throw err;
    }
  }

  #notify(targets: readonly TargetKind[]): void {
    this.#changes += 1;
    for (const h of [...this.#handlers]) h(targets);
  }
}
