import fc from 'fast-check';
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import {
  idleCompaction,
  memoryReducingCollection,
  shouldCompact,
  type CompactionPolicy,
  type ProcessLook,
} from './idle-compaction.ts';
import { createLogger } from './logger.ts';
import { ManualClock } from './manual-clock.ts';

const MIB = 2 ** 20;
const policy: CompactionPolicy = {
  maxBusyRatio: 0.25,
  minSlackBytes: 32 * MIB,
  minSlackRatio: 0.25,
  minIntervalMs: 300_000,
};

/** A look at a heap of `committedMiB` using `usedMiB`, busy for `busyRatio` of the period. */
function look(busyRatio: number, committedMiB: number, usedMiB: number): ProcessLook {
  return { busyRatio, heapCommittedBytes: committedMiB * MIB, heapUsedBytes: usedMiB * MIB };
}

describe('shouldCompact', () => {
  it.each([
    ['idle, 182 MiB held for 91 used', look(0.02, 182, 91), undefined, true],
    ['busy placing', look(0.9, 182, 91), undefined, false],
    ['busy exactly at the limit', look(0.25, 182, 91), undefined, true],
    ['busy just over the limit', look(0.2501, 182, 91), undefined, false],
    ['slack under 32 MiB', look(0, 100, 69), undefined, false],
    ['slack exactly 32 MiB and a quarter', look(0, 128, 96), undefined, true],
    ['slack large but under a quarter of the heap', look(0, 600, 460), undefined, false],
    ['nothing held beyond use', look(0, 100, 100), undefined, false],
    ['used above committed (statistics read apart)', look(0, 100, 101), undefined, false],
    ['the last compaction too recent', look(0, 182, 91), 299_999, false],
    ['the last compaction exactly an interval ago', look(0, 182, 91), 300_000, true],
  ])('%s', (_name, seen, sinceLastMs, expected) => {
    expect(shouldCompact(seen, sinceLastMs, policy)).toBe(expected);
  });

  it('compacts exactly when idle enough, slack enough by both measures and not too soon', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 4096 }),
        fc.integer({ min: 0, max: 4096 }),
        fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined }),
        (busy, committed, used, sinceLastMs) => {
          const seen = look(busy, committed, used);
          const slackMiB = committed - used;
          const expected =
            busy <= 0.25 &&
            (sinceLastMs === undefined || sinceLastMs >= 300_000) &&
            slackMiB >= 32 &&
            slackMiB * 4 >= committed;
          expect(shouldCompact(seen, sinceLastMs, policy)).toBe(expected);
        },
      ),
    );
  });
});

/** Runs the loop with scripted looks; returns what it did once `periods` periods went by. */
async function runLoop(
  looks: readonly ProcessLook[],
  periods: number,
  compact: () => Promise<void> = () => Promise.resolve(),
): Promise<{ compactions: number; seconds: number[]; logs: string }> {
  const clock = new ManualClock();
  let logs = '';
  const log = createLogger({
    component: 't',
    level: 'info',
    destination: { write: (s: string) => void (logs += s) },
  });
  let next = 0;
  // The first look only starts the first period.
  const scripted = [look(1, 0, 0), ...looks];
  let compactions = 0;
  const seconds: number[] = [];
  const runnable = idleCompaction({
    log,
    clock,
    periodMs: 10_000,
    policy,
    look: () => scripted[Math.min(next++, scripted.length - 1)] ?? look(1, 0, 0),
    compact: async () => {
      compactions++;
      await clock.advance(250); // the collection's pause
      await compact();
    },
    onCompacted: (s) => seconds.push(s),
  });
  const stop = new AbortController();
  const running = runnable.start(stop.signal);
  for (let i = 0; i < periods; i++) {
    await clock.advance(10_000);
  }
  stop.abort();
  await running;
  return { compactions, seconds, logs };
}

describe('idleCompaction', () => {
  it('compacts when a look says so and reports the pause', async () => {
    const idleSlack = look(0.02, 182, 91);
    const { compactions, seconds, logs } = await runLoop(
      [look(0.9, 182, 150), idleSlack, look(0, 100, 90)],
      2,
    );
    expect(compactions).toBe(1);
    expect(seconds).toEqual([0.25]);
    expect(logs).toContain('heap compacted after a busy spell');
    expect(logs).toContain('"heapCommittedMiB":182');
    expect(logs).toContain('"heapCommittedAfterMiB":100');
  });

  it('does not compact while busy, however much slack', async () => {
    const { compactions } = await runLoop(
      [look(0.5, 400, 100), look(0.3, 400, 100), look(0.26, 400, 100)],
      3,
    );
    expect(compactions).toBe(0);
  });

  it('compacts at most once per interval, then again once it has passed', async () => {
    // Every look idle with slack; each compaction's own look after it is skipped by the script.
    // At 10 s, then not before 310 s: the 250 ms pause moves the later looks to 20.25 s, 30.25 s…
    const { compactions } = await runLoop([look(0, 182, 91)], 30);
    expect(compactions).toBe(1);
    const twice = await runLoop([look(0, 182, 91)], 31);
    expect(twice.compactions).toBe(2);
  });

  it('stops trying after a collection that failed, and says so', async () => {
    const { compactions, logs } = await runLoop([look(0, 182, 91)], 40, () =>
      Promise.reject(new Error('no inspector')),
    );
    expect(compactions).toBe(1);
    expect(logs).toContain('heap compaction failed; not trying again');
  });

  it('ends when its signal aborts', async () => {
    const { compactions } = await runLoop([], 0);
    expect(compactions).toBe(0);
  });
});

/** Makes `count` objects that survive into the old generation, and lets them go. */
function leaveGarbage(count: number): number {
  const garbage: { name: string; values: number[] }[] = [];
  for (let i = 0; i < count; i++) garbage.push({ name: `object-${i}`, values: [i, i + 1, i + 2] });
  return garbage.length;
}

describe('memoryReducingCollection', () => {
  it('returns the pages of garbage to the system', async () => {
    expect(leaveGarbage(600_000)).toBe(600_000);
    const before = getHeapStatistics().total_heap_size;
    await memoryReducingCollection();
    const after = getHeapStatistics().total_heap_size;
    expect(before - after).toBeGreaterThan(40 * MIB);
  });
});
