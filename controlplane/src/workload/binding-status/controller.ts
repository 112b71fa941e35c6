/**
 * binding-status: reports where a binding's Works stand. Rebuilds
 * `status.aggregatedStatus` and the `FullyApplied` condition from the Works' status as the
 * agent writes it, then folds the clusters' status back into the template (Deployments:
 * replica counts summed, observedGeneration).
 * A kind with an AggregateStatus script (a ResourceInterpreterCustomization) has its template
 * status from that script (see template-status.ts); whether it works is the binding's
 * `StatusAggregated` condition, a failure retried with backoff.
 * Watches bindings, Works (→ their binding, by annotation), templates (→ their binding, by name)
 * and customizations (→ the bindings of their kinds). Writes binding status and the template's
 * status subresource, each only when it changed; events AggregateStatusSucceed /
 * AggregateStatusFailed on a change of FullyApplied.
 */
import {
  bindingConditionTypes,
  findCondition,
  isSameJson,
  setCondition,
  type AggregatedStatusItem,
  type ResourceBinding,
  type Work,
} from '@kf/api';
import type { ResourceInterpreter } from '@kf/interpreter';
import { isNotFound, joinKey, updateWithRetry, type EventRecorder, type WatchCache } from '@kf/kube';
import {
  converged,
  keysFrom,
  type ControllerSpec,
  type ObjectEventType,
  type ReconcileContext,
} from '@kf/runtime';
import {
  allBindings,
  bindingKeyOfWork,
  changedOutsideStatus,
  getBinding,
  worksByBinding,
  worksOfBinding,
  ownBindingWrites,
  recordOnBinding,
  type BindingStore,
  type OwnBindingWrites,
} from '../../bindings.ts';
import { bindingsOfChangedKinds, currentInterpreter, type InterpreterFeed } from '../interpreter/feed.ts';
import { reportScriptOutcome, scriptFailure } from '../interpreter/report.ts';
import type { ScriptOutcome } from '../interpreter/script-condition.ts';
import { ownTemplateWrites, type OwnTemplateWrites, type TemplateCaches } from '../template-caches.ts';
import type { ResourceTemplate } from '../template.ts';
import { withoutKeys } from '../defined-fields.ts';
import { aggregate, readyToAggregate, type Aggregation } from './aggregate.ts';
import { aggregatesStatus, templateStatus } from './template-status.ts';
import { WORKLOAD_WORKERS } from '../workers.ts';
import { bindingNameFor } from '../../names.ts';

export interface BindingStatusDeps {
  readonly bindings: BindingStore;
  readonly works: WatchCache<Work>;
  readonly templates: TemplateCaches;
  readonly events: EventRecorder;
  /** The customizations' scripts (AggregateStatus). */
  readonly interpreter: InterpreterFeed;
}

/**
 * A binding counts once it was scheduled (a binding with Works is brought by them). Of its status
 * the controller reads when it was scheduled; the rest is its own output, and its own writes of it
 * do not wake it.
 */
function scheduledBinding(b: ResourceBinding): readonly string[] {
  return b.status?.lastScheduledTime === undefined
    ? []
    : [joinKey(b.metadata.namespace, b.metadata.name ?? '')];
}

/** The binding a template is propagated by (named after it, in its namespace). */
function bindingOfTemplate(t: ResourceTemplate): readonly string[] {
  return [joinKey(t.metadata.namespace, bindingNameFor(t.kind ?? '', t.metadata.name ?? ''))];
}

function readChanged(b: ResourceBinding, old: ResourceBinding): boolean {
  return changedOutsideStatus(b, old) || b.status?.lastScheduledTime !== old.status?.lastScheduledTime;
}

/** A Work made with a status already (seen again after a relist) wakes; a new one does not. */
export function workWakes(type: ObjectEventType, w: Work): boolean {
  return type !== 'ADDED' || w.status !== undefined;
}

/** What the aggregation reads of a Work besides its binding: its status, and whether it goes. */
export function workChanged(w: Work, old: Work): boolean {
  return (
    (w.metadata.deletionTimestamp === undefined) !== (old.metadata.deletionTimestamp === undefined) ||
    !isSameJson(w.status, old.status)
  );
}

/** The controller's own writes, whose events do not wake it again. */
interface StatusWrites {
  readonly bindings: OwnBindingWrites;
  readonly templates: OwnTemplateWrites;
}

