/**
 * Keeps the member's Cluster.status true: probes the member API server every
 * `--cluster-status-update-frequency`, debounces Ready with the success/failure thresholds (a probe
 * that got no answer counts from when it was sent), and
 * while Ready is (and stays) True collects version, API enablements and node/resource summaries.
 * Watches the agent's own Cluster (one key: its name); writes Cluster status only, and only when
 * something changed. Requeues itself every period, or sooner when a held-back Ready will flip.
 *
 * The agent's verdict is compared with what the Cluster says, not only with its own last verdict:
 * when anyone else changes Ready (the control plane marks it Unknown after a silence) the agent
 * looks at once and writes its verdict back if it differs. While its Cluster watch is failing, and
 * once after each reconnection (the heartbeat renewed again after failures, which queues a sync at
 * once), it reads the Cluster from the API server rather than its cache: the cache may then hide an
 * Unknown that must be overwritten, even behind a watch that looks live (a link that dropped
 * packets delivers what it held back only when its TCP retransmission gets through).
 *
 * A sync's calls to the control plane (the read, then the write with its retries) may take until
 * the last successful sync would lapse: the cluster Lease duration − one period after it ended, and
 * at least one period (see liveness-deadline.ts). A slow link still carries the status, and a call
 * hanging on a link that drops packets does not hold every sync behind it for the client's default
 * timeout.
 *
 * The collection from the member (its version and discovery) gets the status period, and at least
 * the probe's own timeout (see {@link collectionBudgetMs}): a member, or a link to it, that stops
 * answering in the middle of a collection is probed again a period later, not once discovery's
 * calls have all timed out (20 s and more). A collection cut short writes Ready alone and leaves
 * the collected fields as they were.
 */
import {
  clusterConditionTypes,
  conditionStatuses,
  findCondition,
  isConditionTrue,
  type Cluster,
  type ClusterCondition,
  type ClusterStatus,
  type ConditionUpdate,
} from '@kf/api';
import {
  callDeadline,
  updateWithRetry,
  type CallOptions,
  type ResourceClient,
  type WatchCache,
} from '@kf/kube';
import {
  converged,
  keysFrom,
  recheckIn,
  type ControllerSpec,
  type Logger,
  type Outcome,
  type Source,
} from '@kf/runtime';
import type { KeyTrigger } from '../key-trigger.ts';
import { livenessSignal, type LastSuccess } from '../liveness-deadline.ts';
import type { MemberMetrics } from '../../metrics.ts';
import { specChanges } from '../spec-changes.ts';
import { buildApiEnablements, type Discovery } from './api-enablements.ts';
import { judgeProbe, observedReadyCondition, probeAnswered, type ProbeResult } from './ready-condition.ts';
import { decideReady, type ReadyMemory, type Thresholds } from './ready-threshold.ts';
import { summarizeCluster, type ClusterSummary } from './resource-summary.ts';
import { planClusterStatus, type CollectedStatus } from './status-plan.ts';
import type { InventoryViews } from '../../member/inventory.ts';
import { DEFAULT_MEMBER_GET_TIMEOUT_MS } from '../../member/member-http.ts';

/** What the controller needs from the member cluster. */
export interface MemberStatusSource {
  probe(signal: AbortSignal): Promise<ProbeResult>;
  version(signal: AbortSignal): Promise<string>;
  discover(signal: AbortSignal): Promise<Discovery>;
  /** Undefined when resource modeling is off. */
  inventory?(signal: AbortSignal): Promise<InventoryViews>;
}

export interface ClusterStatusDeps {
  readonly clusterName: string;
  readonly clusters: WatchCache<Cluster>;
  readonly clusterClient: ResourceClient<Cluster>;
  readonly member: MemberStatusSource;
  readonly thresholds: Thresholds;
  readonly periodMs: number;
  /** The cluster Lease duration: how long the control plane counts a sign of life. */
  readonly leaseDurationMs: number;
  /** How long a collection from the member may take (default {@link collectionBudgetMs}). */
  readonly collectionBudgetMs?: number;
  readonly metrics: MemberMetrics;
  /** Told about each discovery, so that Work manifests map to member resources without another one. */
  readonly onDiscovery?: (d: Discovery) => void;
  /** Monotonic clock for the sync duration and its deadline. */
  readonly monotonic: () => number;
  /** Fired when the agent reconnected to the control plane: a sync reading the Cluster fresh runs at once. */
  readonly reconnected?: KeyTrigger;
}

