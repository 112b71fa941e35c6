/**
 * fence-release: lets a `Directly` purge finish without the evicted cluster. A Work of such a purge
 * stays (deleting) until its agent removed the copies and its finalizer; when the agent is cut off
 * it never does, and the new placement waits. A Work that carries a fence timeout is different: its
 * agent deletes the copies itself once it has not renewed its Lease for that long. So once this
 * process has seen the cluster's Lease silent for the fence timeout + the Lease duration + the
 * margin (see plan.ts), and a fresh read shows it still unchanged, it removes the Work's
 * `karmada.io/execution-controller` finalizer itself, and the binding goes on.
 * Watches Works and cluster Leases; writes only that finalizer, and Events on the Work and its binding.
 */
import {
  clusterResourceBindingKind,
  resourceBindingKind,
  clusterNameFromExecutionNamespace,
  finalizers,
  namespaces,
  readFenceSetting,
  type Work,
} from '@kf/api';
import {
  isNotFound,
  joinKey,
  keyOf,
  updateWithRetry,
  splitKey,
  type EventRecorder,
  type InvolvedObject,
  type Lease,
  type ResourceClient,
  type WatchCache,
} from '@kf/kube';
import {
  converged,
  keysFrom,
  recheckIn,
  type ControllerSpec,
  type Outcome,
  type ReconcileContext,
} from '@kf/runtime';
import type { ControlPlaneMetrics } from '../../metrics.ts';
import { bindingKeyOfWork, isClusterBindingKey } from '../../bindings.ts';
import { decideRelease, LeaseSightings, type LeaseSighting } from './plan.ts';

export const fenceReleaseEventReasons = {
  released: 'FencedWorkReleased',
} as const;

export interface FenceReleaseDeps {
  readonly works: WatchCache<Work>;
  readonly workClient: ResourceClient<Work>;
  readonly leases: WatchCache<Lease>;
  readonly leaseClient: ResourceClient<Lease>;
  readonly events: EventRecorder;
  readonly metrics: Pick<ControlPlaneMetrics, 'fencedWorkReleased'>;
  /** `--fence-release-margin`. */
  readonly marginMs: number;
  readonly monotonic: () => number;
}

/** A Work this controller may have to release: deleting, finalizer still on, with a fence timeout. */
function isFencedPurge(w: Work): boolean {
  return (
    w.metadata.deletionTimestamp !== undefined &&
    (w.metadata.finalizers ?? []).includes(finalizers.executionController) &&
    readFenceSetting(w.metadata.annotations).kind === 'on'
  );
}

function clusterOf(w: Work): string | undefined {
  return clusterNameFromExecutionNamespace(w.metadata.namespace ?? '');
}

/** Fenced purges by cluster: a Lease event looks up its cluster's, where a scan would read every Work. */
function fencedPurgeClusters(w: Work): readonly string[] {
  const cluster = clusterOf(w);
  return cluster !== undefined && isFencedPurge(w) ? [cluster] : [];
}

export function fenceReleaseController(deps: FenceReleaseDeps): ControllerSpec {
  const sightings = new LeaseSightings();
  const fencedPurges = deps.works.index('fenced-purge-cluster', fencedPurgeClusters);
  const look = (cluster: string): LeaseSighting =>
    sightings.observe(cluster, deps.leases.get(joinKey(namespaces.cluster, cluster)), deps.monotonic());
  // Every change of a Lease is seen when it arrives, whether or not a Work waits on it.
  deps.leases.onEvent((type, lease) => {
    const cluster = lease.metadata?.name ?? '';
    sightings.observe(cluster, type === 'DELETED' ? undefined : lease, deps.monotonic());
  });
  return {
    name: 'fence-release',
    sources: [
      keysFrom(deps.works, (w) => (isFencedPurge(w) ? [keyOf(w)] : [])),
      keysFrom(deps.leases, (lease) => fencedPurges.get(lease.metadata?.name ?? '').map((w) => keyOf(w))),
    ],
    async reconcile(key, ctx) {
      const work = deps.works.get(key);
      const cluster = work === undefined ? undefined : clusterOf(work);
      if (work === undefined || cluster === undefined) return converged();
      const decision = decideRelease({
        work,
        sighting: look(cluster),
        marginMs: deps.marginMs,
        nowMono: deps.monotonic(),
      });
      switch (decision.kind) {
        case 'none':
          return converged();
        case 'unprovable':
          ctx.log.debug({ cluster, why: decision.why }, 'fenced Work not released');
          return converged(); // a Lease event brings it back
        case 'wait':
          return recheckIn(decision.inMs);
        case 'verify':
          return verifyAndRelease(deps, { work, cluster, ...decision }, { sightings, ctx });
      }
    },
  };
}