export function bindingStatusController(deps: BindingStatusDeps): ControllerSpec {
  const worksOf = worksByBinding(deps.works);
  const writes: StatusWrites = {
    bindings: ownBindingWrites(deps.bindings),
    templates: ownTemplateWrites(deps.templates),
  };
  return {
    name: 'binding-status',
    workers: WORKLOAD_WORKERS,
    sources: [
      keysFrom(allBindings(deps.bindings), scheduledBinding, {
        changed: readChanged,
        ownWrites: writes.bindings.record,
      }),
      // As upstream: a Work wakes its binding when its status changes or it goes (being deleted
      // or gone), not when it is made or its manifests change. A new Work has nothing to report
      // until the member applies it; waking on each Work the binding controller creates cost a
      // reconcile, and often a status write, per Work.
      keysFrom(
        deps.works,
        (w) => {
          const key = bindingKeyOfWork(w);
          return key === undefined ? [] : [key];
        },
        { wakes: workWakes, changed: workChanged },
      ),
      // The template's status is checked against the cached template (see reflectIntoTemplate):
      // a change of its status or generation (what the fold reads besides the Works), by anyone
      // but this controller, is looked at again. Other changes (the detector's claim on it) not,
      // nor a new template: its binding comes after it (or, for a template made again under the
      // same name, is updated for it by the detector), and that wakes the controller.
      keysFrom(deps.templates, bindingOfTemplate, {
        wakes: (type) => type !== 'ADDED',
        changed: (t, old) =>
          t.metadata.generation !== old.metadata.generation || !isSameJson(t.status, old.status),
        ownWrites: writes.templates.record,
        listsKeys: false,
      }),
      bindingsOfChangedKinds(deps.bindings, deps.interpreter),
    ],
    async reconcile(key, { log, now, signal }) {
      const b = getBinding(deps.bindings, key);
      if (b === undefined || b.metadata.deletionTimestamp !== undefined) return converged();
      const works = worksOfBinding(worksOf, b, key);
      if (!readyToAggregate(b, works)) return converged();
      const aggregation = aggregate(b, works);
      const latest = await writeBindingStatus(
        deps,
        writes.bindings,
        { key, b, aggregation },
        { log, now, signal },
      );
      const interpreter = currentInterpreter(deps.interpreter);
      const outcome = await reflectIntoTemplate(deps, b, aggregation.items, {
        interpreter,
        signal,
        writes: writes.templates,
      });
      if (outcome === undefined) return converged();
      await reportScriptOutcome(
        { writes: writes.bindings, events: deps.events },
        { key, b: latest },
        { step: 'AggregateStatus', outcome },
        { nowMs: now(), signal },
      );
      const failure = scriptFailure('AggregateStatus', outcome);
      if (failure !== undefined) throw failure;
      return converged();
    },
  };
}

/**
 * Patches aggregatedStatus and FullyApplied when they changed; an Event when FullyApplied flips.
 * Returns the binding as written (as given when nothing changed).
 */
async function writeBindingStatus(
  deps: BindingStatusDeps,
  writes: OwnBindingWrites,
  target: { readonly key: string; readonly b: ResourceBinding; readonly aggregation: Aggregation },
  ctx: Pick<ReconcileContext, 'log' | 'now' | 'signal'>,
): Promise<ResourceBinding> {
  const { key, b } = target;
  const { items, fullyApplied } = target.aggregation;
  const conditions = setCondition(b.status?.conditions, fullyApplied, ctx.now());
  if (nothingToWrite(b, items, conditions)) return b;
  // Guarded by resourceVersion: the scheduler writes Scheduled into the same conditions list,
  // which a merge patch replaces whole; a stale copy must conflict, not drop it.
  const patch = {
    metadata: { resourceVersion: b.metadata.resourceVersion },
    status: { aggregatedStatus: items, conditions },
  };
  const written = await writes.client(key).patchStatus(key, patch, { signal: ctx.signal });
  if (findCondition(b.status?.conditions, fullyApplied.type)?.status === fullyApplied.status) return written;
  const ok = fullyApplied.status === 'True';
  recordOnBinding(deps.events, b, {
    type: ok ? 'Normal' : 'Warning',
    reason: ok ? 'AggregateStatusSucceed' : 'AggregateStatusFailed',
    message: ok ? 'Update resourceBinding status successfully.' : fullyApplied.message,
  });
  ctx.log.info({ fullyApplied: fullyApplied.status }, 'binding status aggregated');
  return written;
}

