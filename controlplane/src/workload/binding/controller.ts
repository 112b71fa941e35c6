/**
 * binding: keeps one Work per target cluster for every binding. Deletes orphan Works
 * (clusters left without a non-Directly eviction task), holds the new placement back while a
 * `Directly` purge still has a Work, and creates or updates the Work of each target cluster.
 * A Work whose copies its agent fenced (`Fenced=True`) on a cluster still targeted is deleted, so
 * that it is made afresh (the agent never applies a fenced Work again).
 * A deleting binding has its Works deleted, then its finalizer removed.
 * Watches bindings, Works (→ their binding, by annotation) and templates (→ their binding), so
 * template edits reach the Works even when the binding itself did not change, and customizations
 * (→ the bindings of their kinds): a kind with a ReviseReplica script has each cluster's manifest
 * revised by it (see cluster-works.ts; `ReplicasRevised` condition, failures retried).
 * Requeues: every {@link DIRECT_PURGE_RECHECK_MS} while a Directly purge is pending; errors
 * with backoff.
 *
 * With gate StatefulFailoverInjection: before any Work of an evicted cluster is deleted, eviction
 * tasks left without preserved state (the taint manager's) get it from that cluster's aggregated
 * status (one write to `spec.gracefulEvictionTasks`), and the state of the last `Directly` task
 * is injected as labels into the workload of a single target cluster.
 */
import { finalizers, isSameJson, type ResourceBinding, type Work } from '@kf/api';
import {
  isConflict,
  isNotFound,
  joinKey,
  keyOf,
  type EventRecorder,
  type ResourceClient,
  type WatchCache,
} from '@kf/kube';
import {
  converged,
  keysFrom,
  mapConcurrently,
  recheckIn,
  type ControllerSpec,
  type Logger,
} from '@kf/runtime';
import { warnUnlessConflict } from '../../write-warnings.ts';
import {
  allBindings,
  bindingClient,
  plainBindingWrites,
  bindingKeyOfWork,
  getBinding,
  isClusterBindingKey,
  worksByBinding,
  worksOfBinding,
  type BindingStore,
  recordOnBinding,
} from '../../bindings.ts';
import { templateSource } from '../resource-detector/controller.ts';
import type { TemplateCaches } from '../template-caches.ts';
import type { ResourceTemplate } from '../template.ts';
import { planStateCapture } from '../../state-preservation/preserved-state.ts';
import { bindingsOfChangedKinds, currentInterpreter, type InterpreterFeed } from '../interpreter/feed.ts';
import { reportScriptOutcome, scriptFailure } from '../interpreter/report.ts';
import { assertNotCompact } from '../../cached-forms.ts';
import { clusterWorks } from './cluster-works.ts';
import { WrittenWorks } from './written-works.ts';
import {
  clusterOfWork,
  expectedClusters,
  fencedWorks,
  orphanWorks,
  pendingDirectPurges,
  planWorkWrite,
  type WorkWrite,
} from './work-plan.ts';
import { WORKLOAD_WORKERS } from '../workers.ts';

/** Event reason when a Work whose copies were fenced is deleted to be made again. */
export const FENCED_WORK_RECREATED = 'FencedWorkRecreated';

/** Upstream's requeue while the Works of a Directly purge are still being removed. */
export const DIRECT_PURGE_RECHECK_MS = 5_000;

/**
 * Work writes one binding sends at once. Bounded so that a binding placed on every one of hundreds
 * of clusters does not, alone, take the API server's whole concurrency away from the other workers.
 */
const WORK_WRITES_IN_FLIGHT = 8;

export interface BindingControllerDeps {
  readonly bindings: BindingStore;
  readonly works: WatchCache<Work>;
  readonly workClient: ResourceClient<Work>;
  readonly templates: TemplateCaches;
  readonly events: EventRecorder;
  /** Gate StatefulFailoverInjection (default off). */
  readonly statefulFailoverInjection?: boolean;
  /** The customizations' scripts (ReviseReplica). */
  readonly interpreter: InterpreterFeed;
}

interface Ctx {
  readonly log: Logger;
  readonly signal: AbortSignal;
}

