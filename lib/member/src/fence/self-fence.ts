/**
 * The self-fence: a member agent that has not renewed its cluster Lease for a Work's fence timeout
 * deletes that Work's copies itself, so that the control plane may start a new placement for a
 * `Directly` purge without waiting for the cluster to come back (see fence-plan.ts for the record
 * and the clocks, docs/architecture.md for why the timing holds).
 *
 * It runs in every replica and from the start of the process, before registration: a replica
 * that lost leadership in a partition, or a process restarted during one, still fences. Applying
 * a fenced Work and fencing it exclude each other (one gate per process), so a copy is never
 * applied after its deadline has passed.
 */
import type { Clock, Logger } from '@kf/runtime';
import type { MemberMetrics } from '../metrics.ts';
import {
  markedFenced,
  planFence,
  renewalBase,
  trackDecision,
  withEntry,
  withoutWork,
  EMPTY_FENCE_RECORD,
  type FenceEntry,
  type FenceRecord,
  type ObjectRef,
} from './fence-plan.ts';
import type { FenceRecordStore } from './fence-store.ts';

export interface SelfFenceDeps {
  readonly store: FenceRecordStore;
  /** Deletes one member object of the Work `work` (absent, or someone else's, is left). */
  readonly deleteObject: (ref: ObjectRef, work: string, signal: AbortSignal) => Promise<void>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly metrics: Pick<MemberMetrics, 'workFenced' | 'fenceTracked'>;
  /** Longest wait between two looks at the record (the heartbeat's renew interval). */
  readonly checkIntervalMs: number;
  /** Told the Work key of every entry fenced, so that its status can say so. */
  readonly onFenced?: (work: string) => void;
}

/** What the execution controller may do with a fenced Work. */
export type ApplyPermit =
  | { readonly kind: 'apply' }
  /** Not before this process has counted a renewal of its own. */
  | { readonly kind: 'wait' }
  /** Its copies were fenced (or are due): never applied again. */
  | { readonly kind: 'fenced'; readonly fencedAt?: string };

/** A one-at-a-time gate. */
class Gate {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(fn);
    this.#tail = next.catch(() => undefined);
    return next;
  }
}

export class SelfFence {
  readonly #deps: SelfFenceDeps;
  readonly #gate = new Gate();
  /** The record as last read or written. */
  #record: FenceRecord = EMPTY_FENCE_RECORD;
  /** Monotonic start of this process's last counted renewal. */
  #renewedAt: number | undefined;
  /** Fenced uids whose objects this process has seen deleted. */
  readonly #deleted = new Set<string>();
  /** Whether the record was read (or written) at least once. */
  #loaded = false;
  /** Whether a Work (key, uid) still exists; undefined while that is not known. */
  #workExists: ((work: string, uid: string) => boolean | undefined) | undefined;

  constructor(deps: SelfFenceDeps) {
    this.#deps = deps;
  }

  /**
   * A heartbeat renewal succeeded by its tick's deadline; the tick started at `tickStartMono`,
   * before anything was sent (the base never moves back to an earlier tick).
   */
  renewed(tickStartMono: number): void {
    this.#renewedAt = Math.max(this.#renewedAt ?? tickStartMono, tickStartMono);
  }

  hasRenewed(): boolean {
    return this.#renewedAt !== undefined;
  }

  /**
   * Lets the fence drop the entries of fenced Works that no longer exist (the control plane
   * released them): `exists` answers from the Work cache, undefined while it has not listed.
   */
  knowWorks(exists: (work: string, uid: string) => boolean | undefined): void {
    this.#workExists = exists;
  }

  /** The fence record as this process last knew it (for status and tests). */
  get record(): FenceRecord {
    return this.#record;
  }

