import { describe, expect, it } from 'vitest';
import { ManualClock, createLogger } from '@kf/runtime';
import {
  EMPTY_FENCE_RECORD,
  type FenceEntry,
  type FenceRecord,
  type ObjectRef,
  type ParsedRecord,
} from './fence-plan.ts';
import type { FenceRecordStore } from './fence-store.ts';
import { SelfFence, type ApplyPermit } from './self-fence.ts';

const START = Date.UTC(2026, 0, 1);

function iso(wallMs: number): string {
  return new Date(wallMs).toISOString();
}

type StoreOp = 'load' | 'update';

/** The record in memory; `failNext` makes the next calls of an operation throw. */
class MemoryStore implements FenceRecordStore {
  record: FenceRecord;
  /** Calls of `update` that changed the record. */
  writes = 0;
  /** Calls of `update`, whether they changed the record or not. */
  updates = 0;
  readonly #failures: Record<StoreOp, number> = { load: 0, update: 0 };

  constructor(record: FenceRecord = EMPTY_FENCE_RECORD) {
    this.record = record;
  }

  failNext(op: StoreOp, times = 1): void {
    this.#failures[op] += times;
  }

  load(): Promise<ParsedRecord> {
    if (this.#fails('load')) return Promise.reject(new Error('load failed'));
    return Promise.resolve({ record: this.record, problems: [] });
  }

  update(mutate: (r: FenceRecord) => FenceRecord | undefined): Promise<FenceRecord> {
    this.updates++;
    if (this.#fails('update')) return Promise.reject(new Error('update failed'));
    const next = mutate(this.record);
    if (next !== undefined) {
      this.record = next;
      this.writes++;
    }
    return Promise.resolve(this.record);
  }

  #fails(op: StoreOp): boolean {
    if (this.#failures[op] === 0) return false;
    this.#failures[op]--;
    return true;
  }
}

interface Deleted {
  readonly ref: ObjectRef;
  readonly work: string;
}

interface Harness {
  readonly store: MemoryStore;
  readonly clock: ManualClock;
  readonly fence: SelfFence;
  readonly deleted: Deleted[];
  readonly onFenced: string[];
  readonly metrics: { fenced: number; tracked: number[] };
}

interface HarnessOptions {
  readonly store?: MemoryStore;
  readonly clock?: ManualClock;
  readonly checkIntervalMs?: number;
  /** Runs before each deletion is recorded; may block it or throw. */
  readonly beforeDelete?: (d: Deleted) => Promise<void>;
}

function harness(opts: HarnessOptions = {}): Harness {
  const store = opts.store ?? new MemoryStore();
  const clock = opts.clock ?? new ManualClock(START);
  const deleted: Deleted[] = [];
  const onFenced: string[] = [];
  const metrics = { fenced: 0, tracked: [] as number[] };
  const fence = new SelfFence({
    store,
    clock,
    log: createLogger({ component: 'test', level: 'silent' }),
    checkIntervalMs: opts.checkIntervalMs ?? 2_000,
    metrics: {
      workFenced: () => {
        metrics.fenced++;
      },
      fenceTracked: (count) => {
        metrics.tracked.push(count);
      },
    },
    deleteObject: async (ref, work) => {
      await opts.beforeDelete?.({ ref, work });
      deleted.push({ ref, work });
    },
    onFenced: (work) => {
      onFenced.push(work);
    },
  });
  return { store, clock, fence, deleted, onFenced, metrics };
}

/** Lets pending promise continuations run (one macrotask turn). */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Waits until the fence loop sleeps between two looks at the record. */
async function parked(clock: ManualClock): Promise<void> {
  for (let i = 0; i < 100 && clock.pendingSleeps() === 0; i++) await turn();
  expect(clock.pendingSleeps()).toBeGreaterThan(0);
}

/** Starts the fence loop and waits for its first look; `stop` ends it and waits for it. */
async function startLoop(h: Harness): Promise<{ stop: () => Promise<void> }> {
  const ac = new AbortController();
  const done = h.fence.run(ac.signal);
  await parked(h.clock);
  return {
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
}

function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const deployment: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'app', name: 'web' };
const service: ObjectRef = { apiVersion: 'v1', kind: 'Service', namespace: 'app', name: 'web' };

function entry(
  work: string,
  overrides: Partial<Omit<FenceEntry, 'fencedAt'>> = {},
): Omit<FenceEntry, 'fencedAt'> {
  return { work, uid: `uid-${work}`, fenceSeconds: 10, objects: [deployment, service], ...overrides };
}

/** withPermit with an apply that counts its calls. */
async function permit(
  h: Harness,
  e: Omit<FenceEntry, 'fencedAt'>,
): Promise<{ permit: ApplyPermit; applied: number }> {
  let applied = 0;
  const result = await h.fence.withPermit(
    e,
    () => {
      applied++;
      return Promise.resolve();
    },
    new AbortController().signal,
  );
  return { permit: result, applied };
}

function deletionsOf(e: Omit<FenceEntry, 'fencedAt'>): Deleted[] {
  return e.objects.map((ref) => ({ ref, work: e.work }));
}

const noSignal = new AbortController().signal;

describe('SelfFence.withPermit', () => {
  it('waits, without applying or writing, until this process has counted a renewal', async () => {
    const h = harness();
    expect(h.fence.hasRenewed()).toBe(false);
    expect(await permit(h, entry('ns/a'))).toEqual({ permit: { kind: 'wait' }, applied: 0 });
    expect(h.store.updates).toBe(0);
    expect(h.store.record).toBe(EMPTY_FENCE_RECORD);
  });

  it('waits even for a Work the record lists, and even when another process renewed', async () => {
    const e = entry('ns/a');
    const h = harness({ store: new MemoryStore({ lastRenewalMs: START, entries: [e] }) });
    const loop = await startLoop(h);
    expect(h.fence.record.entries).toEqual([e]);
    expect(await permit(h, e)).toEqual({ permit: { kind: 'wait' }, applied: 0 });
    await loop.stop();
  });

  it('records the entry and the wall time of the renewal before applying', async () => {
    const h = harness();
    await h.clock.advance(5_000);
    h.fence.renewed(3_000);
    expect(h.fence.hasRenewed()).toBe(true);
    const e = entry('ns/a');
    let seen: FenceRecord | undefined;
    const result = await h.fence.withPermit(
      e,
      () => {
        seen = h.store.record;
        return Promise.resolve();
      },
      noSignal,
    );
    expect(result).toEqual({ kind: 'apply' });
    // The renewal started 2 s before now: on the wall clock, 2 s before the wall clock's now.
    expect(seen).toEqual({ lastRenewalMs: START + 3_000, entries: [e] });
    expect(h.store.record).toEqual(seen);
    expect(h.fence.record).toEqual(seen);
    expect(h.metrics.tracked.at(-1)).toBe(1);
  });

  it('applies a Work the record lists already without writing again', async () => {
    const h = harness();
    h.fence.renewed(0);
    const e = entry('ns/a');
    expect(await permit(h, e)).toEqual({ permit: { kind: 'apply' }, applied: 1 });
    expect(h.store.writes).toBe(1);
    expect(await permit(h, { ...e, objects: [...e.objects] })).toEqual({
      permit: { kind: 'apply' },
      applied: 1,
    });
    expect(h.store.updates).toBe(1);
  });

  it('never applies a fenced Work, even when the first look at the record failed', async () => {
    const e = entry('ns/a');
    const fencedAt = iso(START - 60_000);
    const store = new MemoryStore({ lastRenewalMs: START - 120_000, entries: [{ ...e, fencedAt }] });
    store.failNext('load');
    const h = harness({ store, checkIntervalMs: 600_000 });
    const loop = await startLoop(h);
    h.fence.renewed(h.clock.monotonic());
    expect(await permit(h, e)).toEqual({ permit: { kind: 'fenced', fencedAt }, applied: 0 });
    expect(store.record.entries).toEqual([{ ...e, fencedAt }]);
    await loop.stop();
  });

  it('never applies a Work another replica fenced since this process last looked', async () => {
    const h = harness();
    h.fence.renewed(0);
    const e = entry('ns/a');
    expect(await permit(h, e)).toEqual({ permit: { kind: 'apply' }, applied: 1 });
    const fencedAt = iso(START + 1_000);
    h.store.record = { ...h.store.record, entries: [{ ...e, fencedAt }] };
    expect(await permit(h, e)).toEqual({ permit: { kind: 'fenced', fencedAt }, applied: 0 });
  });

  it('records the entry again when it names a new object or its timeout changes; keeps objects once listed', async () => {
    const h = harness();
    h.fence.renewed(0);
    const e = entry('ns/a');
    await permit(h, e);
    const renamed: ObjectRef = { ...deployment, name: 'web-v2' };
    const more = { ...e, objects: [renamed] };
    expect(await permit(h, more)).toEqual({ permit: { kind: 'apply' }, applied: 1 });
    // The objects listed before stay: a copy the manifest no longer names may still run.
    expect(h.store.record.entries).toEqual([{ ...more, objects: [renamed, ...e.objects] }]);
    const longer = { ...more, fenceSeconds: 20 };
    expect(await permit(h, longer)).toEqual({ permit: { kind: 'apply' }, applied: 1 });
    expect(h.store.record.entries).toEqual([{ ...longer, objects: [renamed, ...e.objects] }]);
    expect(h.store.writes).toBe(3);
    // Fewer objects than listed: nothing to write.
    expect(await permit(h, { ...longer, objects: [] })).toEqual({ permit: { kind: 'apply' }, applied: 1 });
    expect(h.store.writes).toBe(3);
  });

  it('keeps the other entries and a later renewal time the record already holds', async () => {
    const other = { ...entry('ns/other'), fencedAt: iso(START - 1_000) };
    const store = new MemoryStore({ lastRenewalMs: START + 60_000, entries: [other] });
    const h = harness({ store });
    h.fence.renewed(0);
    const e = entry('ns/a');
    expect(await permit(h, e)).toEqual({ permit: { kind: 'apply' }, applied: 1 });
    expect(store.record).toEqual({ lastRenewalMs: START + 60_000, entries: [other, e] });
  });

  it('counts from the latest of several renewals', async () => {
    const h = harness();
    await h.clock.advance(6_000);
    h.fence.renewed(5_000);
    h.fence.renewed(3_000);
    await permit(h, entry('ns/a'));
    expect(h.store.record.lastRenewalMs).toBe(START + 5_000);
  });

  it('does not apply when the entry cannot be recorded', async () => {
    const h = harness();
    h.fence.renewed(0);
    h.store.failNext('update');
    let applied = 0;
    await expect(
      h.fence.withPermit(
        entry('ns/a'),
        () => {
          applied++;
          return Promise.resolve();
        },
        noSignal,
      ),
    ).rejects.toThrow('update failed');
    expect(applied).toBe(0);
    expect(h.store.record).toBe(EMPTY_FENCE_RECORD);
    // The gate is free again.
    expect(await permit(h, entry('ns/a'))).toEqual({ permit: { kind: 'apply' }, applied: 1 });
  });

  it('passes on the failure of apply and stays usable', async () => {
    const h = harness();
    h.fence.renewed(0);
    await expect(
      h.fence.withPermit(entry('ns/a'), () => Promise.reject(new Error('boom')), noSignal),
    ).rejects.toThrow('boom');
    expect(h.store.record.entries).toEqual([entry('ns/a')]);
    expect(await permit(h, entry('ns/a'))).toEqual({ permit: { kind: 'apply' }, applied: 1 });
  });

  it('refuses, without applying, once the deadline has passed without a renewal', async () => {
    const h = harness();
    h.fence.renewed(0);
    const e = entry('ns/a');
    await h.clock.advance(9_999);
    expect(await permit(h, e)).toEqual({ permit: { kind: 'apply' }, applied: 1 });
    await h.clock.advance(1);
    expect(await permit(h, e)).toEqual({ permit: { kind: 'fenced' }, applied: 0 });
    // A Work not recorded yet, with the same timeout: too late as well, and nothing written.
    const writes = h.store.writes;
    expect(await permit(h, entry('ns/b'))).toEqual({ permit: { kind: 'fenced' }, applied: 0 });
    expect(h.store.writes).toBe(writes);
    // A longer timeout still has time.
    expect(await permit(h, entry('ns/c', { fenceSeconds: 30 }))).toEqual({
      permit: { kind: 'apply' },
      applied: 1,
    });
  });
});

describe('SelfFence.run', () => {
  it('deletes the copies and marks the entry once no renewal came for the fence timeout', async () => {
    const h = harness({ checkIntervalMs: 2_000 });
    h.fence.renewed(0);
    const e = entry('ns/a');
    expect(await permit(h, e)).toEqual({ permit: { kind: 'apply' }, applied: 1 });
    const loop = await startLoop(h);

    await h.clock.advance(9_999);
    expect(h.deleted).toEqual([]);
    expect(h.store.record.entries).toEqual([e]);
    expect(h.onFenced).toEqual([]);
    expect(h.metrics.fenced).toBe(0);

    await h.clock.advance(1);
    expect(h.deleted).toEqual(deletionsOf(e));
    const fencedAt = iso(START + 10_000);
    expect(h.store.record.entries).toEqual([{ ...e, fencedAt }]);
    expect(h.fence.record).toEqual(h.store.record);
    expect(h.onFenced).toEqual(['ns/a']);
    expect(h.metrics.fenced).toBe(1);

    // Never applied again, even after a renewal.
    expect(await permit(h, e)).toEqual({ permit: { kind: 'fenced', fencedAt }, applied: 0 });
    h.fence.renewed(h.clock.monotonic());
    expect(await permit(h, e)).toEqual({ permit: { kind: 'fenced', fencedAt }, applied: 0 });

    // Later looks neither delete again nor count it again.
    await h.clock.advance(30_000);
    expect(h.deleted).toEqual(deletionsOf(e));
    expect(h.onFenced).toEqual(['ns/a']);
    expect(h.metrics.fenced).toBe(1);
    expect(h.store.record.entries).toEqual([{ ...e, fencedAt }]);
    await loop.stop();
  });

  it('drops a fenced entry once its Work is gone, never an unfenced one, nor one not known gone', async () => {
    const h = harness({ checkIntervalMs: 2_000 });
    h.fence.renewed(0);
    const a = entry('ns/a');
    const b = entry('ns/b');
    await permit(h, a);
    const loop = await startLoop(h);
    await h.clock.advance(10_000); // a fenced
    h.fence.renewed(h.clock.monotonic());
    await permit(h, b); // b is recorded after a renewal
    const present = new Map<string, boolean | undefined>([
      ['ns/a', undefined],
      ['ns/b', false],
    ]);
    h.fence.knowWorks((work) => present.get(work));
    await h.clock.advance(2_000);
    // Not known gone (the cache has not listed): kept; unfenced b: kept although gone.
    expect(h.store.record.entries.map((e) => e.work)).toEqual(['ns/a', 'ns/b']);
    present.set('ns/a', false);
    await h.clock.advance(2_000);
    expect(h.store.record.entries.map((e) => e.work)).toEqual(['ns/b']);
    await loop.stop();
  });

  it('applies a new Work of the same name (another uid) after its predecessor was fenced', async () => {
    const h = harness();
    h.fence.renewed(0);
    const e = entry('ns/a');
    await permit(h, e);
    const loop = await startLoop(h);
    await h.clock.advance(10_000);
    expect(h.deleted).toEqual(deletionsOf(e));
    h.fence.renewed(h.clock.monotonic());
    const next = { ...e, uid: 'uid-2' };
    expect(await permit(h, next)).toEqual({ permit: { kind: 'apply' }, applied: 1 });
    expect(h.store.record.entries).toEqual([next]);
    await loop.stop();
  });

  it('fences each entry at its own deadline, waking for the nearest one', async () => {
    // A check interval longer than any timeout: only the plan's next deadline wakes the loop.
    const h = harness({ checkIntervalMs: 600_000 });
    h.fence.renewed(0);
    const short = entry('ns/short', { fenceSeconds: 10, objects: [deployment] });
    const long = entry('ns/long', { fenceSeconds: 30, objects: [service] });
    await permit(h, short);
    await permit(h, long);
    const loop = await startLoop(h);

    await h.clock.advance(9_999);
    expect(h.deleted).toEqual([]);
    await h.clock.advance(1);
    expect(h.deleted).toEqual(deletionsOf(short));
    expect(h.onFenced).toEqual(['ns/short']);

    await h.clock.advance(19_999);
    expect(h.deleted).toEqual(deletionsOf(short));
    await h.clock.advance(1);
    expect(h.deleted).toEqual([...deletionsOf(short), ...deletionsOf(long)]);
    expect(h.onFenced).toEqual(['ns/short', 'ns/long']);
    expect(h.metrics.fenced).toBe(2);
    expect(h.store.record.entries).toEqual([
      { ...short, fencedAt: iso(START + 10_000) },
      { ...long, fencedAt: iso(START + 30_000) },
    ]);
    await loop.stop();
  });

  it("counts a renewal that succeeded late from its tick's start, never from its success", async () => {
    // A renewal may take up to the Lease duration − one interval on a slow link. The control plane
    // saw it no earlier than it was sent, after the tick started: counting from the start keeps the
    // deadline no later than that renewal + the timeout, however late the answer came.
    const h = harness({ checkIntervalMs: 2_000 });
    h.fence.renewed(0);
    const e = entry('ns/a');
    await permit(h, e);
    const loop = await startLoop(h);
    // A tick starts at 4 s; its answer comes at 9 s, before the deadline of the renewal at 0.
    await h.clock.advance(9_000);
    h.fence.renewed(4_000);
    await h.clock.advance(2_000); // the next look saves the tick's start, not the answer's time
    expect(h.store.record.lastRenewalMs).toBe(START + 4_000);
    // Due at 4 s + 10 s = 14 s, not at 9 s + 10 s = 19 s.
    await h.clock.advance(2_999);
    expect(h.deleted).toEqual([]);
    await h.clock.advance(1);
    expect(h.deleted).toEqual(deletionsOf(e));
    expect(h.store.record.entries).toEqual([{ ...e, fencedAt: iso(START + 14_000) }]);
    await loop.stop();
  });

  it('stays fenced when a renewal sent before the deadline is answered after it', async () => {
    const h = harness({ checkIntervalMs: 1_000 });
    h.fence.renewed(0);
    const e = entry('ns/a');
    await permit(h, e);
    const loop = await startLoop(h);
    // A tick starts at 5 s; the deadline (10 s) passes while it waits; its answer comes at 12 s.
    await h.clock.advance(10_000);
    expect(h.deleted).toEqual(deletionsOf(e));
    const fencedAt = iso(START + 10_000);
    await h.clock.advance(2_000);
    h.fence.renewed(5_000);
    await h.clock.advance(30_000);
    expect(h.deleted).toEqual(deletionsOf(e));
    expect(h.store.record.entries).toEqual([{ ...e, fencedAt }]);
    expect(await permit(h, e)).toEqual({ permit: { kind: 'fenced', fencedAt }, applied: 0 });
    await loop.stop();
  });

  it('is kept away by renewals, and saves the newer renewal time while the record lists copies', async () => {
    const h = harness({ checkIntervalMs: 2_000 });
    h.fence.renewed(0);
    const e = entry('ns/a');
    await permit(h, e);
    expect(h.store.record.lastRenewalMs).toBe(START);
    const loop = await startLoop(h);
    for (let i = 0; i < 6; i++) {
      // Each renewal 9 s after the one before: within the 10 s timeout.
      await h.clock.advance(9_000);
      expect(h.deleted).toEqual([]);
      // The loop saved the renewal counted before this step.
      expect(h.store.record.lastRenewalMs).toBe(START + h.clock.monotonic() - 9_000);
      h.fence.renewed(h.clock.monotonic());
    }
    expect(h.store.record.entries).toEqual([e]);
    expect(h.onFenced).toEqual([]);
    expect(h.metrics.fenced).toBe(0);
    expect(await permit(h, e)).toEqual({ permit: { kind: 'apply' }, applied: 1 });
    await loop.stop();
  });

  it('does not write the renewal time while the record lists nothing', async () => {
    const h = harness({ checkIntervalMs: 2_000 });
    h.fence.renewed(0);
    const loop = await startLoop(h);
    for (let i = 0; i < 3; i++) {
      await h.clock.advance(5_000);
      h.fence.renewed(h.clock.monotonic());
    }
    expect(h.store.updates).toBe(0);
    expect(h.store.record).toBe(EMPTY_FENCE_RECORD);
    await loop.stop();
  });

  it('does not move the record renewal time back to an older renewal of its own', async () => {
    const e = entry('ns/a');
    const store = new MemoryStore({ lastRenewalMs: START + 100_000, entries: [e] });
    const h = harness({ store, checkIntervalMs: 2_000 });
    h.fence.renewed(0);
    const loop = await startLoop(h);
    await h.clock.advance(4_000);
    expect(store.record.lastRenewalMs).toBe(START + 100_000);
    expect(store.writes).toBe(0);
    await loop.stop();
  });

  it('fences at once, after a restart, when the record renewal plus the timeout is already past', async () => {
    const e = entry('ns/a');
    const lastRenewalMs = START;
    const store = new MemoryStore({ lastRenewalMs, entries: [e] });
    const clock = new ManualClock(lastRenewalMs + 15_000);
    const h = harness({ store, clock });
    const loop = await startLoop(h);
    expect(h.deleted).toEqual(deletionsOf(e));
    expect(store.record.entries).toEqual([{ ...e, fencedAt: iso(lastRenewalMs + 15_000) }]);
    expect(store.record.lastRenewalMs).toBe(lastRenewalMs);
    expect(h.onFenced).toEqual(['ns/a']);
    expect(h.metrics.fenced).toBe(1);
    await loop.stop();
  });

  it('fences, after a restart, when the record renewal plus the timeout comes, not before', async () => {
    const e = entry('ns/a');
    const lastRenewalMs = START;
    const store = new MemoryStore({ lastRenewalMs, entries: [e] });
    const clock = new ManualClock(lastRenewalMs + 4_000);
    const h = harness({ store, clock, checkIntervalMs: 600_000 });
    const loop = await startLoop(h);
    expect(h.deleted).toEqual([]);
    await clock.advance(5_999);
    expect(h.deleted).toEqual([]);
    expect(store.record.entries).toEqual([e]);
    await clock.advance(1);
    expect(h.deleted).toEqual(deletionsOf(e));
    expect(store.record.entries).toEqual([{ ...e, fencedAt: iso(lastRenewalMs + 10_000) }]);
    expect(h.onFenced).toEqual(['ns/a']);
    await loop.stop();
  });

  it('fences, in a process restarted over the same record, from the renewal the previous one saved', async () => {
    const store = new MemoryStore();
    const first = harness({ store, checkIntervalMs: 2_000 });
    first.fence.renewed(0);
    const e = entry('ns/a');
    await permit(first, e);
    const firstLoop = await startLoop(first);
    await first.clock.advance(3_000);
    first.fence.renewed(3_000);
    await first.clock.advance(1_000);
    expect(store.record.lastRenewalMs).toBe(START + 3_000);
    await firstLoop.stop();

    // Back 2 s later, with a monotonic clock that starts again from zero.
    const clock = new ManualClock(first.clock.now() + 2_000);
    const second = harness({ store, clock, checkIntervalMs: 2_000 });
    const loop = await startLoop(second);
    await clock.advance(6_999);
    expect(second.deleted).toEqual([]);
    await clock.advance(1);
    expect(second.deleted).toEqual(deletionsOf(e));
    expect(store.record.entries).toEqual([{ ...e, fencedAt: iso(START + 13_000) }]);
    expect(second.onFenced).toEqual(['ns/a']);
    expect(first.deleted).toEqual([]);
    await loop.stop();
  });

  it('fences every unfenced entry at once when the record has no renewal time', async () => {
    const a = entry('ns/a', { fenceSeconds: 3_600, objects: [deployment] });
    const b = entry('ns/b', { fenceSeconds: 60, objects: [service] });
    const earlier = { ...entry('ns/c', { objects: [deployment] }), fencedAt: iso(START - 60_000) };
    const store = new MemoryStore({ entries: [a, earlier, b] });
    const h = harness({ store });
    const loop = await startLoop(h);
    const at = iso(START);
    expect(store.record).toEqual({
      entries: [{ ...a, fencedAt: at }, earlier, { ...b, fencedAt: at }],
    });
    // The due entries first; then the entry fenced before, whose deletion this process has not seen.
    expect(h.deleted).toEqual([...deletionsOf(a), ...deletionsOf(b), ...deletionsOf(earlier)]);
    expect(h.onFenced).toEqual(['ns/a', 'ns/b']);
    expect(h.metrics.fenced).toBe(2);
    expect(h.metrics.tracked.at(-1)).toBe(3);

    await h.clock.advance(10_000);
    expect(h.deleted).toHaveLength(3);
    await loop.stop();
  });

  it('goes on after a failed load, and fences on the next look, at most 1 s later', async () => {
    const e = entry('ns/a');
    const store = new MemoryStore({ entries: [e] });
    store.failNext('load');
    const h = harness({ store, checkIntervalMs: 600_000 });
    const loop = await startLoop(h);
    expect(h.deleted).toEqual([]);
    await h.clock.advance(999);
    expect(h.deleted).toEqual([]);
    await h.clock.advance(1);
    expect(h.deleted).toEqual(deletionsOf(e));
    expect(store.record.entries).toEqual([{ ...e, fencedAt: iso(START + 1_000) }]);
    expect(h.onFenced).toEqual(['ns/a']);
    await loop.stop();
  });

  it('deletes again and marks on the next look when marking failed', async () => {
    const e = entry('ns/a');
    const store = new MemoryStore({ entries: [e] });
    store.failNext('update');
    const h = harness({ store, checkIntervalMs: 600_000 });
    const loop = await startLoop(h);
    expect(h.deleted).toEqual(deletionsOf(e));
    expect(store.record.entries).toEqual([e]);
    expect(h.onFenced).toEqual([]);
    await h.clock.advance(1_000);
    expect(h.deleted).toEqual([...deletionsOf(e), ...deletionsOf(e)]);
    expect(store.record.entries).toEqual([{ ...e, fencedAt: iso(START + 1_000) }]);
    expect(h.onFenced).toEqual(['ns/a']);
    expect(h.metrics.fenced).toBe(1);
    await loop.stop();
  });

  it('goes on after a failed deletion, and fences on the next look', async () => {
    const e = entry('ns/a');
    const store = new MemoryStore({ entries: [e] });
    let failures = 1;
    const h = harness({
      store,
      checkIntervalMs: 600_000,
      beforeDelete: () => (failures-- > 0 ? Promise.reject(new Error('delete failed')) : Promise.resolve()),
    });
    const loop = await startLoop(h);
    expect(h.deleted).toEqual([]);
    expect(store.record.entries).toEqual([e]);
    await h.clock.advance(1_000);
    expect(h.deleted).toEqual(deletionsOf(e));
    expect(store.record.entries).toEqual([{ ...e, fencedAt: iso(START + 1_000) }]);
    await loop.stop();
  });

  it('ends when stopped while it sleeps, and does not start when stopped before', async () => {
    const h = harness();
    const loop = await startLoop(h);
    await loop.stop();
    expect(h.clock.pendingSleeps()).toBe(0);

    const ac = new AbortController();
    ac.abort();
    await h.fence.run(ac.signal);
    expect(h.clock.pendingSleeps()).toBe(0);
  });
});

describe('SelfFence.forget', () => {
  it("removes the Work's entries from the record", async () => {
    const h = harness();
    h.fence.renewed(0);
    const a = entry('ns/a');
    const b = entry('ns/b');
    await permit(h, a);
    await permit(h, b);
    const writes = h.store.writes;
    await h.fence.forget('ns/a', noSignal);
    expect(h.store.record).toEqual({ lastRenewalMs: START, entries: [b] });
    expect(h.fence.record).toEqual(h.store.record);
    expect(h.store.writes).toBe(writes + 1);
    expect(h.metrics.tracked.at(-1)).toBe(1);
  });

  it('does not touch the store when the Work has no entry', async () => {
    const h = harness();
    h.fence.renewed(0);
    await permit(h, entry('ns/a'));
    const updates = h.store.updates;
    const before = h.store.record;
    await h.fence.forget('ns/none', noSignal);
    expect(h.store.updates).toBe(updates);
    expect(h.store.record).toBe(before);
  });

  it('asks the store when the record was never read, so a failed first look cannot keep an entry', async () => {
    const e = entry('ns/a');
    const store = new MemoryStore({ lastRenewalMs: START, entries: [e] });
    const h = harness({ store });
    await h.fence.forget('ns/a', noSignal);
    expect(store.record.entries).toEqual([]);
  });

  it('writes nothing when the stored record no longer lists the Work', async () => {
    const h = harness();
    h.fence.renewed(0);
    await permit(h, entry('ns/a'));
    h.store.record = { lastRenewalMs: START, entries: [] };
    const writes = h.store.writes;
    await h.fence.forget('ns/a', noSignal);
    expect(h.store.writes).toBe(writes);
    expect(h.fence.record).toEqual({ lastRenewalMs: START, entries: [] });
  });

  it('drops a fenced entry, so that nothing of the Work is deleted again after a restart', async () => {
    const e = entry('ns/a');
    const store = new MemoryStore({ entries: [{ ...e, fencedAt: iso(START - 1_000) }] });
    const h = harness({ store });
    const loop = await startLoop(h);
    expect(h.deleted).toEqual(deletionsOf(e));
    await h.fence.forget('ns/a', noSignal);
    expect(store.record.entries).toEqual([]);
    await loop.stop();

    const restarted = harness({ store });
    const again = await startLoop(restarted);
    expect(restarted.deleted).toEqual([]);
    await again.stop();
  });
});

describe('SelfFence: applying and fencing exclude each other', () => {
  it('does not delete while an apply is in progress, even past the deadline', async () => {
    const h = harness({ checkIntervalMs: 2_000 });
    const events: string[] = [];
    h.fence.renewed(0);
    const e = entry('ns/a');
    await permit(h, e);
    const loop = await startLoop(h);
    await h.clock.advance(9_000);

    const release = deferred();
    const applying = h.fence.withPermit(
      e,
      async () => {
        events.push('apply started');
        await release.promise;
        events.push('apply finished');
      },
      noSignal,
    );
    await turn();
    expect(events).toEqual(['apply started']);

    await h.clock.advance(1_000);
    await h.clock.advance(5_000);
    expect(h.deleted).toEqual([]);
    expect(h.store.record.entries).toEqual([e]);

    release.resolve();
    expect(await applying).toEqual({ kind: 'apply' });
    await parked(h.clock);
    expect(events).toEqual(['apply started', 'apply finished']);
    expect(h.deleted).toEqual(deletionsOf(e));
    expect(h.store.record.entries).toEqual([{ ...e, fencedAt: iso(START + 15_000) }]);
    await loop.stop();
  });

  it('does not apply while a fence is in progress, and then refuses', async () => {
    const release = deferred();
    const e = entry('ns/a');
    let blocked = false;
    const h = harness({
      checkIntervalMs: 2_000,
      beforeDelete: async () => {
        blocked = true;
        await release.promise;
      },
    });
    h.fence.renewed(0);
    await permit(h, e);
    const loop = await startLoop(h);
    await h.clock.advance(10_000);
    expect(blocked).toBe(true);
    expect(h.deleted).toEqual([]);

    // A renewal now comes too late for this Work: its copies are being deleted.
    h.fence.renewed(h.clock.monotonic());
    let applied = 0;
    const asking = h.fence.withPermit(
      e,
      () => {
        applied++;
        return Promise.resolve();
      },
      noSignal,
    );
    await turn();
    expect(applied).toBe(0);

    release.resolve();
    expect(await asking).toEqual({ kind: 'fenced', fencedAt: iso(START + 10_000) });
    expect(applied).toBe(0);
    expect(h.deleted).toEqual(deletionsOf(e));
    await loop.stop();
  });
});
