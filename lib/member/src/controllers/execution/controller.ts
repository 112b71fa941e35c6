/**
 * Applies the manifests of each Work in `karmada-es-<cluster>` to the member with server-side
 * apply (field manager `karmada-agent`), repairs drift, and deletes the member objects when the
 * Work is deleted (then removes the Work's `karmada.io/execution-controller` finalizer).
 * Watches Works (spec changes, deletions) and the member objects it manages (drift: changes other
 * than status, deletions → the owning Work's key). Writes member objects, Work finalizers and the
 * Work's `Applied` / `Dispatching` conditions.
 *
 * Over an existing member object whose kind has a Retain script (a ResourceInterpreterCustomization),
 * what is applied is the script's result, as upstream retains the member's fields before each
 * update; a failing script fails that manifest alone (Applied=False naming it, SyncFailed Event).
 *
 * Never deletes because something is missing from a cache: a Work absent from the cache is left
 * alone (a relist or a partition must not remove workloads); member objects go only when their
 * Work carries a deletionTimestamp and the object is managed by that very Work.
 */
import {
  finalizers,
  jsonEqual,
  setCondition,
  workConditionMessages,
  workConditionReasons,
  workConditionTypes,
  type Condition,
  type ConditionUpdate,
  type Manifest,
  type Work,
} from '@kf/api';
import {
  isNotFound,
  keyOf,
  updateWithRetry,
  type EventRecorder,
  type ResourceClient,
  type WatchCache,
} from '@kf/kube';
import {
  converged,
  recheckIn,
  type ControllerSpec,
  type Logger,
  type Outcome,
  type Source,
} from '@kf/runtime';
import type { InterpreterCustomizations } from '../../interpreter/customizations.ts';
import type { MemberObjects } from '../../member/member-objects.ts';
import type { Mapping, MemberRestMapper } from '../../member/rest-mapper.ts';
import type { MemberMetrics } from '../../metrics.ts';
import { specChanges } from '../spec-changes.ts';
import {
  adoptionRefusal,
  desiredObject,
  isDrift,
  mayDelete,
  owningWorkKey,
  manifestIdentity,
  releasedObject,
  type MemberObject,
  type WorkRef,
} from './manifest-plan.ts';
import type { ObjectRef } from '../../fence/fence-plan.ts';
import { applyFenced, type FenceWiring } from './fenced-apply.ts';
import { namespaceContents, type NamespaceLister } from './namespace-guard.ts';
import { retainedObject } from './retain.ts';
import { syncEvent, workEventReasons } from './work-events.ts';

export interface WorkDeps {
  readonly clusterName: string;
  readonly works: WatchCache<Work>;
  readonly workClient: ResourceClient<Work>;
  readonly memberObjects: MemberObjects;
  readonly mapper: MemberRestMapper;
  readonly fieldManager: string;
  readonly metrics: MemberMetrics;
  readonly workers: number;
  /** Events on Works in the control plane, where upstream's agent records them. */
  readonly events?: Pick<EventRecorder, 'record'>;
  /** Lists the member's namespaces' contents, so that a namespace holding others' objects is kept. */
  readonly namespaces?: NamespaceLister;
  /** The self-fence, for Works carrying a fence timeout (without it they are not applied). */
  readonly fence?: FenceWiring;
  /** Why Works with a fence timeout are refused when there is no fence (default: the heartbeat is off). */
  readonly noFence?: string;
  /** The control plane's ResourceInterpreterCustomizations and the interpreter of their scripts. */
  readonly customizations?: InterpreterCustomizations;
}

/** How soon a Work waiting for this process's first Lease renewal is looked at again. */
const FIRST_RENEWAL_RECHECK_MS = 1_000;

/** An unmanaged member object is in the way of a manifest. */
export class AdoptionRefusedError extends Error {
  override readonly name = 'AdoptionRefusedError';
}

