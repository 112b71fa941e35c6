/**
 * Evicts bindings from clusters whose NoExecute taints they do not tolerate: at once, or when the
 * tolerating `tolerationSeconds` run out. An eviction removes the cluster from `spec.clusters` and
 * leaves a graceful eviction task (purge mode from the binding's `spec.failover.cluster`, else
 * `--no-execute-taint-eviction-purge-mode`). Evictions are paced by a token bucket and paused by
 * the fleet guard while too much of the fleet is not ready (an Event on the binding says why).
 * Watches ResourceBindings, ClusterResourceBindings and Clusters (a cluster change queues the
 * bindings placed on it); writes binding `spec.clusters` and `spec.gracefulEvictionTasks`, and for
 * a binding opted into fail-back the placement it had before (see ../fail-back/record.ts).
 * Requeued at the earliest toleration deadline, when the next token arrives, and every 10s while
 * paused.
 */
import {
  eventReasons,
  evictionProducers,
  evictionReasons,
  formatTime,
  isSameJson,
  taintEffects,
  type Cluster,
  type Taint,
} from '@kf/api';
import { keyOf, type EventRecorder, type WatchCache } from '@kf/kube';
import {
  converged,
  keysFrom,
  recheckIn,
  type ControllerSpec,
  type Outcome,
  type ReconcileContext,
} from '@kf/runtime';
import {
  bindingKeysOnCluster,
  bindingReference,
  getBinding,
  ownBindingWrites,
  type Binding,
  type BindingStore,
  type OwnBindingWrites,
} from '../../bindings.ts';
import type { ControlPlaneMetrics } from '../../metrics.ts';
import { warnUnlessConflict } from '../../write-warnings.ts';
import type { FleetGuard } from '../fleet-guard/guard.ts';
import type { EvictionPacer } from '../fleet-guard/pacer.ts';
import { recordOnEviction } from '../fail-back/record.ts';
import { readFailBackSetting } from '../fail-back/setting.ts';
import { planGracefulEviction } from '../graceful-eviction/evict-cluster.ts';
import { readAppliedTolerations } from './applied-placement.ts';
import { judgeEviction } from './eviction.ts';
import { evictionInputsChanged } from './reads.ts';
import { decidePurgeMode, type TaintEvictionPurgeMode } from './purge-mode.ts';

/** Upstream's ClusterTaintEvictionRetryFrequency: how often a held-back eviction looks again. */
export const EVICTION_RETRY_MS = 10_000;

/** Event reasons of this controller that upstream does not have. */
export const taintManagerEventReasons = {
  evictionStarted: 'EvictionStarted',
  evictionPaused: 'EvictionPaused',
} as const;

export interface TaintManagerDeps {
  readonly clusters: WatchCache<Cluster>;
  readonly bindings: BindingStore;
  readonly guard: FleetGuard;
  readonly pacer: EvictionPacer;
  readonly events: EventRecorder;
  readonly metrics: ControlPlaneMetrics;
  readonly purgeMode: TaintEvictionPurgeMode;
}

interface Due {
  /** Clusters to leave now, with the taints nobody tolerates (empty: a toleration ran out). */
  readonly now: readonly { readonly cluster: string; readonly untolerated: readonly Taint[] }[];
  /** The earliest later deadline, if any. */
  readonly laterInMs?: number;
}

/**
 * Evictions are one API write each, paced by the shared bucket; enough run at once that the bucket
 * sets the pace, not the write round trips. With upstream's three, 200 evictions took 3.3–4.7 s
 * after the taint on a busy 2-core machine where the bucket (a burst of 100, then 50/s) allows 2 s;
 * with 16 they take about that.
 */
const EVICTION_WORKERS = 16;

/**
 * A binding placed nowhere has nothing to evict: a new binding counts once scheduled, and one
 * leaving its last cluster through the old copy of its modification.
 */
function placedBinding(b: Binding): readonly string[] {
  return (b.spec.clusters ?? []).length > 0 ? [keyOf(b)] : [];
}

export function taintManagerController(deps: TaintManagerDeps): ControllerSpec {
  // Its evictions' own events: the reconcile that wrote one converged on it.
  const writes = ownBindingWrites(deps.bindings);
  const bindingEvents = { changed: evictionInputsChanged, ownWrites: writes.record };
  return {
    name: 'taint-manager',
    workers: EVICTION_WORKERS,
    sources: [
      keysFrom(deps.bindings.resourceBindings, placedBinding, bindingEvents),
      keysFrom(deps.bindings.clusterResourceBindings, placedBinding, bindingEvents),
      // Of a Cluster it reads the taints alone: a status change would otherwise queue every
      // binding on the cluster. The bindings' sources name every placed binding for the fill
      // and the resync.
      keysFrom(deps.clusters, (c) => bindingKeysOnCluster(deps.bindings, c.metadata.name ?? ''), {
        changed: (c, old) => !isSameJson(c.spec.taints, old.spec.taints),
        listsKeys: false,
      }),
    ],
    async reconcile(key, ctx) {
      const binding = getBinding(deps.bindings, key);
      if (binding === undefined || binding.metadata.deletionTimestamp !== undefined) {
        deps.pacer.release(key);
        return converged();
      }
      const due = findDue(deps, binding, ctx.now());
      const later = due.laterInMs === undefined ? converged() : recheckIn(due.laterInMs);
      if (due.now.length === 0) {
        deps.pacer.release(key);
        return later;
      }
      return evict(deps, writes, { key, binding, due }, ctx);
    },
  };
}

