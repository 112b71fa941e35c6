/**
 * Every change of the Clusters' Ready status and taints, as the harness's watch delivered it (on
 * the harness's clock): what a sampler can miss, a Ready that leaves True for a few hundred
 * milliseconds, a taint added and removed between two reads, shows here. The pure functions below
 * answer the fault tests' questions (how often did Ready leave True, which taints came, when was
 * Ready first Unknown) over a member's changes in a window of time.
 */
import { pino } from 'pino';
import { clusterKind, findCondition, type Cluster } from '@kf/api';
import { WatchCache } from '@kf/kube';
import type { FailoverFederation } from '../failover-federation.ts';
import { waitUntil } from '../readiness.ts';

/** A Cluster's Ready status or taints as they became at `atMs`. */
export interface ClusterChange {
  readonly atMs: number;
  readonly cluster: string;
  /** Ready's status ('True', 'False', 'Unknown'), 'absent' without a Ready condition. */
  readonly ready: string;
  readonly readyReason?: string;
  /** `key:effect` of every taint, sorted. */
  readonly taints: readonly string[];
}

/** The change `cluster` makes after `previous` (its last change), undefined when Ready and the taints are the same. */
export function changeOf(
  previous: ClusterChange | undefined,
  cluster: Cluster,
  atMs: number,
): ClusterChange | undefined {
  const ready = findCondition(cluster.status?.conditions, 'Ready');
  const taints = (cluster.spec.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
  const next: ClusterChange = {
    atMs,
    cluster: cluster.metadata.name ?? '',
    ready: ready?.status ?? 'absent',
    ...(ready?.reason === undefined ? {} : { readyReason: ready.reason }),
    taints,
  };
  const same =
    previous !== undefined &&
    previous.ready === next.ready &&
    previous.readyReason === next.readyReason &&
    previous.taints.join(',') === taints.join(',');
  return same ? undefined : next;
}

/** A member's changes, oldest first. */
function changesOf(changes: readonly ClusterChange[], member: string): ClusterChange[] {
  return changes.filter((c) => c.cluster === member);
}

/** Ready's status at `atMs` (from the last change at or before it), undefined before the first. */
export function readyAt(changes: readonly ClusterChange[], member: string, atMs: number): string | undefined {
  return changesOf(changes, member)
    .filter((c) => c.atMs <= atMs)
    .at(-1)?.ready;
}

/** A change of Ready's status. */
export interface ReadyTransition {
  readonly atMs: number;
  readonly from: string | undefined;
  readonly to: string;
  readonly reason?: string;
}

/** Every change of Ready's status in (fromMs, toMs]. */
export function readyTransitions(
  changes: readonly ClusterChange[],
  member: string,
  fromMs: number,
  toMs: number,
): ReadyTransition[] {
  const out: ReadyTransition[] = [];
  let status: string | undefined;
  for (const c of changesOf(changes, member)) {
    if (c.ready !== status && c.atMs > fromMs && c.atMs <= toMs) {
      out.push({
        atMs: c.atMs,
        from: status,
        to: c.ready,
        ...(c.readyReason === undefined ? {} : { reason: c.readyReason }),
      });
    }
    status = c.ready;
  }
  return out;
}

/** How many times Ready left True in (fromMs, toMs]. */
export function timesReadyLeftTrue(
  changes: readonly ClusterChange[],
  member: string,
  fromMs: number,
  toMs: number,
): number {
  return readyTransitions(changes, member, fromMs, toMs).filter((t) => t.from === 'True').length;
}

/** A taint that appeared. */
export interface TaintAdded {
  readonly atMs: number;
  readonly taint: string;
}

/** Every taint added in (fromMs, toMs] (one entry each time it appears). */
export function taintsAdded(
  changes: readonly ClusterChange[],
  member: string,
  fromMs: number,
  toMs: number,
): TaintAdded[] {
  const out: TaintAdded[] = [];
  let had: readonly string[] = [];
  for (const c of changesOf(changes, member)) {
    const inWindow = c.atMs > fromMs && c.atMs <= toMs;
    const fresh = inWindow ? c.taints.filter((t) => !had.includes(t)) : [];
    out.push(...fresh.map((taint) => ({ atMs: c.atMs, taint })));
    had = c.taints;
  }
  return out;
}

/** Taints a member carried at any moment of [fromMs, toMs] (sorted, each once). */
export function taintsHeld(
  changes: readonly ClusterChange[],
  member: string,
  fromMs: number,
  toMs: number,
): string[] {
  const mine = changesOf(changes, member);
  const atStart = mine.filter((c) => c.atMs <= fromMs).at(-1)?.taints ?? [];
  const during = mine.filter((c) => c.atMs > fromMs && c.atMs <= toMs).flatMap((c) => c.taints);
  return [...new Set([...atStart, ...during])].sort();
}

/**
 * The first moment from `fromMs` on that the member's state matched `matches`: `fromMs` itself when
 * it already did, undefined when it has not since.
 */
export function firstMatchAt(
  changes: readonly ClusterChange[],
  member: string,
  fromMs: number,
  matches: (c: ClusterChange) => boolean,
): number | undefined {
  const mine = changesOf(changes, member);
  const then = mine.filter((c) => c.atMs <= fromMs).at(-1);
  if (then !== undefined && matches(then)) return fromMs;
  return mine.find((c) => c.atMs > fromMs && matches(c))?.atMs;
}

/** The first moment from `fromMs` on that Ready was `status` (see {@link firstMatchAt}). */
export function readyFirstAt(
  changes: readonly ClusterChange[],
  member: string,
  status: string,
  fromMs: number,
): number | undefined {
  return firstMatchAt(changes, member, fromMs, (c) => c.ready === status);
}

/** Ready=True and no taint. */
export const isHealthy = (c: ClusterChange): boolean => c.ready === 'True' && c.taints.length === 0;

/** Records the changes of every Cluster of a federation from start() until stop(). */
export class ClusterHistory {
  readonly changes: ClusterChange[] = [];
  readonly #cache: WatchCache<Cluster>;
  readonly #last = new Map<string, ClusterChange>();

  private constructor(fed: FailoverFederation) {
    this.#cache = new WatchCache<Cluster>({
      kubeConfig: fed.controlPlaneKubeConfig(),
      resource: clusterKind,
      log: pino({ level: 'silent' }),
    });
    this.#cache.onEvent((type, cluster) => {
      if (type === 'DELETED') return;
      const name = cluster.metadata.name ?? '';
      const change = changeOf(this.#last.get(name), cluster, Date.now());
      if (change === undefined) return;
      this.#last.set(name, change);
      this.changes.push(change);
    });
  }

  /** Starts watching; resolves once the Clusters as they are now are recorded. */
  static async start(fed: FailoverFederation): Promise<ClusterHistory> {
    const history = new ClusterHistory(fed);
    history.#cache.start();
    await history.#cache.synced();
    return history;
  }

  /**
   * Waits until `member`'s state has matched `matches` at some moment from `fromMs` on; resolves
   * with that moment, or undefined after `timeoutMs`.
   */
  async firstMatchWithin(
    member: string,
    fromMs: number,
    matches: (c: ClusterChange) => boolean,
    timeoutMs: number,
  ): Promise<number | undefined> {
    const seen = (): number | undefined => firstMatchAt(this.changes, member, fromMs, matches);
    await waitUntil(`${member} changed as awaited`, () => Promise.resolve(seen() !== undefined), {
      timeoutMs,
      intervalMs: 50,
    }).catch(() => undefined);
    return seen();
  }

  async stop(): Promise<void> {
    await this.#cache.stop();
  }
}