/**
 * What the binding controller reads of a binding: all but its status, and the aggregated status
 * when it preserves the state of evicted clusters. The scheduler's and the status controller's
 * status writes (three or more per binding placed) then do not wake it.
 */
function bindingReadChanged(b: ResourceBinding, old: ResourceBinding, preservesState: boolean): boolean {
  return (
    !isSameJson(
      { ...b, status: undefined, metadata: { ...b.metadata, resourceVersion: undefined } },
      {
        ...old,
        status: undefined,
        metadata: { ...old.metadata, resourceVersion: undefined },
      },
    ) ||
    (preservesState && !isSameJson(b.status?.aggregatedStatus, old.status?.aggregatedStatus))
  );
}

/**
 * The bindings the controller has something to do for: those with a cluster that may keep a Work
 * (placed, required by a dependant's placement, or keeping a copy through an eviction) and those
 * being deleted. A binding leaving its last cluster still counts, as the old copy of its
 * modification does.
 */
function withClustersOrDeleting(b: ResourceBinding): readonly string[] {
  const some = expectedClusters(b).size > 0 || b.metadata.deletionTimestamp !== undefined;
  return some ? [joinKey(b.metadata.namespace, b.metadata.name ?? '')] : [];
}

export function bindingController(deps: BindingControllerDeps): ControllerSpec {
  // Its own Work writes: held back until the cache shows them, and their events do not wake it.
  const written = new WrittenWorks();
  const worksOf = worksByBinding(deps.works);
  deps.works.onEvent((type, w) => {
    written.observed(keyOf(w), type === 'DELETED' ? undefined : w.metadata.resourceVersion);
  });
  return {
    name: 'binding',
    workers: WORKLOAD_WORKERS,
    sources: [
      keysFrom(allBindings(deps.bindings), withClustersOrDeleting, {
        changed: (b, old) => bindingReadChanged(b, old, deps.statefulFailoverInjection === true),
      }),
      keysFrom(
        deps.works,
        (w) => {
          const key = bindingKeyOfWork(w);
          return key === undefined ? [] : [key];
        },
        {
          ownWrites: {
            isEcho: (w) => written.isEcho({ key: keyOf(w), resourceVersion: w.metadata.resourceVersion }),
          },
        },
      ),
      // A template whose binding is not there yet has nothing to sync: the binding's addition
      // brings the key.
      templateSource(deps.templates, { onlyKeys: (key) => getBinding(deps.bindings, key) !== undefined }),
      bindingsOfChangedKinds(deps.bindings, deps.interpreter),
    ],
    async reconcile(key, { log, signal, now }) {
      const b = getBinding(deps.bindings, key);
      if (b === undefined) return converged();
      const works = worksOfBinding(worksOf, b, key);
      if (b.metadata.deletionTimestamp !== undefined) {
        await removeBinding(deps, { key, b, works }, { log, signal });
        return converged();
      }
      if (deps.statefulFailoverInjection === true && (await captureState(deps, key, b, { log, signal }))) {
        return converged(); // the binding update brings the key back
      }
      for (const w of orphanWorks(b, works)) await deleteWork(deps, w, { log, signal }, b);
      for (const w of fencedWorks(b, works)) {
        recordOnBinding(deps.events, b, {
          type: 'Normal',
          reason: FENCED_WORK_RECREATED,
          message: `The agent of cluster ${clusterOfWork(w) ?? ''} fenced the copies of Work ${keyOf(w)} (no Lease renewal for its fence timeout); the cluster is still a target, so the Work is made afresh.`,
        });
        await deleteWork(deps, w, { log, signal }, b);
      }
      const purging = pendingDirectPurges(b, works);
      if (purging.length > 0) {
        log.debug({ clusters: purging }, 'waiting for Directly purged Works to disappear');
        return recheckIn(DIRECT_PURGE_RECHECK_MS);
      }
      const r = b.spec.resource;
      const template = deps.templates.get(r.apiVersion, r.kind, joinKey(r.namespace, r.name));
      if (template === undefined) return converged(); // gone: the detector removes the binding
      return syncWorks(deps, { key, b, template, works }, { log, signal, written, nowMs: now() });
    },
  };
}

interface Target {
  readonly key: string;
  readonly b: ResourceBinding;
  readonly works: readonly Work[];
}