function findDue(deps: TaintManagerDeps, binding: Binding, nowMs: number): Due {
  const evictNow: { cluster: string; untolerated: readonly Taint[] }[] = [];
  let laterInMs: number | undefined;
  for (const { name } of binding.spec.clusters ?? []) {
    const taints = deps.clusters.get(name)?.spec.taints ?? [];
    if (!taints.some((t) => t.effect === taintEffects.noExecute)) continue;
    const applied = readAppliedTolerations(binding.metadata.annotations);
    // As upstream: without a readable applied placement nothing is evicted; retried with backoff.
    if (!applied.ok) throw new Error(`cannot judge eviction from cluster ${name}: ${applied.problem}`);
    const verdict = judgeEviction({
      clusterName: name,
      boundClusters: binding.spec.clusters,
      taints,
      tolerations: applied.tolerations,
      nowMs,
    });
    if (verdict.kind === 'evictNow') evictNow.push({ cluster: name, untolerated: verdict.untolerated });
    if (verdict.kind === 'evictAt') laterInMs = Math.min(laterInMs ?? verdict.inMs, verdict.inMs);
  }
  return { now: evictNow, ...(laterInMs === undefined ? {} : { laterInMs }) };
}

/** One binding's evictions that are due now. */
interface DueBinding {
  readonly key: string;
  readonly binding: Binding;
  readonly due: Due;
}

async function evict(
  deps: TaintManagerDeps,
  writes: OwnBindingWrites,
  { key, binding, due }: DueBinding,
  { log, now, signal }: ReconcileContext,
): Promise<Outcome> {
  const ref = bindingReference(key, binding);
  const guard = deps.guard.check(now());
  if (guard.paused) {
    // Told once per hold, not on every look: a paused fleet may hold thousands of bindings.
    if (deps.pacer.hold(key, now())) {
      deps.events.record(ref, 'Warning', taintManagerEventReasons.evictionPaused, guard.reason);
      log.info({ clusters: due.now.map((d) => d.cluster) }, 'eviction held back by the fleet guard');
    }
    return recheckIn(Math.min(guard.recheckInMs ?? EVICTION_RETRY_MS, EVICTION_RETRY_MS));
  }
  const turn = deps.pacer.request(key, now());
  if (!turn.ok) return recheckIn(turn.waitMs);
  const purgeMode = decidePurgeMode(binding.spec.failover?.cluster, deps.purgeMode);
  let spec = binding.spec;
  for (const d of due.now) {
    spec = planGracefulEviction(spec, d.cluster, {
      purgeMode,
      producer: evictionProducers.taintManager,
      reason: evictionReasons.taintUntolerated,
      message: describeCause(d.untolerated),
      creationTimestamp: formatTime(now()),
    }).spec;
  }
  const record = placementRecordFor(binding, now());
  try {
    await writes.client(key).mergePatch(
      key,
      {
        metadata: {
          resourceVersion: binding.metadata.resourceVersion,
          ...(record === undefined ? {} : { annotations: record }),
        },
        spec: { clusters: spec.clusters, gracefulEvictionTasks: spec.gracefulEvictionTasks },
      },
      { signal },
    );
  } catch (err: unknown) {
    warnUnlessConflict(err, () => {
      for (const d of due.now) {
        const message = `Evict from cluster ${d.cluster} failed.`;
        deps.events.record(ref, 'Warning', eventReasons.evictWorkloadFromClusterFailed, message);
      }
    });
    throw err;
  }
  for (const d of due.now) {
    deps.metrics.evicted('TaintUntolerated');
    const message = `Evicting from cluster ${d.cluster} (purge mode ${purgeMode}): ${describeCause(d.untolerated)}`;
    deps.events.record(ref, 'Normal', taintManagerEventReasons.evictionStarted, message);
    log.info({ cluster: d.cluster, purgeMode }, 'binding evicted from cluster');
  }
  return due.laterInMs === undefined ? converged() : recheckIn(due.laterInMs);
}

/** A binding opted into fail-back remembers, in the eviction's write, where it ran before. */
function placementRecordFor(binding: Binding, nowMs: number): Record<string, string> | undefined {
  if (readFailBackSetting(binding.metadata.annotations).kind !== 'on') return undefined;
  return recordOnEviction(binding.metadata.annotations, binding.spec.clusters ?? [], nowMs);
}

function describeCause(untolerated: readonly Taint[]): string {
  if (untolerated.length === 0) return 'the toleration of its NoExecute taint ran out.';
  const taints = untolerated.map((t) => `${t.key}:${t.effect}`).join(', ');
  return `NoExecute taint ${taints} is not tolerated.`;
}