  /**
   * Runs `apply` for a Work carrying a fence timeout when that is safe: after this process counted
   * a renewal, with the Work's objects in the record, before its deadline, and never once fenced.
   */
  async withPermit(
    entry: Omit<FenceEntry, 'fencedAt'>,
    apply: () => Promise<void>,
    signal: AbortSignal,
  ): Promise<ApplyPermit> {
    if (!this.hasRenewed()) return { kind: 'wait' };
    return this.#gate.run(async () => {
      // Decided on the record as stored now, not as last seen: another replica, or this process
      // before a failed look, may have fenced the Work meanwhile.
      this.#setRecord((await this.#deps.store.load(signal)).record);
      if (trackDecision(this.#record, entry) === 'fenced') return this.#fencedPermit(entry);
      if (this.#isDue(entry)) return { kind: 'fenced' };
      if (trackDecision(this.#record, entry) === 'record') {
        const lastRenewalMs = this.#renewedWallMs();
        const update = (r: FenceRecord): FenceRecord | undefined => {
          if (trackDecision(r, entry) !== 'record') return undefined;
          const latest = maxOf(r.lastRenewalMs, lastRenewalMs);
          return { ...withEntry(r, entry), ...(latest === undefined ? {} : { lastRenewalMs: latest }) };
        };
        this.#setRecord(await this.#deps.store.update(update, signal));
        if (trackDecision(this.#record, entry) === 'fenced') return this.#fencedPermit(entry);
      }
      await apply();
      return { kind: 'apply' };
    });
  }

  /** Drops the Work's entries: its copies are gone with it, or it no longer has a fence. */
  async forget(work: string, signal: AbortSignal): Promise<void> {
    // Until the record was read once, what it holds is unknown: ask the store.
    if (this.#loaded && !this.#record.entries.some((e) => e.work === work)) return;
    await this.#gate.run(async () => {
      this.#setRecord(
        await this.#deps.store.update(
          (r) => (r.entries.some((e) => e.work === work) ? withoutWork(r, work) : undefined),
          signal,
        ),
      );
    });
  }

  /** Looks at the record and fences what is due, until `signal` aborts. Errors are retried. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.#deps.log.child({ component: 'self-fence' });
    const stopped = (): boolean => signal.aborted;
    while (!stopped()) {
      let waitMs = this.#deps.checkIntervalMs;
      try {
        waitMs = Math.min(waitMs, await this.#gate.run(() => this.#tick(log, signal)));
      } catch (err: unknown) {
        if (stopped()) return;
        log.warn({ err }, 'fence record could not be read or written; retrying');
        waitMs = Math.min(waitMs, 1_000);
      }
      try {
        await this.#deps.clock.sleep(Math.max(0, waitMs), signal);
      } catch {
        return; // stopping
      }
    }
  }

  /** One look: the record read, the renewal time saved, due entries fenced. Returns the next wait. */
  async #tick(log: Logger, signal: AbortSignal): Promise<number> {
    const parsed = await this.#deps.store.load(signal);
    for (const problem of parsed.problems) log.error({ problem }, 'fence record partly unreadable');
    this.#setRecord(parsed.record);
    await this.#saveRenewal(signal);
    const plan = planFence(this.#record, this.#base(), this.#deps.clock.monotonic());
    if (plan.due.length > 0) await this.#fence(plan.due, log, signal);
    await this.#finishDeletes(signal);
    await this.#pruneReleased(signal);
    return plan.nextInMs ?? Number.POSITIVE_INFINITY;
  }

  /** Keeps the record's renewal time current while it lists copies, for other replicas and restarts. */
  async #saveRenewal(signal: AbortSignal): Promise<void> {
    const wall = this.#renewedWallMs();
    if (wall === undefined || this.#record.entries.length === 0) return;
    if (this.#record.lastRenewalMs !== undefined && this.#record.lastRenewalMs >= wall) return;
    this.#setRecord(
      await this.#deps.store.update(
        (r) =>
          r.lastRenewalMs !== undefined && r.lastRenewalMs >= wall
            ? undefined
            : { ...r, lastRenewalMs: wall },
        signal,
      ),
    );
  }

  /** Deletes the copies first (that is the fence), then marks the entries fenced. */
  async #fence(due: readonly FenceEntry[], log: Logger, signal: AbortSignal): Promise<void> {
    const base = this.#base();
    for (const e of due) {
      await this.#deleteObjects(e, signal);
      log.warn(
        {
          work: e.work,
          fenceSeconds: e.fenceSeconds,
          sinceRenewalMs: base === undefined ? undefined : Math.round(this.#deps.clock.monotonic() - base),
        },
        'no Lease renewal for the fence timeout: copies deleted',
      );
    }
    const uids = new Set(due.map((e) => e.uid));
    this.#setRecord(
      await this.#deps.store.update((r) => markedFenced(r, uids, this.#deps.clock.now()), signal),
    );
    for (const e of due) {
      this.#deps.metrics.workFenced();
      this.#deps.onFenced?.(e.work);
    }
  }

  /** Fenced entries whose deletion this process has not seen succeed (a restart, or an error). */
  async #finishDeletes(signal: AbortSignal): Promise<void> {
    for (const e of this.#record.entries) {
      if (e.fencedAt !== undefined && !this.#deleted.has(e.uid)) await this.#deleteObjects(e, signal);
    }
  }

  /** Drops fenced entries whose Work is gone: nothing can apply them again. */
  async #pruneReleased(signal: AbortSignal): Promise<void> {
    const exists = this.#workExists;
    if (exists === undefined) return;
    const gone = (e: FenceEntry): boolean =>
      e.fencedAt !== undefined && this.#deleted.has(e.uid) && exists(e.work, e.uid) === false;
    if (!this.#record.entries.some(gone)) return;
    this.#setRecord(
      await this.#deps.store.update((r) => {
        const kept = r.entries.filter((e) => !gone(e));
        return kept.length === r.entries.length ? undefined : { ...r, entries: kept };
      }, signal),
    );
  }

  async #deleteObjects(e: FenceEntry, signal: AbortSignal): Promise<void> {
    for (const ref of e.objects) await this.#deps.deleteObject(ref, e.work, signal);
    this.#deleted.add(e.uid);
  }

  #fencedPermit(entry: Omit<FenceEntry, 'fencedAt'>): ApplyPermit {
    const found = this.#record.entries.find((e) => e.work === entry.work && e.uid === entry.uid);
    return { kind: 'fenced', ...(found?.fencedAt === undefined ? {} : { fencedAt: found.fencedAt }) };
  }

  #isDue(entry: Omit<FenceEntry, 'fencedAt'>): boolean {
    const plan = planFence({ entries: [entry] }, this.#base(), this.#deps.clock.monotonic());
    return plan.due.length > 0;
  }

  #base(): number | undefined {
    const clock = this.#deps.clock;
    return renewalBase(this.#renewedAt, this.#record.lastRenewalMs, {
      nowMono: clock.monotonic(),
      nowWall: clock.now(),
    });
  }

  /** This process's last counted renewal on the wall clock. */
  #renewedWallMs(): number | undefined {
    if (this.#renewedAt === undefined) return undefined;
    return this.#deps.clock.now() - (this.#deps.clock.monotonic() - this.#renewedAt);
  }

  #setRecord(record: FenceRecord): void {
    this.#record = record;
    this.#loaded = true;
    this.#deps.metrics.fenceTracked(record.entries.length);
  }
}

function maxOf(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}