interface SyncCtx extends Ctx {
  /** Works just written: left alone until the cache shows the write, their echoes ignored. */
  readonly written: WrittenWorks;
  readonly nowMs: number;
}

/** What syncing one Work did: wrote it, had nothing to do, waits, or is held back for `heldMs`. */
type WorkSync =
  | { readonly kind: 'written' | 'unchanged' | 'waitForDeletion' }
  | { readonly kind: 'held'; readonly heldMs: number }
  | { readonly kind: 'failed'; readonly err: unknown };

async function syncWork(
  deps: BindingControllerDeps,
  wanted: Work,
  existing: Work | undefined,
  ctx: SyncCtx,
): Promise<WorkSync> {
  const workKey = keyOf(wanted);
  const heldMs = ctx.written.heldForMs(workKey, ctx.nowMs);
  if (heldMs > 0) return { kind: 'held', heldMs }; // the write's event wakes the binding
  const plan = planWorkWrite(wanted, existing);
  if (plan === undefined) return { kind: 'unchanged' };
  if (plan.kind === 'WaitForDeletion') return { kind: 'waitForDeletion' };
  try {
    const answered = await writeWork(deps.workClient, plan, ctx.signal);
    ctx.written.wrote(
      workKey,
      existing?.metadata.resourceVersion,
      answered?.metadata.resourceVersion,
      ctx.nowMs,
    );
    return { kind: 'written' };
  } catch (err: unknown) {
    return { kind: 'failed', err };
  }
}

/** Creates or updates the Work of every target cluster; failures do not stop the others. */
async function syncWorks(
  deps: BindingControllerDeps,
  target: Target & { readonly template: ResourceTemplate },
  ctx: SyncCtx,
): ReturnType<ControllerSpec['reconcile']> {
  const { key, b, template } = target;
  const byKey = new Map(target.works.map((w) => [keyOf(w), w]));
  const failures: WorkFailure[] = [];
  let written = 0;
  let recheckMs: number | undefined;
  const planned = clusterWorks(
    { key, b, template, statefulFailoverInjection: deps.statefulFailoverInjection === true },
    currentInterpreter(deps.interpreter),
  );
  // The Works of a binding are independent writes: sent together, a binding on two clusters costs
  // one round trip of the API server rather than two.
  const results = await mapConcurrently(planned.works, WORK_WRITES_IN_FLIGHT, async ({ cluster, work }) => ({
    cluster,
    result: await syncWork(deps, work, byKey.get(keyOf(work)) ?? deps.works.get(keyOf(work)), ctx),
  }));
  for (const { cluster, result } of results) {
    if (result.kind === 'written') written++;
    if (result.kind === 'failed') {
      ctx.log.warn({ err: result.err, cluster }, 'could not write Work');
      failures.push({ cluster, err: result.err });
    }
    const again = recheckAfterMs(result);
    if (again !== undefined) recheckMs = Math.min(recheckMs ?? again, again);
  }
  await reportScriptOutcome(
    { writes: plainBindingWrites(deps.bindings), events: deps.events },
    { key, b },
    { step: 'ReviseReplica', outcome: planned.revise },
    { nowMs: ctx.nowMs, signal: ctx.signal },
  );
  reportSync(deps, target, failures, written);
  if (written > 0) ctx.log.info({ written }, 'Works synced');
  const scriptError = scriptFailure('ReviseReplica', planned.revise);
  if (scriptError !== undefined) throw scriptError;
  return recheckMs === undefined ? converged() : recheckIn(recheckMs);
}

/**
 * When to look at a binding again for one of its Works: a Work still deleting is recreated once it
 * is gone; a held one is looked at again once the cache shows the write (its event brings the
 * binding back) or at the latest when it is let go.
 */
function recheckAfterMs(result: WorkSync): number | undefined {
  if (result.kind === 'waitForDeletion') return DIRECT_PURGE_RECHECK_MS;
  return result.kind === 'held' ? result.heldMs : undefined;
}

/**
 * Writes the state of evicted clusters into their tasks while their status is still collected.
 * True when the binding was written.
 */
