/**
 * The control plane's one resource interpreter, kept in step with the
 * ResourceInterpreterCustomization objects of the API server. Customizations come and go while
 * the process runs; each change replaces the interpreter's list (unchanged scripts stay compiled)
 * and then tells the controllers which kinds it touched, so that they look at the templates and
 * bindings of those kinds again (their replicas, Works and status may now come out differently).
 *
 * The workload controllers list it among their sources: their workers start only once the
 * interpreter holds every customization of the first list, and /readyz waits for it too.
 */
import type { ResourceInterpreterCustomization } from '@kf/api';
import { createResourceInterpreter, type ResourceInterpreter } from '@kf/interpreter';
import { joinKey } from '@kf/kube';
import { whenAborted, type ObjectSource, type Source } from '@kf/runtime';
import { allBindings, type BindingStore } from '../../bindings.ts';

/** A kind scripts are written for, as a customization's `spec.target` names it. */
export interface TargetKind {
  readonly apiVersion: string;
  readonly kind: string;
}

export type CustomizationSource = ObjectSource<ResourceInterpreterCustomization>;

type ChangeHandler = (targets: readonly TargetKind[]) => void;

/** Kinds whose scripts a change of `obj` (from `old`) may have changed. */
export function changedTargets(
  obj: ResourceInterpreterCustomization,
  old: ResourceInterpreterCustomization | undefined,
): readonly TargetKind[] {
  const out = new Map<string, TargetKind>();
  for (const c of [obj, old]) {
    const t = c?.spec.target;
    if (t !== undefined) out.set(`${t.apiVersion}/${t.kind}`, { apiVersion: t.apiVersion, kind: t.kind });
  }
  return [...out.values()];
}

export class InterpreterFeed {
  readonly #source: CustomizationSource;
  readonly #create: (list: readonly ResourceInterpreterCustomization[]) => Promise<ResourceInterpreter>;
  readonly #handlers = new Set<ChangeHandler>();
  readonly #ready: Promise<void>;
  #markReady: () => void = () => undefined;
  #interpreter: ResourceInterpreter | undefined;

  constructor(
    source: CustomizationSource,
    create: (list: readonly ResourceInterpreterCustomization[]) => Promise<ResourceInterpreter> = (list) =>
      createResourceInterpreter(list),
  ) {
    this.#source = source;
    this.#create = create;
    this.#ready = new Promise((resolve) => {
      this.#markReady = resolve;
    });
  }

  /** The interpreter; undefined until the first list is in (the controllers wait for it). */
  get interpreter(): ResourceInterpreter | undefined {
    return this.#interpreter;
  }

  isReady(): boolean {
    return this.#interpreter !== undefined;
  }

  /** Resolves once the interpreter holds the customizations of the first list. */
  synced(): Promise<void> {
    return this.#ready;
  }

  /** Calls `handler` after each change the interpreter took in, with the kinds it touched. */
  onChange(handler: ChangeHandler): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  /** Builds the interpreter and follows the customizations until `signal` aborts (a runnable). */
  async run(signal: AbortSignal): Promise<void> {
    // Subscribed before the first list is read: a change made meanwhile is taken in right after.
    const unsubscribe = this.#source.onEvent((_type, obj, old) => {
      const interpreter = this.#interpreter;
      if (interpreter === undefined) return;
      interpreter.update(this.#source.list());
      const targets = changedTargets(obj, old);
      for (const h of this.#handlers) h(targets);
    });
    try {
      await Promise.race([this.#source.synced(), whenAborted(signal)]);
      if (signal.aborted) return;
      const interpreter = await this.#create(this.#source.list());
      interpreter.update(this.#source.list());
      this.#interpreter = interpreter;
      this.#markReady();
      await whenAborted(signal);
      interpreter.close();
    } finally {
      unsubscribe();
    }
  }
}

/**
 * A controller source that queues, on every customization change, the keys `keysOf` gives for the
 * kinds it touched; it has no keys of its own.
 */
export function customizationSource(
  feed: InterpreterFeed,
  keysOf: (targets: readonly TargetKind[]) => readonly string[],
): Source {
  return {
    onChange: (enqueue) =>
      feed.onChange((targets) => {
        for (const key of keysOf(targets)) enqueue(key);
      }),
    keys: () => [],
    synced: () => feed.synced(),
  };
}

/** Whether `apiVersion`/`kind` is one of `targets`. */
export function isTargeted(targets: readonly TargetKind[], apiVersion: string, kind: string): boolean {
  return targets.some((t) => t.apiVersion === apiVersion && t.kind === kind);
}

/**
 * The interpreter to run scripts on: undefined when the process runs without one. The workers of
 * the controllers that use it start only once it is ready, so not being ready is a transient
 * error (retried) rather than "no scripts".
 */
export function currentInterpreter(feed: InterpreterFeed | undefined): ResourceInterpreter | undefined {
  if (feed === undefined) return undefined;
  const interpreter = feed.interpreter;
  if (interpreter === undefined)
    throw new Error('the resource interpreter has not loaded the customizations yet');
  return interpreter;
}

/** A customization change may change the Works and the status of every binding of its kinds. */
export function bindingsOfChangedKinds(bindings: BindingStore, feed: InterpreterFeed): Source {
  return customizationSource(feed, (targets) =>
    allBindings(bindings)
      .list()
      .filter((b) => isTargeted(targets, b.spec.resource.apiVersion, b.spec.resource.kind))
      .map((b) => joinKey(b.metadata.namespace, b.metadata.name ?? '')),
  );
}