interface Verify {
  readonly work: Work;
  readonly cluster: string;
  readonly resourceVersion: string;
  readonly silentMs: number;
}

/**
 * Reads the Lease from the API server: unchanged since the silence began, the finalizer goes; else
 * the silence starts over from the version read.
 */
async function verifyAndRelease(
  deps: FenceReleaseDeps,
  v: Verify,
  state: { readonly sightings: LeaseSightings; readonly ctx: ReconcileContext },
): Promise<Outcome> {
  const { ctx } = state;
  const fresh = await deps.leaseClient.find(joinKey(namespaces.cluster, v.cluster), { signal: ctx.signal });
  if (fresh?.metadata?.resourceVersion !== v.resourceVersion) {
    state.sightings.observe(v.cluster, fresh, deps.monotonic());
    ctx.log.info({ cluster: v.cluster }, 'cluster Lease changed after all: fenced Work not released');
    return recheckIn(1_000);
  }
  const released = await removeFinalizer(deps, v.work, ctx.signal);
  if (!released) return converged();
  deps.metrics.fencedWorkReleased();
  const fence = readFenceSetting(v.work.metadata.annotations);
  const seconds = fence.kind === 'on' ? fence.seconds : 0;
  const message = `Released Work ${keyOf(v.work)} without its agent: the Lease of cluster ${v.cluster} had not changed for ${String(Math.floor(v.silentMs / 1000))}s, longer than the fence timeout (${String(seconds)}s) + the Lease duration + the margin, so the agent has deleted the copies itself.`;
  deps.events.record(v.work, 'Normal', fenceReleaseEventReasons.released, message);
  const binding = bindingOf(v.work);
  if (binding !== undefined)
    deps.events.record(binding, 'Normal', fenceReleaseEventReasons.released, message);
  ctx.log.warn(
    { work: keyOf(v.work), cluster: v.cluster, silentMs: Math.round(v.silentMs) },
    'fenced Work released',
  );
  return converged();
}

/** Removes the execution finalizer of the very Work decided on (same uid, still deleting). */
async function removeFinalizer(deps: FenceReleaseDeps, work: Work, signal: AbortSignal): Promise<boolean> {
  let removed = false;
  await updateWithRetry<Work>({
    read: () => deps.workClient.get(keyOf(work), { signal }),
    mutate: (current) => {
      const list = current.metadata.finalizers ?? [];
      const same =
        current.metadata.uid === work.metadata.uid && current.metadata.deletionTimestamp !== undefined;
      if (!same || !list.includes(finalizers.executionController)) return undefined;
      removed = true;
      const rest = list.filter((f) => f !== finalizers.executionController);
      return { ...current, metadata: { ...current.metadata, finalizers: rest } };
    },
    write: (next) => deps.workClient.replace(next, { signal }),
  }).catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
    removed = false;
  });
  return removed;
}

/** The binding a Work belongs to, for its Event (from the Work's binding annotations). */
function bindingOf(w: Work): InvolvedObject | undefined {
  const key = bindingKeyOfWork(w);
  if (key === undefined) return undefined;
  const kind = isClusterBindingKey(key) ? clusterResourceBindingKind : resourceBindingKind;
  return { apiVersion: kind.apiVersion, kind: kind.kind, ...splitKey(key) };
}