async function captureState(
  deps: BindingControllerDeps,
  key: string,
  b: ResourceBinding,
  ctx: Ctx,
): Promise<boolean> {
  const plan = planStateCapture(b.spec, b.status?.aggregatedStatus);
  for (const { cluster, problem } of plan.problems) {
    // Debug: a Directly purge's status disappears with its Work, and this runs on every sync.
    ctx.log.debug({ cluster, problem }, 'state of an evicted cluster cannot be preserved');
  }
  if (plan.tasks === undefined) return false;
  await bindingClient(deps.bindings, key).mergePatch(
    key,
    {
      metadata: { resourceVersion: b.metadata.resourceVersion },
      spec: { gracefulEvictionTasks: plan.tasks },
    },
    { signal: ctx.signal },
  );
  ctx.log.info({}, 'state of evicted clusters preserved');
  return true;
}

/** Sends one planned Work write (create, merge patch, or guarded update); the Work as written. */
export async function writeWork(
  workClient: ResourceClient<Work>,
  plan: WorkWrite,
  signal: AbortSignal,
): Promise<Work | undefined> {
  if (plan.kind === 'Create' || plan.kind === 'Update') assertNotCompact(plan.work);
  if (plan.kind === 'Create') return workClient.create(plan.work, { signal });
  if (plan.kind === 'Patch') return workClient.mergePatch(keyOf(plan.work), plan.patch, { signal });
  if (plan.kind === 'Update') return workClient.replace(plan.work, { signal });
  return undefined;
}

interface WorkFailure {
  readonly cluster: string;
  readonly err: unknown;
}

/**
 * A retry when any cluster failed, with SyncWorkFailed naming the failures other than conflicts;
 * SyncWorkSucceed when something was written.
 */
function reportSync(
  deps: BindingControllerDeps,
  target: Target,
  failures: readonly WorkFailure[],
  written: number,
): void {
  const { key, b } = target;
  const what = `${isClusterBindingKey(key) ? 'ClusterResourceBinding' : 'ResourceBinding'}(${key})`;
  if (failures.length > 0) {
    // A lost race is retried without a Warning (see write-warnings.ts).
    const warned = failures
      .filter(({ err }) => !isConflict(err))
      .map(({ cluster, err }) => `${cluster}: ${err instanceof Error ? err.message : String(err)}`);
    if (warned.length > 0) {
      recordOnBinding(deps.events, b, {
        type: 'Warning',
        reason: 'SyncWorkFailed',
        message: `Failed to sync work of ${what}: ${warned.join('; ')}`,
      });
    }
    throw new Error(`syncing Works failed for ${failures.length} cluster(s)`);
  }
  if (written > 0) {
    recordOnBinding(deps.events, b, {
      type: 'Normal',
      reason: 'SyncWorkSucceed',
      message: `Sync work of ${what} successful.`,
    });
  }
}

async function deleteWork(deps: BindingControllerDeps, w: Work, ctx: Ctx, b: ResourceBinding): Promise<void> {
  try {
    await deps.workClient.delete(keyOf(w), { signal: ctx.signal });
    ctx.log.info({ work: keyOf(w) }, 'Work deleted');
  } catch (err: unknown) {
    if (isNotFound(err)) return;
    warnUnlessConflict(err, () => {
      recordOnBinding(deps.events, b, {
        type: 'Warning',
        reason: 'CleanupWorkFailed',
        message: `Failed to delete Work ${keyOf(w)}`,
      });
    });
    throw err;
  }
}

/** A deleting binding: delete its Works, then let it go. */
async function removeBinding(deps: BindingControllerDeps, target: Target, ctx: Ctx): Promise<void> {
  const { key, b } = target;
  for (const w of target.works)
    if (w.metadata.deletionTimestamp === undefined) await deleteWork(deps, w, ctx, b);
  const finalizer = isClusterBindingKey(key)
    ? finalizers.clusterResourceBindingController
    : finalizers.bindingController;
  const current = b.metadata.finalizers ?? [];
  if (!current.includes(finalizer)) return;
  const next = current.filter((f) => f !== finalizer);
  try {
    await bindingClient(deps.bindings, key).mergePatch(
      key,
      { metadata: { resourceVersion: b.metadata.resourceVersion, finalizers: next } },
      { signal: ctx.signal },
    );
  } catch (err: unknown) {
    if (!isNotFound(err)) throw err;
  }
}
