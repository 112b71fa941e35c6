/**
 * dependencies-distributor: propagates what a workload needs along with it. For each
 * ResourceBinding with `spec.propagateDeps` (the policy's `propagateDeps: true`), it finds the
 * template's dependencies (InterpretDependency scripts, else the built-in rules of built-in.ts)
 * and keeps an attached binding per dependency object that requires the dependant's clusters
 * (see plan.ts); the binding controller then writes the dependency's Works to those clusters,
 * so it follows the workload through every reschedule and failover.
 *
 * Keyed by the dependant binding. Watches bindings (dependants, and attached bindings → the
 * dependants in their `requiredBy`; creation, deletion, generation and label changes only),
 * templates (→ the dependants of their namespace that name their type, see dependants.ts) and
 * customizations (→ the dependants of their kinds). The template caches watch each type a
 * dependency names from the first time it is named. A dependant that is gone, deleting, or no
 * longer `propagateDeps` has its mark removed from every attached binding. A failing script
 * leaves the attached bindings as they are, turns the dependant's `DependenciesInterpreted`
 * condition False and is retried with backoff. Only ResourceBindings have dependencies
 * distributed, as upstream.
 */
import { isSameJson, type ResourceBinding } from '@kf/api';
import {
  isAlreadyExists,
  isNotFound,
  joinKey,
  splitKey,
  type EventRecorder,
  type WatchCache,
} from '@kf/kube';
import {
  converged,
  recheckIn,
  type ControllerSpec,
  type Logger,
  type ObjectEventType,
  type Outcome,
  type Source,
} from '@kf/runtime';
import {
  isClusterBindingKey,
  plainBindingWrites,
  recordOnBinding,
  type BindingStore,
} from '../../bindings.ts';
import {
  currentInterpreter,
  customizationSource,
  isTargeted,
  type InterpreterFeed,
} from '../interpreter/feed.ts';
import { ScriptFailedError, reportScriptOutcome } from '../interpreter/report.ts';
import type { TemplateCaches } from '../template-caches.ts';
import { isMeaningfulChange, typeKey, type ResourceTemplate } from '../template.ts';
import { WORKLOAD_WORKERS } from '../workers.ts';
import { DependantIndex } from './dependants.ts';
import { planAttachedBindings, type AttachedWrite } from './plan.ts';
import { dependenciesOf, resolveReferences } from './resolve.ts';

export const DEPENDENCIES_DISTRIBUTOR = 'dependencies-distributor';

/** How soon a dependant is looked at again while the cache of a newly named type lists. */
export const CACHE_SYNC_RECHECK_MS = 500;

export interface DependenciesDistributorDeps {
  readonly bindings: BindingStore;
  readonly templates: TemplateCaches;
  readonly events: EventRecorder;
  /** The customizations' scripts (InterpretDependency). */
  readonly interpreter: InterpreterFeed;
  /** A fresh binding permanent id (a random UUID in production). */
  readonly newId: () => string;
}

interface Ctx {
  readonly log: Logger;
  readonly signal: AbortSignal;
  readonly now: () => number;
}

const keyOfBinding = (b: ResourceBinding): string => joinKey(b.metadata.namespace, b.metadata.name ?? '');

/** The dependant keys a binding stands for: itself when it propagates, and those requiring it. */
function dependantKeysOf(b: ResourceBinding): string[] {
  const keys = b.spec.propagateDeps === true ? [keyOfBinding(b)] : [];
  for (const r of b.spec.requiredBy ?? []) {
    if ((r.namespace ?? '') !== '') keys.push(joinKey(r.namespace, r.name));
  }
  return keys;
}

/** Status writes (aggregated status, conditions) change nothing the distributor reads. */
function isRelevantBindingEvent(
  type: ObjectEventType,
  b: ResourceBinding,
  old: ResourceBinding | undefined,
): boolean {
  if (type !== 'MODIFIED' || old === undefined) return true;
  return (
    b.metadata.generation !== old.metadata.generation ||
    b.metadata.deletionTimestamp !== old.metadata.deletionTimestamp ||
    !isSameJson(b.metadata.labels, old.metadata.labels)
  );
}

function bindingSource(bindings: WatchCache<ResourceBinding>): Source {
  return {
    onChange: (enqueue) =>
      bindings.onEvent((type, b, old) => {
        if (!isRelevantBindingEvent(type, b, old)) return;
        const keys = new Set(dependantKeysOf(b));
        if (old !== undefined) for (const k of dependantKeysOf(old)) keys.add(k);
        for (const k of keys) enqueue(k);
      }),
    keys: () => [...new Set(bindings.list().flatMap(dependantKeysOf))],
    synced: () => bindings.synced(),
  };
}

function templateSource(templates: TemplateCaches, index: DependantIndex): Source {
  return {
    onChange: (enqueue) =>
      templates.onEvent((type, t, old) => {
        if (type === 'MODIFIED' && old !== undefined && !isMeaningfulChange(old, t)) return;
        for (const key of index.dependantsOf(t)) enqueue(key);
      }),
    keys: () => [],
    synced: () => templates.synced(),
  };
}