export function clusterStatusController(deps: ClusterStatusDeps): ControllerSpec {
  let memory: ReadyMemory | undefined;
  let doubtCache = false;
  /** The last sync that completed: its calls to the control plane succeeded, or none was needed. */
  let lastSuccess: LastSuccess | undefined;
  deps.reconnected?.onChange(() => {
    doubtCache = true;
  });
  const own = (c: Cluster): string[] => (c.metadata.name === deps.clusterName ? [deps.clusterName] : []);
  return {
    name: 'cluster-status',
    // The periodic requeue drives this controller; a resync would only add extra probes.
    resyncPeriodMs: 0,
    // A failed sync (the control plane unreachable) is retried within a quarter period, not after a
    // backoff that grew during the outage: Ready is reasserted well within a period of the link's
    // return. Four tries per period against an unreachable control plane stay cheap.
    ...(deps.periodMs > 0 ? { maxRetryDelayMs: retryCapMs(deps.periodMs) } : {}),
    // Status writes queue a sync only when they change Ready: then the stored verdict may no longer
    // be the agent's. Create, delete and spec changes always do.
    sources: [
      specChanges(deps.clusters, own),
      readyChanges(deps.clusters, own),
      ...(deps.reconnected === undefined ? [] : [deps.reconnected]),
    ],
    async reconcile(name, { log, now, signal }) {
      const startedAt = deps.monotonic();
      // Each phase that calls the control plane gets its deadline when it starts: a slow member
      // (caches still syncing) must not leave the status write less than one period.
      const callFrom = (at: number): CallOptions => callOptions(deps, { at, lastSuccess }, signal);
      const cluster = await readCluster(name, callFrom(startedAt));
      if (cluster === undefined) {
        memory = undefined;
        succeeded(undefined);
        return converged(); // deleted: nothing to report on
      }
      const probedAtMs = now();
      const probe = await deps.member.probe(signal);
      const health = judgeProbe(probe);
      const stored = findCondition(cluster.status, clusterConditionTypes.ready);
      const decision = decideReady(
        {
          memory,
          stored,
          observed: observedReadyCondition(health),
          nowMs: now(),
          // Unanswered: nothing heard from the member since the probe went out.
          ...(probeAnswered(probe) ? {} : { heldSinceMs: probedAtMs }),
        },
        deps.thresholds,
      );
      memory = decision.memory;
      const ready = decision.kind === 'observed' ? decision.condition : undefined;
      const answer = answersSilence(stored, ready);
      const plan = await planSync(
        deps,
        { ready, collect: health.healthy && ready?.status === 'True' && !answer },
        log,
        signal,
      );
      const writeStartedAt = deps.monotonic();
      const call = callFrom(writeStartedAt);
      const written = await writeStatus(deps, { cached: cluster, ...plan, now, call });
      report(deps, log, { cluster, written, stored, ready, startedAt });
      succeeded(written === undefined ? undefined : writeStartedAt);
      if (answer && written !== undefined) return recheckIn(0); // now collect what was skipped
      return next(deps.periodMs, decision.kind === 'held' ? decision.flipAtMs - now() : undefined);
    },
  };

  /**
   * This sync completed: the next one counts from its end. How long its status write took (from
   * `writeStartedAt`) is the round trip the next deadline must cover; a sync that wrote nothing
   * keeps the last figure, having timed no round trip.
   */
  function succeeded(writeStartedAt: number | undefined): void {
    const endedAtMs = deps.monotonic();
    const tookMs = writeStartedAt === undefined ? (lastSuccess?.tookMs ?? 0) : endedAtMs - writeStartedAt;
    lastSuccess = { endedAtMs, tookMs };
  }

  /** The Cluster, read from the API server after a reconnection (once) or while the watch fails. */
  async function readCluster(name: string, call: CallOptions): Promise<Cluster | undefined> {
    const doubted = doubtCache;
    doubtCache = false;
    if (!doubted && deps.clusters.isLive()) return deps.clusters.get(name);
    try {
      return await deps.clusterClient.find(name, call);
    } catch (err: unknown) {
      doubtCache ||= doubted; // not read: the next sync reads fresh instead
      throw err;
    }
  }
}

