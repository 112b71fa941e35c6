/**
 * binding-status: reports where a binding's Works stand. Rebuilds
 * `status.aggregatedStatus` and the `FullyApplied` condition from the Works' status as the
 * agent writes it, then folds the clusters' status back into the template (Deployments:
 * replica counts summed, observedGeneration).
 * Watches bindings and Works (→ their binding, by annotation). Writes binding status and the
 * template's status subresource, each only when it changed; events AggregateStatusSucceed /
 * AggregateStatusFailed on a change of FullyApplied.
 */
import { findCondition, isSameJson, setCondition, type ResourceBinding, type Work } from '@kf/api';
import { isNotFound, joinKey, updateWithRetry, type EventRecorder, type WatchCache } from '@kf/kube';
import { converged, keysFrom, type ControllerSpec, type ReconcileContext } from '@kf/runtime';
import {
  allBindings,
  bindingClient,
  bindingKeyOfWork,
  getBinding,
  worksOfBinding,
  type BindingStore,
  recordOnBinding,
} from '../../bindings.ts';
import type { TemplateCaches } from '../template-caches.ts';
import type { ResourceTemplate } from '../template.ts';
import { aggregate, type Aggregation } from './aggregate.ts';
import { aggregateDeploymentStatus } from './deployment-status.ts';
import { WORKLOAD_WORKERS } from '../workers.ts';

export interface BindingStatusDeps {
  readonly bindings: BindingStore;
  readonly works: WatchCache<Work>;
  readonly templates: TemplateCaches;
  readonly events: EventRecorder;
}

export function bindingStatusController(deps: BindingStatusDeps): ControllerSpec {
  return {
    name: 'binding-status',
    workers: WORKLOAD_WORKERS,
    sources: [
      keysFrom(allBindings(deps.bindings), (b) => [joinKey(b.metadata.namespace, b.metadata.name ?? '')]),
      keysFrom(deps.works, (w) => {
        const key = bindingKeyOfWork(w);
        return key === undefined ? [] : [key];
      }),
    ],
    async reconcile(key, { log, now, signal }) {
      const b = getBinding(deps.bindings, key);
      if (b === undefined || b.metadata.deletionTimestamp !== undefined) return converged();
      const works = worksOfBinding(deps.works.list(), b, key);
      // Upstream starts aggregating once the binding was scheduled.
      if (b.status?.lastScheduledTime === undefined && works.length === 0) return converged();
      const aggregation = aggregate(b, works);
      await writeBindingStatus(deps, { key, b, aggregation }, { log, now, signal });
      await reflectIntoTemplate(deps, b, aggregation.items, signal);
      return converged();
    },
  };
}

/** Patches aggregatedStatus and FullyApplied when they changed; an Event when FullyApplied flips. */
async function writeBindingStatus(
  deps: BindingStatusDeps,
  target: { readonly key: string; readonly b: ResourceBinding; readonly aggregation: Aggregation },
  ctx: Pick<ReconcileContext, 'log' | 'now' | 'signal'>,
): Promise<void> {
  const { key, b } = target;
  const { items, fullyApplied } = target.aggregation;
  const conditions = setCondition(b.status?.conditions, fullyApplied, ctx.now());
  if (isSameJson(b.status?.aggregatedStatus, items) && isSameJson(b.status?.conditions, conditions)) return;
  // Guarded by resourceVersion: the scheduler writes Scheduled into the same conditions list,
  // which a merge patch replaces whole; a stale copy must conflict, not drop it.
  const patch = {
    metadata: { resourceVersion: b.metadata.resourceVersion },
    status: { aggregatedStatus: items, conditions },
  };
  await bindingClient(deps.bindings, key).patchStatus(key, patch, { signal: ctx.signal });
  if (findCondition(b.status?.conditions, fullyApplied.type)?.status === fullyApplied.status) return;
  const ok = fullyApplied.status === 'True';
  recordOnBinding(deps.events, b, {
    type: ok ? 'Normal' : 'Warning',
    reason: ok ? 'AggregateStatusSucceed' : 'AggregateStatusFailed',
    message: ok ? 'Update resourceBinding status successfully.' : fullyApplied.message,
  });
  ctx.log.info({ fullyApplied: fullyApplied.status }, 'binding status aggregated');
}

/** Kinds whose template status is computed from the clusters' status. */
function statusAggregatorOf(
  b: ResourceBinding,
): ((t: ResourceTemplate, items: Parameters<typeof aggregateDeploymentStatus>[1]) => object) | undefined {
  const r = b.spec.resource;
  return r.apiVersion === 'apps/v1' && r.kind === 'Deployment' ? aggregateDeploymentStatus : undefined;
}

/** Re-reads the template from the API server (its status must not be computed from a stale copy). */
async function reflectIntoTemplate(
  deps: BindingStatusDeps,
  b: ResourceBinding,
  items: Parameters<typeof aggregateDeploymentStatus>[1],
  signal: AbortSignal,
): Promise<void> {
  const fold = statusAggregatorOf(b);
  const r = b.spec.resource;
  const client = deps.templates.client(r.apiVersion, r.kind);
  if (fold === undefined || client === undefined) return;
  const key = joinKey(r.namespace, r.name);
  if (deps.templates.get(r.apiVersion, r.kind, key) === undefined) return;
  try {
    await updateWithRetry<ResourceTemplate>({
      read: () => client.get(key, { signal }),
      mutate: (current) => {
        if (r.uid !== undefined && current.metadata.uid !== r.uid) return undefined;
        const status = fold(current, items);
        return isSameJson(current.status, status)
          ? undefined
          : { ...current, status: status as ResourceTemplate['status'] & object };
      },
      write: (next) => client.replaceStatus(next, { signal }),
    });
  } catch (err: unknown) {
    if (!isNotFound(err)) throw err; // the template is gone: nothing to report into
  }
}
