/**
 * The control plane's one resource interpreter, kept in step with the
 * ResourceInterpreterCustomization objects of the API server, and what the workload controllers
 * build on it: the keys a customization change queues, and the interpreter to run scripts on.
 *
 * The interpreter is made once the first list is in. The workload controllers list the feed
 * among their sources: their workers start only once the interpreter holds every customization
 * of the first list, and /readyz waits for it too.
 */
import {
  createResourceInterpreter,
  InterpreterFeed,
  isTargeted,
  type CustomizationCache,
  type ResourceInterpreter,
  type TargetKind,
} from '@kf/interpreter';
import { joinKey } from '@kf/kube';
import type { Source } from '@kf/runtime';
import { allBindings, type BindingStore } from '../../bindings.ts';

// The workload controllers take the feed and everything they build on it from here.
export { InterpreterFeed, isTargeted, type TargetKind };

/** The feed the control plane runs: a full interpreter, made once the first list is in. */
export function interpreterFeed(customizations: CustomizationCache): InterpreterFeed {
  return new InterpreterFeed(customizations, { create: () => createResourceInterpreter() });
}

/**
 * A controller source that queues, on every customization change, the keys `keysOf` gives for the
 * kinds it touched; it has no keys of its own.
 */
export function customizationSource(
  feed: InterpreterFeed,
  keysOf: (targets: readonly TargetKind[]) => readonly string[],
): Source {
  return feed.source(keysOf);
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