/**
 * The binding shows this status already, or there is nothing to report yet (no Work has
 * reported, none ever did): as upstream, the first status comes with the first Work's, rather
 * than an empty one written for every new binding.
 */
function nothingToWrite(
  b: ResourceBinding,
  items: readonly AggregatedStatusItem[],
  conditions: readonly unknown[],
): boolean {
  if (items.length === 0 && neverReported(b)) return true;
  return isSameJson(b.status?.aggregatedStatus, items) && isSameJson(b.status?.conditions, conditions);
}

export function neverReported(b: ResourceBinding): boolean {
  return (
    (b.status?.aggregatedStatus ?? []).length === 0 &&
    findCondition(b.status?.conditions, bindingConditionTypes.fullyApplied) === undefined
  );
}

/**
 * Writes the status the template's clusters add up to, when the cached template shows another.
 * Most reconciles (a binding moved, a Work of it changed) find the template's status already as
 * it adds up: one read of the API server each, in a mass failover several per binding moved,
 * for nothing. A cached copy that lags is no risk: its change wakes this controller again (the
 * templates are a source). A write starts from a fresh read (its status must not be computed from
 * a stale copy, nor a stale copy's metadata written back). Returns what the AggregateStatus script
 * came to (`none`: the kind has no script), or undefined when the template was not looked at.
 */
async function reflectIntoTemplate(
  deps: BindingStatusDeps,
  b: ResourceBinding,
  items: readonly AggregatedStatusItem[],
  ctx: {
    readonly interpreter: ResourceInterpreter | undefined;
    readonly signal: AbortSignal;
    readonly writes: OwnTemplateWrites;
  },
): Promise<ScriptOutcome<unknown> | undefined> {
  const { interpreter, signal } = ctx;
  const r = b.spec.resource;
  if (!aggregatesStatus(r.apiVersion, r.kind, interpreter)) return { kind: 'none' };
  const client = ctx.writes.client(r.apiVersion, r.kind);
  const key = joinKey(r.namespace, r.name);
  const cached = deps.templates.get(r.apiVersion, r.kind, key);
  if (client === undefined || cached === undefined) return undefined;
  const planned = foldedTemplate(cached, items, interpreter, r.uid);
  if (planned.next === undefined) return planned.outcome;
  let outcome: ScriptOutcome<unknown> | undefined;
  try {
    await updateWithRetry<ResourceTemplate>({
      read: () => client.get(key, { signal }),
      mutate: (current) => {
        const folded = foldedTemplate(current, items, interpreter, r.uid);
        outcome = folded.outcome;
        return folded.next;
      },
      write: (next) => client.replaceStatus(next, { signal }),
    });
  } catch (err: unknown) {
    if (!isNotFound(err)) throw err; // the template is gone: nothing to report into
  }
  return outcome;
}

/**
 * The template with the status its clusters add up to (`next`; undefined when it has that status
 * already, or is another object of the same name), and what the AggregateStatus script came to.
 */
function foldedTemplate(
  current: ResourceTemplate,
  items: readonly AggregatedStatusItem[],
  interpreter: ResourceInterpreter | undefined,
  uid: string | undefined,
): { readonly next: ResourceTemplate | undefined; readonly outcome: ScriptOutcome<unknown> | undefined } {
  if (uid !== undefined && current.metadata.uid !== uid) return { next: undefined, outcome: undefined };
  const folded = templateStatus(current, items, interpreter);
  const outcome: ScriptOutcome<unknown> =
    folded.kind === 'failed'
      ? folded
      : folded.kind === 'status' && folded.scripted
        ? { kind: 'succeeded', value: undefined }
        : { kind: 'none' };
  if (folded.kind !== 'status' || isSameJson(current.status, folded.status))
    return { next: undefined, outcome };
  // No status from the script: the template's goes, as upstream writes what it returned.
  const rest = { ...withoutKeys(current, ['status']), metadata: current.metadata };
  return { next: folded.status === undefined ? rest : { ...rest, status: folded.status }, outcome };
}