/** Member changes that may be drift, as keys of the owning Works. */
function driftSource(deps: WorkDeps): Source {
  return {
    onChange: (enqueue) =>
      deps.memberObjects.onEvent((type, obj, old) => {
        const key = owningWorkKey(obj);
        if (key !== undefined && isDrift(type, obj, old, deps.memberObjects.appliedVersion(obj)))
          enqueue(key);
      }),
    keys: () => [],
    synced: () => Promise.resolve(),
  };
}

export function executionController(deps: WorkDeps): ControllerSpec {
  return {
    name: 'execution',
    workers: deps.workers,
    sources: [
      specChanges(deps.works, (w) => [keyOf(w)]),
      driftSource(deps),
      ...(deps.fence === undefined ? [] : [deps.fence.fenced]),
      // Nothing to enqueue, but no apply before the Retain scripts are known.
      ...(deps.customizations === undefined ? [] : [deps.customizations.source()]),
    ],
    async reconcile(key, { log, now, signal }) {
      const cached = deps.works.get(key);
      if (cached === undefined) return converged(); // gone, or not seen yet: never a reason to delete
      if (cached.metadata.deletionTimestamp !== undefined) {
        await cleanUp(deps, cached, { log, signal });
        await deps.fence?.fence.forget(key, signal);
        return converged();
      }
      const work = await ensureFinalizer(deps, cached, key);
      const suspended = work.spec.suspendDispatching === true;
      const dispatch = dispatching(suspended);
      const dispatchChanged = conditionStatus(work, dispatch.type) !== dispatch.status;
      await writeConditions(deps, key, [dispatch], now);
      if (dispatchChanged)
        deps.events?.record(work, 'Normal', workEventReasons.dispatching, dispatch.message);
      if (suspended) return converged();
      return applyWork(deps, { key, work }, { now, signal });
    },
  };
}

/** Applies the Work's manifests (through the self-fence when it has a fence) and says how it went. */
async function applyWork(
  deps: WorkDeps,
  target: { readonly key: string; readonly work: Work },
  ctx: { readonly now: () => number; readonly signal: AbortSignal },
): Promise<Outcome> {
  const { key, work } = target;
  const manifests = work.spec.workload?.manifests ?? [];
  const outcome = await applyFenced(deps.fence, {
    key,
    work,
    ...(deps.noFence === undefined ? {} : { noFence: deps.noFence }),
    objects: () => objectRefs(deps, work),
    apply: () => applyAll(deps, work, ctx.signal),
    disarm: (condition) => writeConditions(deps, key, [condition], ctx.now),
    signal: ctx.signal,
  });
  if (outcome.kind === 'wait') return recheckIn(FIRST_RENEWAL_RECHECK_MS);
  if (outcome.kind === 'fenced') {
    await writeConditions(deps, key, [outcome.condition], ctx.now);
    return converged();
  }
  const errors = outcome.kind === 'refused' ? [outcome.message] : [...outcome.errors];
  const armed = outcome.kind === 'applied' && outcome.armed !== undefined ? [outcome.armed] : [];
  await writeConditions(deps, key, [applied(manifests.length, errors), ...armed], ctx.now);
  const sync = syncEvent(work, deps.clusterName, errors);
  deps.events?.record(work, sync.type, sync.reason, sync.message);
  if (errors.length > 0)
    throw new Error(`failed to apply ${errors.length} manifest(s): ${errors.join('; ')}`);
  return converged();
}

/** The member objects a Work's manifests become. */
async function objectRefs(deps: WorkDeps, work: Work): Promise<ObjectRef[]> {
  const refs: ObjectRef[] = [];
  for (const m of work.spec.workload?.manifests ?? []) {
    const { desired } = await resolveManifest(deps, m, workRef(work));
    const namespace = desired.metadata?.namespace;
    refs.push({
      apiVersion: desired.apiVersion ?? '',
      kind: desired.kind ?? '',
      ...(namespace === undefined || namespace === '' ? {} : { namespace }),
      name: desired.metadata?.name ?? '',
    });
  }
  return refs;
}

function conditionStatus(work: Work, type: string): string | undefined {
  return work.status?.conditions?.find((c) => c.type === type)?.status;
}