export function dependenciesDistributorController(deps: DependenciesDistributorDeps): ControllerSpec {
  const index = new DependantIndex();
  return {
    name: DEPENDENCIES_DISTRIBUTOR,
    workers: WORKLOAD_WORKERS,
    sources: [
      bindingSource(deps.bindings.resourceBindings),
      templateSource(deps.templates, index),
      // A customization change may change the dependencies of the propagating bindings of its kinds.
      customizationSource(deps.interpreter, (targets) =>
        deps.bindings.resourceBindings
          .list()
          .filter(
            (b) =>
              b.spec.propagateDeps === true &&
              isTargeted(targets, b.spec.resource.apiVersion, b.spec.resource.kind),
          )
          .map(keyOfBinding),
      ),
    ],
    async reconcile(key, ctx) {
      if (isClusterBindingKey(key)) return converged();
      const { namespace = '', name } = splitKey(key);
      const b = deps.bindings.resourceBindings.get(key);
      const active =
        b !== undefined && b.metadata.deletionTimestamp === undefined && b.spec.propagateDeps === true;
      if (!active) {
        index.forget(namespace, name);
        await applyWrites(deps, { key, namespace, name, parent: undefined, dependencies: [] }, ctx);
        return converged();
      }
      // Tracked before reading, so that a template event during this pass queues the key again.
      index.track(namespace, name, undefined);
      return distribute(deps, { key, namespace, name, b, index }, ctx);
    },
  };
}

interface Dependant {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly b: ResourceBinding;
  readonly index: DependantIndex;
}

async function distribute(deps: DependenciesDistributorDeps, p: Dependant, ctx: Ctx): Promise<Outcome> {
  const r = p.b.spec.resource;
  const template = deps.templates.get(r.apiVersion, r.kind, joinKey(r.namespace, r.name));
  if (template === undefined) return converged(); // gone: the detector removes the binding
  const outcome = dependenciesOf(template, currentInterpreter(deps.interpreter));
  const scriptOutcome =
    outcome.kind === 'failed'
      ? outcome
      : outcome.kind === 'found' && outcome.scripted
        ? { kind: 'succeeded' as const, value: outcome.references }
        : { kind: 'none' as const };
  await reportScriptOutcome(
    { writes: plainBindingWrites(deps.bindings), events: deps.events },
    { key: p.key, b: p.b },
    { step: 'GetDependencies', outcome: scriptOutcome },
    { nowMs: ctx.now(), signal: ctx.signal },
  );
  // A failing script leaves the attached bindings as they are: the workload keeps its config.
  if (outcome.kind === 'failed') throw new ScriptFailedError('GetDependencies', outcome.message);
  // Upstream does nothing for a kind without dependency rules (not even remove attachments).
  if (outcome.kind === 'none') {
    p.index.track(p.namespace, p.name, new Set());
    return converged();
  }
  const types = new Set(outcome.references.map((ref) => typeKey(ref.apiVersion, ref.kind)));
  p.index.track(p.namespace, p.name, types);
  let listing = false;
  for (const ref of outcome.references) {
    deps.templates.ensure(ref.apiVersion, ref.kind);
    if (!deps.templates.isWatched(ref.apiVersion, ref.kind)) listing = true;
  }
  // Until every named type has listed, a missing object may only be not seen yet: detaching
  // from it could remove a dependency from the members.
  if (listing) return recheckIn(CACHE_SYNC_RECHECK_MS);
  const dependencies = resolveReferences(outcome.references, deps.templates);
  await applyWrites(deps, { ...p, parent: p.b, dependencies }, ctx);
  return converged();
}

async function applyWrites(
  deps: DependenciesDistributorDeps,
  target: {
    readonly key: string;
    readonly namespace: string;
    readonly name: string;
    readonly parent: ResourceBinding | undefined;
    readonly dependencies: readonly ResourceTemplate[];
  },
  ctx: Ctx,
): Promise<void> {
  const cache = deps.bindings.resourceBindings;
  const inNamespace = cache.list().filter((b) => (b.metadata.namespace ?? '') === target.namespace);
  const writes = planAttachedBindings({
    ...target,
    bindings: inNamespace,
    bindingNamed: (n) => cache.get(joinKey(target.namespace, n)),
    newPermanentId: deps.newId(),
  });
  if (writes.length === 0) return;
  try {
    for (const w of writes) await applyWrite(deps, w, ctx);
  } catch (err: unknown) {
    if (target.parent !== undefined) {
      recordOnBinding(deps.events, target.parent, {
        type: 'Warning',
        reason: 'SyncScheduleResultToDependenciesFailed',
        message: err instanceof Error ? err.message : String(err),
      });
    }
    throw err;
  }
  if (target.parent !== undefined) {
    recordOnBinding(deps.events, target.parent, {
      type: 'Normal',
      reason: 'SyncScheduleResultToDependenciesSucceed',
      message: 'Sync schedule results to dependencies succeed.',
    });
  }
}

async function applyWrite(deps: DependenciesDistributorDeps, w: AttachedWrite, ctx: Ctx): Promise<void> {
  const client = deps.bindings.resourceBindingClient;
  switch (w.kind) {
    case 'OwnedByOther':
      throw new Error(`binding ${w.name} belongs to object uid ${w.ownerUid}; waiting for its removal`);
    case 'Create':
      try {
        await client.create(w.binding, { signal: ctx.signal });
      } catch (err: unknown) {
        // Made by an earlier pass the cache does not show yet; its event brings the key back.
        if (!isAlreadyExists(err)) throw err;
      }
      ctx.log.info({ attached: w.binding.metadata.name }, 'attached binding created');
      return;
    case 'Update':
      await client.replace(w.binding, { signal: ctx.signal });
      if (w.conflicts.length > 0) {
        deps.events.record(
          w.binding,
          'Warning',
          'DependencyPolicyConflict',
          `Dependency policy conflict detected: ${w.conflicts.join('; ')}.`,
        );
      }
      return;
    case 'Delete':
      try {
        await client.delete(keyOfBinding(w.binding), {
          preconditions: { uid: w.binding.metadata.uid ?? '' },
          signal: ctx.signal,
        });
        ctx.log.info({ attached: w.binding.metadata.name }, 'attached binding no longer required; deleted');
      } catch (err: unknown) {
        if (!isNotFound(err)) throw err;
      }
      return;
  }
}