/** Logs a change of Ready and records the sync in the metrics. */
function report(
  deps: ClusterStatusDeps,
  log: Logger,
  s: {
    readonly cluster: Cluster;
    readonly written: Cluster | undefined;
    readonly stored: ClusterCondition | undefined;
    readonly ready: ConditionUpdate | undefined;
    readonly startedAt: number;
  },
): void {
  if (s.written !== undefined && s.ready !== undefined && s.stored?.status !== s.ready.status) {
    log.info({ ready: s.ready.status, reason: s.ready.reason }, 'Ready changed');
  }
  const current = s.written ?? s.cluster;
  deps.metrics.observeCluster(current, isConditionTrue(current.status, clusterConditionTypes.ready));
  deps.metrics.statusSyncSeconds((deps.monotonic() - s.startedAt) / 1000);
}

/**
 * The control plane marked the cluster Unknown (it heard nothing from the agent for a while) and
 * the agent finds it Ready: that answer goes out at once, and the status collection (member
 * discovery, version, inventory) follows in the next sync instead of delaying it.
 */
function answersSilence(stored: ClusterCondition | undefined, ready: ConditionUpdate | undefined): boolean {
  return stored?.status === conditionStatuses.unknown && ready?.status === conditionStatuses.true;
}

/** The longest wait before retrying a failed sync: a quarter period. */
export function retryCapMs(periodMs: number): number {
  return periodMs / 4;
}

/**
 * The deadline of a phase of control-plane calls starting `at` (its reads and retries included):
 * until the last successful sync would lapse, at least one period (see liveness-deadline.ts).
 * Without a loop (period 0), the client's default applies.
 */
function callOptions(
  deps: Pick<ClusterStatusDeps, 'periodMs' | 'leaseDurationMs'>,
  phase: { readonly at: number; readonly lastSuccess: LastSuccess | undefined },
  signal: AbortSignal,
): CallOptions {
  if (deps.periodMs <= 0) return { signal };
  const timing = { leaseDurationMs: deps.leaseDurationMs, intervalMs: deps.periodMs };
  return { signal: livenessSignal({ ...timing, startMs: phase.at, lastSuccess: phase.lastSuccess }, signal) };
}

/** Queues the keys of a Cluster whose Ready status changed, whoever wrote it. */
function readyChanges(clusters: WatchCache<Cluster>, keysOf: (c: Cluster) => string[]): Source {
  const readyOf = (c: Cluster | undefined): string | undefined =>
    findCondition(c?.status, clusterConditionTypes.ready)?.status;
  return keysFrom<Cluster>(
    {
      list: () => clusters.list(),
      synced: () => clusters.synced(),
      onEvent: (handler) =>
        clusters.onEvent((type, obj, old) => {
          if (type === 'MODIFIED' && readyOf(obj) !== readyOf(old)) handler(type, obj, old);
        }),
    },
    keysOf,
  );
}

/** Every period, or sooner when a held-back Ready is due to flip; a period of 0 disables the loop. */
function next(periodMs: number, untilFlipMs: number | undefined): Outcome {
  if (periodMs <= 0) return untilFlipMs === undefined ? converged() : recheckIn(untilFlipMs);
  return recheckIn(Math.min(periodMs, untilFlipMs ?? periodMs));
}

interface SyncPlan {
  readonly conditions: readonly ConditionUpdate[];
  readonly collected: CollectedStatus | undefined;
}

/**
 * Conditions to set (CompleteAPIEnablements then Ready, as upstream orders them) and, when the
 * member is healthy and Ready is True, what was collected from it. A held-back Ready sets nothing.
 */