function workRef(work: Work): WorkRef {
  return { namespace: work.metadata.namespace ?? '', name: work.metadata.name ?? '' };
}

/** Applies every manifest; returns the error messages of those that failed. */
async function applyAll(deps: WorkDeps, work: Work, signal: AbortSignal): Promise<string[]> {
  const errors: string[] = [];
  for (const m of work.spec.workload?.manifests ?? []) {
    try {
      await applyManifest(deps, m, workRef(work), signal);
      deps.metrics.workApplied('success');
    } catch (err: unknown) {
      deps.metrics.workApplied(err instanceof AdoptionRefusedError ? 'refused' : 'error');
      errors.push(err instanceof Error ? err.message : String(err));
    }
  }
  return errors;
}

function dispatching(suspended: boolean): ConditionUpdate {
  return suspended
    ? {
        type: workConditionTypes.dispatching,
        status: 'False',
        reason: workConditionReasons.suspendDispatching,
        message: workConditionMessages.suspendDispatching,
      }
    : {
        type: workConditionTypes.dispatching,
        status: 'True',
        reason: workConditionReasons.dispatching,
        message: workConditionMessages.dispatching,
      };
}

function applied(total: number, errors: readonly string[]): ConditionUpdate {
  if (errors.length === 0) {
    return {
      type: workConditionTypes.applied,
      status: 'True',
      reason: workConditionReasons.appliedSuccessful,
      message: workConditionMessages.appliedSuccessful,
    };
  }
  return {
    type: workConditionTypes.applied,
    status: 'False',
    reason: workConditionReasons.appliedFailed,
    message: `Failed to apply all manifests (${total - errors.length}/${total}): ${errors.join(', ')}`,
  };
}

/** A manifest's member resource, the object to apply and its key there. */
export async function resolveManifest(
  deps: Pick<WorkDeps, 'mapper'>,
  m: Manifest,
  ref: WorkRef,
): Promise<{ mapping: Mapping; desired: MemberObject; key: string }> {
  const id = manifestIdentity(m);
  const mapping = await deps.mapper.resolve(id.apiVersion, id.kind);
  const desired = desiredObject(m, ref, mapping.namespaced);
  return { mapping, desired, key: keyOf(desired) };
}

async function applyManifest(deps: WorkDeps, m: Manifest, ref: WorkRef, signal: AbortSignal): Promise<void> {
  const { mapping, desired, key } = await resolveManifest(deps, m, ref);
  const live = await deps.memberObjects.live(mapping, key, signal);
  const refusal = adoptionRefusal(live, desired);
  if (refusal !== undefined) throw new AdoptionRefusedError(refusal);
  const target = { work: ref, namespaced: mapping.namespaced };
  const applied = retainedObject(desired, live, target, deps.customizations?.interpreter);
  const { client } = deps.memberObjects.resource(mapping);
  const written = await client.apply(applied, { fieldManager: deps.fieldManager, force: true, signal });
  deps.memberObjects.recordApplied(written);
}

interface CleanUpContext {
  readonly log: Logger;
  readonly signal: AbortSignal;
}

/** Deletes (or, with preserveResourcesOnDeletion, releases) the member objects, then the finalizer. */
async function cleanUp(deps: WorkDeps, work: Work, ctx: CleanUpContext): Promise<void> {
  if (!(work.metadata.finalizers ?? []).includes(finalizers.executionController)) return;
  for (const m of work.spec.workload?.manifests ?? []) {
    await cleanUpManifest(deps, work, m, ctx);
  }
  await updateWithRetry<Work>({
    read: () => deps.workClient.get(keyOf(work), { signal: ctx.signal }),
    mutate: (current) => {
      const list = current.metadata.finalizers ?? [];
      if (!list.includes(finalizers.executionController)) return undefined;
      const rest = list.filter((f) => f !== finalizers.executionController);
      return { ...current, metadata: { ...current.metadata, finalizers: rest } };
    },
    write: (next) => deps.workClient.replace(next, { signal: ctx.signal }),
  }).catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
  });
}

