/**
 * binding-status: reports where a binding's Works stand. Rebuilds
 * `status.aggregatedStatus` and the `FullyApplied` condition from the Works' status as the
 * agent writes it, then folds the clusters' status back into the template (Deployments:
 * replica counts summed, observedGeneration).
 * A kind with an AggregateStatus script (a ResourceInterpreterCustomization) has its template
 * status from that script (see template-status.ts); whether it works is the binding's
 * `StatusAggregated` condition, a failure retried with backoff.
 * Watches bindings, Works (→ their binding, by annotation) and customizations (→ the bindings of
 * their kinds). Writes binding status and the template's status subresource, each only when it
 * changed; events AggregateStatusSucceed / AggregateStatusFailed on a change of FullyApplied.
 */
import {
  findCondition,
  isSameJson,
  setCondition,
  type AggregatedStatusItem,
  type ResourceBinding,
  type Work,
} from '@kf/api';
import type { ResourceInterpreter } from '@kf/interpreter';
import {
  OwnWrites,
  isNotFound,
  joinKey,
  updateWithRetry,
  type EventRecorder,
  type WatchCache,
} from '@kf/kube';
import { converged, keysFrom, type ControllerSpec, type ReconcileContext } from '@kf/runtime';
import {
  allBindings,
  bindingClient,
  bindingKeyOfWork,
  changedOutsideStatus,
  getBinding,
  worksByBinding,
  worksOfBinding,
  type BindingStore,
  recordOnBinding,
} from '../../bindings.ts';
import { bindingsOfChangedKinds, currentInterpreter, type InterpreterFeed } from '../interpreter/feed.ts';
import { reportScriptOutcome, scriptFailure } from '../interpreter/report.ts';
import type { ScriptOutcome } from '../interpreter/script-condition.ts';
import type { TemplateCaches } from '../template-caches.ts';
import type { ResourceTemplate } from '../template.ts';
import { withoutKeys } from '../defined-fields.ts';
import { aggregate, type Aggregation } from './aggregate.ts';
import { aggregatesStatus, templateStatus } from './template-status.ts';
import { WORKLOAD_WORKERS } from '../workers.ts';

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

function readChanged(b: ResourceBinding, old: ResourceBinding): boolean {
  return changedOutsideStatus(b, old) || b.status?.lastScheduledTime !== old.status?.lastScheduledTime;
}

export function bindingStatusController(deps: BindingStatusDeps): ControllerSpec {
  const worksOf = worksByBinding(deps.works);
  const own = new OwnWrites();
  return {
    name: 'binding-status',
    workers: WORKLOAD_WORKERS,
    sources: [
      keysFrom(allBindings(deps.bindings), scheduledBinding, {
        changed: readChanged,
        isEcho: (b) => own.isEcho(b),
      }),
      keysFrom(deps.works, (w) => {
        const key = bindingKeyOfWork(w);
        return key === undefined ? [] : [key];
      }),
      bindingsOfChangedKinds(deps.bindings, deps.interpreter),
    ],
    async reconcile(key, { log, now, signal }) {
      const b = getBinding(deps.bindings, key);
      if (b === undefined || b.metadata.deletionTimestamp !== undefined) return converged();
      const works = worksOfBinding(worksOf, b, key);
      // Upstream starts aggregating once the binding was scheduled.
      if (b.status?.lastScheduledTime === undefined && works.length === 0) return converged();
      const aggregation = aggregate(b, works);
      const latest = await writeBindingStatus(deps, { key, b, aggregation }, { log, now, signal });
      if (latest !== b) own.wrote(latest);
      const interpreter = currentInterpreter(deps.interpreter);
      const outcome = await reflectIntoTemplate(deps, b, aggregation.items, { interpreter, signal });
      if (outcome === undefined) return converged();
      await reportScriptOutcome(
        deps,
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
  target: { readonly key: string; readonly b: ResourceBinding; readonly aggregation: Aggregation },
  ctx: Pick<ReconcileContext, 'log' | 'now' | 'signal'>,
): Promise<ResourceBinding> {
  const { key, b } = target;
  const { items, fullyApplied } = target.aggregation;
  const conditions = setCondition(b.status?.conditions, fullyApplied, ctx.now());
  if (isSameJson(b.status?.aggregatedStatus, items) && isSameJson(b.status?.conditions, conditions)) return b;
  // Guarded by resourceVersion: the scheduler writes Scheduled into the same conditions list,
  // which a merge patch replaces whole; a stale copy must conflict, not drop it.
  const patch = {
    metadata: { resourceVersion: b.metadata.resourceVersion },
    status: { aggregatedStatus: items, conditions },
  };
  const written = await bindingClient(deps.bindings, key).patchStatus(key, patch, { signal: ctx.signal });
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
 * Re-reads the template from the API server (its status must not be computed from a stale copy)
 * and writes the status its clusters add up to. Returns what the AggregateStatus script came to
 * (`none`: the kind has no script), or undefined when the template was not looked at.
 */
async function reflectIntoTemplate(
  deps: BindingStatusDeps,
  b: ResourceBinding,
  items: readonly AggregatedStatusItem[],
  ctx: { readonly interpreter: ResourceInterpreter | undefined; readonly signal: AbortSignal },
): Promise<ScriptOutcome<unknown> | undefined> {
  const { interpreter, signal } = ctx;
  const r = b.spec.resource;
  if (!aggregatesStatus(r.apiVersion, r.kind, interpreter)) return { kind: 'none' };
  const client = deps.templates.client(r.apiVersion, r.kind);
  const key = joinKey(r.namespace, r.name);
  if (client === undefined || deps.templates.get(r.apiVersion, r.kind, key) === undefined) return undefined;
  let outcome: ScriptOutcome<unknown> | undefined;
  try {
    await updateWithRetry<ResourceTemplate>({
      read: () => client.get(key, { signal }),
      mutate: (current) => {
        if (r.uid !== undefined && current.metadata.uid !== r.uid) return undefined;
        const folded = templateStatus(current, items, interpreter);
        outcome =
          folded.kind === 'failed'
            ? folded
            : folded.kind === 'status' && folded.scripted
              ? { kind: 'succeeded', value: undefined }
              : { kind: 'none' };
        if (folded.kind !== 'status' || isSameJson(current.status, folded.status)) return undefined;
        // No status from the script: the template's goes, as upstream writes what it returned.
        const rest = { ...withoutKeys(current, ['status']), metadata: current.metadata };
        return folded.status === undefined ? rest : { ...rest, status: folded.status };
      },
      write: (next) => client.replaceStatus(next, { signal }),
    });
  } catch (err: unknown) {
    if (!isNotFound(err)) throw err; // the template is gone: nothing to report into
  }
  return outcome;
}