async function planSync(
  deps: ClusterStatusDeps,
  what: { readonly ready: ConditionUpdate | undefined; readonly collect: boolean },
  log: Logger,
  signal: AbortSignal,
): Promise<SyncPlan> {
  const readyList = what.ready === undefined ? [] : [what.ready];
  if (!what.collect) return { conditions: readyList, collected: undefined };
  const budgetMs = deps.collectionBudgetMs ?? collectionBudgetMs(deps.periodMs);
  const budget = callDeadline(budgetMs, signal);
  let c: Awaited<ReturnType<typeof collect>>;
  try {
    c = await collect(deps, log, { signal, budget: budget.signal });
  } finally {
    budget.release();
  }
  if (c === undefined) {
    log.warn(
      { budgetMs },
      'the member did not answer the status collection within its budget; Ready written without it',
    );
    return { conditions: readyList, collected: undefined };
  }
  return { conditions: [c.apiCondition, ...readyList], collected: c.collected };
}

/**
 * How long a sync's collection from the member may take: the status period, and at least the
 * probe's timeout (a healthy API server answers discovery in milliseconds, a busy one in a second
 * or two).
 */
export function collectionBudgetMs(periodMs: number): number {
  return Math.max(periodMs, DEFAULT_MEMBER_GET_TIMEOUT_MS);
}

/** What was collected; undefined when the budget ran out first (the sync's own signal throws). */
async function collect(
  deps: ClusterStatusDeps,
  log: Logger,
  signals: { readonly signal: AbortSignal; readonly budget: AbortSignal },
): Promise<{ collected: CollectedStatus; apiCondition: ConditionUpdate } | undefined> {
  const { signal, budget } = signals;
  const fromMember = Promise.all([
    // Cleared, as when /version cannot be read (the budget's doing is told apart below).
    deps.member.version(budget).catch(() => ''),
    deps.member.discover(budget).catch((err: unknown): Discovery => {
      if (!budget.aborted) log.warn({ err }, 'member discovery failed');
      return { groupVersions: [], partial: true };
    }),
  ]).then((answers) => ({ answers, late: budget.aborted }));
  // The inventory is read from caches, bounded by their sync timeout: not the member's answer.
  const [{ answers, late }, views] = await Promise.all([fromMember, deps.member.inventory?.(signal)]);
  signal.throwIfAborted();
  // What the calls answered once the budget ran out is the budget's doing, not the member's.
  if (late) return undefined;
  const [kubernetesVersion, discovery] = answers;
  if (discovery.groupVersions.length > 0) deps.onDiscovery?.(discovery);
  const apis = buildApiEnablements(discovery);
  const models = deps.clusters.get(deps.clusterName)?.spec.resourceModels ?? [];
  const summary: ClusterSummary | undefined =
    views === undefined ? undefined : summarizeCluster(views.nodes, views.pods, models);
  return {
    collected: {
      kubernetesVersion,
      apiEnablements: apis.apiEnablements,
      ...(summary === undefined ? {} : { summary }),
    },
    apiCondition: apis.condition,
  };
}

/**
 * Writes the planned status when it differs from the one the sync read: PUTs the status
 * subresource of that Cluster (from the cache, or just read from the API server), guarded by its
 * resourceVersion. A cache behind the API server, or a concurrent writer, makes that a Conflict,
 * retried from a fresh read; otherwise the write is one request, which is what a slow link needs
 * to carry Ready within its deadline. Returns the written Cluster, or undefined when nothing was
 * written.
 */
async function writeStatus(
  deps: ClusterStatusDeps,
  w: SyncPlan & {
    /** The Cluster the sync read: the first write starts from it. */
    readonly cached: Cluster;
    readonly now: () => number;
    readonly call: CallOptions;
  },
): Promise<Cluster | undefined> {
  const { cached, conditions, collected, now, call } = w;
  let base: Cluster | undefined = cached;
  if (planClusterStatus(cached.status, conditions, collected, now()) === undefined) return undefined;
  let written: Cluster | undefined;
  await updateWithRetry<Cluster>({
    read: () => {
      const fresh = base;
      base = undefined; // a Conflict reads again
      return fresh === undefined ? deps.clusterClient.get(deps.clusterName, call) : Promise.resolve(fresh);
    },
    mutate: (current) => {
      const status: ClusterStatus | undefined = planClusterStatus(
        current.status,
        conditions,
        collected,
        now(),
      );
      return status === undefined ? undefined : { ...current, status };
    },
    write: async (next) => {
      written = await deps.clusterClient.replaceStatus(next, call);
      return written;
    },
  });
  return written;
}