async function cleanUpManifest(deps: WorkDeps, work: Work, m: Manifest, ctx: CleanUpContext): Promise<void> {
  const ref = workRef(work);
  const { mapping, desired, key } = await resolveManifest(deps, m, ref);
  const live = await deps.memberObjects.live(mapping, key, ctx.signal);
  if (live === undefined || !mayDelete(live, ref)) return; // absent, unmanaged, or now another Work's
  const { client } = deps.memberObjects.resource(mapping);
  const keep = await keepReason(deps, work, desired, ctx.signal);
  if (keep !== undefined) {
    const released = releasedObject(desired);
    await client.apply(released, { fieldManager: deps.fieldManager, force: true, signal: ctx.signal });
    ctx.log.info({ object: key, kind: desired.kind, why: keep }, 'member object released, not deleted');
    return;
  }
  try {
    await client.delete(key, { propagationPolicy: 'Background', signal: ctx.signal });
    deps.metrics.workDeleted('success');
    ctx.log.info({ object: key, kind: desired.kind }, 'member object deleted with its Work');
  } catch (err: unknown) {
    if (!isNotFound(err)) {
      deps.metrics.workDeleted('error');
      throw err;
    }
  }
  deps.memberObjects.forgetApplied(live);
}

/**
 * Why a deleted Work's member object is released rather than deleted: the Work asks so
 * (`preserveResourcesOnDeletion`), or it is a namespace that holds objects not Karmada's (or whose
 * contents the agent cannot fully see). Undefined: delete it.
 */
async function keepReason(
  deps: WorkDeps,
  work: Work,
  desired: MemberObject,
  signal: AbortSignal,
): Promise<string | undefined> {
  if (work.spec.preserveResourcesOnDeletion === true) return 'preserveResourcesOnDeletion';
  if (desired.apiVersion !== 'v1' || desired.kind !== 'Namespace' || deps.namespaces === undefined)
    return undefined;
  const name = desired.metadata?.name ?? '';
  const contents = await namespaceContents(deps.namespaces, name, signal);
  if (contents.kind === 'ours') return undefined;
  const why =
    contents.kind === 'foreign'
      ? `it holds objects not propagated by Karmada (${contents.examples.join(', ')})`
      : `what it holds cannot be told: ${contents.why}`;
  deps.events?.record(
    work,
    'Normal',
    workEventReasons.namespaceKept,
    `Namespace ${name} kept in the member: ${why}.`,
  );
  return why;
}

/**
 * Adds the execution finalizer when the control plane has not (so that deleting the Work always
 * removes what was applied); returns the Work to apply.
 */
async function ensureFinalizer(deps: WorkDeps, work: Work, key: string): Promise<Work> {
  if ((work.metadata.finalizers ?? []).includes(finalizers.executionController)) return work;
  return updateWithRetry<Work>({
    read: () => deps.workClient.get(key),
    mutate: (current) =>
      (current.metadata.finalizers ?? []).includes(finalizers.executionController)
        ? undefined
        : {
            ...current,
            metadata: {
              ...current.metadata,
              finalizers: [...(current.metadata.finalizers ?? []), finalizers.executionController],
            },
          },
    write: (next) => deps.workClient.replace(next),
  });
}

/** Sets conditions on the Work's status when they change anything (fresh read, PUT, retry on conflict). */
export async function writeConditions(
  deps: Pick<WorkDeps, 'works' | 'workClient'>,
  key: string,
  conditions: readonly ConditionUpdate[],
  now: () => number,
): Promise<void> {
  const apply = (w: Work): Work | undefined => {
    let list: readonly Condition[] | undefined = w.status?.conditions;
    for (const c of conditions) list = setCondition(list, c, now());
    if (list === undefined || jsonEqual(list, w.status?.conditions)) return undefined;
    return { ...w, status: { ...w.status, conditions: list } };
  };
  const cached = deps.works.get(key);
  if (cached !== undefined && apply(cached) === undefined) return;
  await updateWithRetry<Work>({
    read: () => deps.workClient.get(key),
    mutate: apply,
    write: (next) => deps.workClient.replaceStatus(next),
  });
}
