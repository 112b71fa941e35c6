import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import { systemClock } from './clock.ts';
import { ManualClock } from './manual-clock.ts';
import { MAX_TIMER_DELAY_MS } from './timer-delay.ts';
import { WorkQueue, type WorkQueueMetrics } from './work-queue.ts';

/** Settles pending continuations, then reports whether `p` has resolved. */
async function settledValue<T>(p: Promise<T>): Promise<{ settled: boolean; value?: T }> {
  let out: { settled: boolean; value?: T } = { settled: false };
  void p.then((value) => (out = { settled: true, value }));
  await new Promise((resolve) => setImmediate(resolve));
  return out;
}

function recordingMetrics(): WorkQueueMetrics & {
  adds: number;
  retries: number;
  passKeys: number;
  depths: number[];
  waits: number[];
  works: number[];
} {
  const m = {
    adds: 0,
    retries: 0,
    passKeys: 0,
    depths: [] as number[],
    waits: [] as number[],
    works: [] as number[],
    depth: (n: number) => m.depths.push(n),
    added: () => {
      m.adds++;
    },
    retried: () => {
      m.retries++;
    },
    passKey: () => {
      m.passKeys++;
    },
    waited: (s: number) => m.waits.push(s),
    worked: (s: number) => m.works.push(s),
  };
  return m;
}

describe('WorkQueue', () => {
  it('holds a waiting key once however often it is added', async () => {
    const q = new WorkQueue();
    for (const key of ['a', 'a', 'b', 'a', 'b']) q.add(key);
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('hands a key re-added during processing out again only after done', async () => {
    const q = new WorkQueue();
    q.add('a');
    expect(await q.get()).toBe('a');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(0);
    const second = q.get();
    expect((await settledValue(second)).settled).toBe(false);
    q.done('a');
    expect(await settledValue(second)).toEqual({ settled: true, value: 'a' });
    q.done('a');
    expect(q.len()).toBe(0);
    expect(q.inFlight()).toBe(0);
  });

  it('wakes parked workers in order as keys arrive', async () => {
    const q = new WorkQueue();
    const first = q.get();
    const second = q.get();
    q.add('x');
    q.add('y');
    expect(await first).toBe('x');
    expect(await second).toBe('y');
    expect(q.inFlight()).toBe(2);
  });

  it('coalesces a burst of adds of one key even when a worker is parked', async () => {
    const q = new WorkQueue();
    const parked = q.get();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(await parked).toBe('a');
    q.done('a');
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe('b');
  });

  it('ignores done for a key that is not being processed', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.done('a');
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe('a');
    expect(q.len()).toBe(0);
  });

  it('wakes parked workers with undefined on shutdown and ignores later adds', async () => {
    const q = new WorkQueue();
    const parked = q.get();
    q.shutDown();
    expect(await parked).toBeUndefined();
    q.add('a');
    q.addAfter('b', 10);
    q.addRateLimited('c');
    expect(q.len()).toBe(0);
    expect(await q.get()).toBeUndefined();
    expect(q.isShuttingDown()).toBe(true);
  });

  it('drops waiting keys on shutdown', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.shutDown();
    expect(q.len()).toBe(0);
    expect(await q.get()).toBeUndefined();
  });

  it('drains: shutDownWithDrain resolves only after in-flight keys are done', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    await q.get();
    await q.get();
    q.add('a'); // dirty while processing: must not run again after shutdown
    const drained = q.shutDownWithDrain();
    q.done('a');
    expect((await settledValue(drained)).settled).toBe(false);
    q.done('b');
    expect((await settledValue(drained)).settled).toBe(true);
    expect(await q.get()).toBeUndefined();
    await expect(new WorkQueue().shutDownWithDrain()).resolves.toBeUndefined();
  });

  describe('addAfter', () => {
    it('makes the key ready once the delay has passed', async () => {
      const clock = new ManualClock();
      const q = new WorkQueue({ clock });
      q.addAfter('a', 1_000);
      await clock.advance(999);
      expect(q.len()).toBe(0);
      await clock.advance(1);
      expect(q.len()).toBe(1);
      expect(await q.get()).toBe('a');
    });

    it('keeps the earliest deadline per key', async () => {
      const clock = new ManualClock();
      const q = new WorkQueue({ clock });
      q.addAfter('a', 5_000);
      q.addAfter('a', 1_000);
      q.addAfter('a', 3_000);
      await clock.advance(1_000);
      expect(q.len()).toBe(1);
      expect(await q.get()).toBe('a');
      q.done('a');
      await clock.advance(10_000);
      expect(q.len()).toBe(0); // the superseded deadlines do not fire again
      expect(clock.pendingSleeps()).toBe(0);
    });

    it('fires many keys in deadline order with one timer', async () => {
      const clock = new ManualClock();
      const q = new WorkQueue({ clock });
      const delays = [700, 100, 400, 900, 200, 300, 800, 600, 500];
      for (const [i, d] of delays.entries()) q.addAfter(`k${i}`, d);
      expect(clock.pendingSleeps()).toBe(1);
      await clock.advance(1_000);
      const order: (string | undefined)[] = [];
      while (q.len() > 0) order.push(await q.get());
      const expected = [...delays.entries()].sort((a, b) => a[1] - b[1]).map(([i]) => `k${i}`);
      expect(order).toEqual(expected);
    });

    it('adds at once for a zero or negative delay', () => {
      const q = new WorkQueue({ clock: new ManualClock() });
      q.addAfter('a', 0);
      q.addAfter('b', -5);
      expect(q.len()).toBe(2);
    });

    it('cancels the timer on shutdown', async () => {
      const clock = new ManualClock();
      const q = new WorkQueue({ clock });
      q.addAfter('a', 1_000);
      q.shutDown();
      await clock.advance(0);
      expect(clock.pendingSleeps()).toBe(0);
      await clock.advance(2_000);
      expect(q.len()).toBe(0);
    });

    it('does not delay a key that is already waiting', async () => {
      const clock = new ManualClock();
      const q = new WorkQueue({ clock });
      q.add('a');
      q.addAfter('a', 1_000);
      expect(await q.get()).toBe('a');
      q.done('a');
      await clock.advance(1_000);
      expect(await q.get()).toBe('a'); // the delayed add still comes, as a level-triggered recheck
    });
  });

  describe('addRateLimited', () => {
    const policy: BackoffPolicy = { initialMs: 100, maxMs: 1_000, factor: 2, jitter: 0.5 };

    it('backs off exponentially per key up to the cap', async () => {
      const clock = new ManualClock();
      const q = new WorkQueue({ clock, backoff: policy, random: () => 0.5 }); // 0.5 = no jitter
      const delays: number[] = [];
      for (let i = 0; i < 6; i++) {
        const start = clock.monotonic();
        q.addRateLimited('a');
        while (q.len() === 0) await clock.advance(10);
        delays.push(clock.monotonic() - start);
        await q.get();
        q.done('a');
      }
      expect(delays).toEqual([100, 200, 400, 800, 1_000, 1_000]);
      expect(q.failures('a')).toBe(6);
      expect(q.failures('b')).toBe(0);
    });

    it('applies jitter from the injected random source', async () => {
      const clock = new ManualClock();
      const q = new WorkQueue({ clock, backoff: policy, random: () => 0 }); // -50 %
      q.addRateLimited('a');
      await clock.advance(49);
      expect(q.len()).toBe(0);
      await clock.advance(1);
      expect(q.len()).toBe(1);
    });

    it('starts again from the initial delay after forget', async () => {
      const clock = new ManualClock();
      const q = new WorkQueue({ clock, backoff: policy, random: () => 0.5 });
      q.addRateLimited('a');
      q.addRateLimited('a');
      expect(q.failures('a')).toBe(2);
      q.forget('a');
      expect(q.failures('a')).toBe(0);
      await clock.advance(100);
      expect(q.len()).toBe(1); // the first (earliest) retry deadline stands
    });

    it('uses DEFAULT_BACKOFF when no policy is given', async () => {
      const clock = new ManualClock();
      const q = new WorkQueue({ clock, random: () => 0.5 });
      q.addRateLimited('a');
      await clock.advance(DEFAULT_BACKOFF.initialMs - 1);
      expect(q.len()).toBe(0);
      await clock.advance(1);
      expect(q.len()).toBe(1);
    });
  });

  it('reports depth, adds, retries and latencies to the metrics hooks', async () => {
    const clock = new ManualClock();
    const metrics = recordingMetrics();
    const q = new WorkQueue({ clock, metrics, random: () => 0.5 });
    q.add('a');
    q.add('a');
    q.add('b');
    expect(metrics.adds).toBe(2);
    expect(metrics.depths.at(-1)).toBe(2);
    await clock.advance(250);
    await q.get();
    expect(metrics.waits).toEqual([0.25]);
    expect(metrics.depths.at(-1)).toBe(1);
    await clock.advance(1_500);
    q.done('a');
    expect(metrics.works).toEqual([1.5]);
    q.addRateLimited('a');
    expect(metrics.retries).toBe(1);
    q.shutDown();
    expect(metrics.depths.at(-1)).toBe(0);
  });

  it('counts the keys handed out from the background lane, not those a change moved ahead', async () => {
    const metrics = recordingMetrics();
    const q = new WorkQueue({ metrics });
    q.addBackground('pass-1');
    q.addBackground('pass-2');
    q.addBackground('moved');
    q.add('moved'); // a change named it: handed out as a change
    q.add('change');
    const order: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) order.push(await q.get());
    expect(order).toEqual(['moved', 'change', 'pass-1', 'pass-2']);
    expect(metrics.passKeys).toBe(2);
  });

  describe('under concurrency', () => {
    const keys = ['a', 'b', 'c', 'd', 'e'];

    it('never hands a key to two workers and processes every key after its last add', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.scheduler(),
          fc.integer({ min: 1, max: 4 }),
          fc.array(fc.tuple(fc.constantFrom(...keys), fc.boolean()), { minLength: 1, maxLength: 30 }),
          fc.array(fc.tuple(fc.constantFrom(...keys), fc.boolean()), { maxLength: 10 }),
          async (s, workerCount, adds, readds) => {
            const q = new WorkQueue();
            const active = new Set<string>();
            const stats = new Map<
              string,
              { adds: number; runs: number; lastAdd: number; lastStart: number }
            >();
            let tick = 0;
            let pendingReadds = [...readds];
            const stat = (k: string) => {
              let st = stats.get(k);
              if (st === undefined) stats.set(k, (st = { adds: 0, runs: 0, lastAdd: -1, lastStart: -1 }));
              return st;
            };
            const add = ([k, background]: readonly [string, boolean]): void => {
              const st = stat(k);
              st.adds++;
              st.lastAdd = ++tick;
              if (background) q.addBackground(k);
              else q.add(k);
            };
            const worker = async (): Promise<void> => {
              for (let key = await q.get(); key !== undefined; key = await q.get()) {
                expect(active.has(key)).toBe(false);
                active.add(key);
                const st = stat(key);
                st.runs++;
                st.lastStart = ++tick;
                await s.schedule(Promise.resolve(), `work ${key}`);
                const again = pendingReadds.shift();
                if (again !== undefined) add(again); // may hit the key being processed
                await s.schedule(Promise.resolve(), `finish ${key}`);
                active.delete(key);
                q.done(key);
              }
            };
            const workers = Array.from({ length: workerCount }, () => worker());
            for (const a of adds) void s.schedule(Promise.resolve(a), `add ${a[0]}`).then(add);
            await s.waitIdle();
            pendingReadds = [];
            expect(q.len()).toBe(0);
            expect(q.inFlight()).toBe(0);
            for (const st of stats.values()) {
              expect(st.lastStart).toBeGreaterThan(st.lastAdd);
              expect(st.runs).toBeGreaterThanOrEqual(1);
              expect(st.runs).toBeLessThanOrEqual(st.adds);
            }
            q.shutDown();
            await Promise.all(workers);
          },
        ),
        { numRuns: 200 },
      );
    });

    it('keeps its guarantees with many workers and random re-adds (seeded)', async () => {
      // Mulberry32: a small seeded generator, so a failure replays exactly.
      let seed = 0x5eed;
      const rand = (): number => {
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
      const pick = (): string => `k${Math.floor(rand() * 20)}`;
      const ticks = async (n: number): Promise<void> => {
        for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
      };
      const q = new WorkQueue();
      const active = new Set<string>();
      const lastAdd = new Map<string, number>();
      const lastStart = new Map<string, number>();
      let tick = 0;
      let overlaps = 0;
      let runs = 0;
      let addCalls = 0;
      const add = (k: string): void => {
        lastAdd.set(k, ++tick);
        addCalls++;
        q.add(k);
      };
      const worker = async (): Promise<void> => {
        for (let key = await q.get(); key !== undefined; key = await q.get()) {
          if (active.has(key)) overlaps++;
          active.add(key);
          lastStart.set(key, ++tick);
          runs++;
          await ticks(Math.floor(rand() * 3));
          if (rand() < 0.3) add(rand() < 0.5 ? key : pick());
          await ticks(Math.floor(rand() * 2));
          active.delete(key);
          q.done(key);
        }
      };
      const workers = Array.from({ length: 8 }, () => worker());
      for (let i = 0; i < 2_000; i++) {
        add(pick());
        if (rand() < 0.2) await ticks(1);
      }
      await expect.poll(() => q.len() + q.inFlight(), { timeout: 5_000 }).toBe(0);
      expect(overlaps).toBe(0);
      for (const [k, addedAt] of lastAdd) expect(lastStart.get(k)).toBeGreaterThan(addedAt);
      expect(runs).toBeLessThan(addCalls); // deduplication merged adds
      q.shutDown();
      await Promise.all(workers);
    });
  });
});

describe('WorkQueue lanes', () => {
  it('hands out background keys only while no foreground key waits', async () => {
    const q = new WorkQueue();
    q.addBackground('resync-1');
    q.addBackground('resync-2');
    q.add('change');
    expect(q.len()).toBe(3);
    expect(await q.get()).toBe('change');
    q.add('later-change'); // added after the resync, handed out before it
    expect(await q.get()).toBe('later-change');
    expect(await q.get()).toBe('resync-1');
    expect(await q.get()).toBe('resync-2');
    expect(q.len()).toBe(0);
  });

  it('moves a background key to the foreground when it is added there, once', async () => {
    const q = new WorkQueue();
    for (const key of ['a', 'b', 'c']) q.addBackground(key);
    q.add('c');
    q.add('c');
    q.addBackground('c'); // already waiting: stays in the foreground
    expect(q.len()).toBe(3);
    expect(await q.get()).toBe('c');
    q.done('c');
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.len()).toBe(0);
    const next = q.get();
    expect((await settledValue(next)).settled).toBe(false); // c's old place is not handed out
    q.addBackground('d');
    expect(await next).toBe('d');
  });

  it('gives a key re-added while processing the lane of its adds', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    q.addBackground('a'); // a: background only
    q.addBackground('b');
    q.add('b'); // b: promoted while processing
    q.add('x');
    q.done('a');
    q.done('b');
    expect([await q.get(), await q.get(), await q.get()]).toEqual(['x', 'b', 'a']);
  });

  it('holds the background lane until released, handing out foreground keys meanwhile', async () => {
    const q = new WorkQueue({ holdBackground: true });
    q.addBackground('fill-1');
    q.addBackground('fill-2');
    expect(q.len()).toBe(2);
    const first = q.get();
    expect((await settledValue(first)).settled).toBe(false);
    q.add('event');
    expect(await first).toBe('event');
    q.done('event');
    const second = q.get();
    expect((await settledValue(second)).settled).toBe(false);
    q.add('fill-2'); // an event for a held key takes it out of the hold
    expect(await second).toBe('fill-2');
    q.done('fill-2');
    const third = q.get();
    expect((await settledValue(third)).settled).toBe(false);
    q.releaseBackground();
    expect(await third).toBe('fill-1');
    q.releaseBackground(); // idempotent
  });

  it('hands out in lane order, each lane first in first out (any sequence of adds)', async () => {
    // Reference: a key waits once, in the foreground if any of its adds was there.
    const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(key, fc.boolean()), { maxLength: 40 }), async (adds) => {
        const q = new WorkQueue();
        const fore: string[] = [];
        const back: string[] = [];
        for (const [k, background] of adds) {
          if (background) q.addBackground(k);
          else q.add(k);
          if (fore.includes(k)) continue;
          if (!background) {
            const i = back.indexOf(k);
            if (i >= 0) back.splice(i, 1);
            fore.push(k);
          } else if (!back.includes(k)) back.push(k);
        }
        expect(q.len()).toBe(fore.length + back.length);
        const out: string[] = [];
        while (q.len() > 0) {
          const k = await q.get();
          if (k === undefined) break;
          out.push(k);
          q.done(k);
        }
        expect(out).toEqual([...fore, ...back]);
      }),
      { numRuns: 300 },
    );
  });

  it('counts both lanes in the depth it reports and drops both on shutdown', async () => {
    const metrics = recordingMetrics();
    const q = new WorkQueue({ metrics, holdBackground: true });
    q.add('a');
    q.addBackground('b');
    expect(metrics.depths.at(-1)).toBe(2);
    expect(metrics.adds).toBe(2);
    expect(await q.get()).toBe('a');
    expect(metrics.depths.at(-1)).toBe(1);
    q.shutDown();
    expect(q.len()).toBe(0);
    q.releaseBackground();
    expect(await q.get()).toBeUndefined();
  });
});

describe('WorkQueue on the system clock', () => {
  it("keeps a key added after more than a timer's range waiting, without spinning", async () => {
    let armed = 0;
    const clock = {
      ...systemClock,
      sleep: (ms: number, signal?: AbortSignal) => {
        armed++;
        return systemClock.sleep(ms, signal);
      },
    };
    const q = new WorkQueue({ clock });
    q.addAfter('far', MAX_TIMER_DELAY_MS + 60_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(q.len()).toBe(0);
    expect(armed).toBe(1); // one timer, not one re-armed every millisecond
    q.shutDown();
  });
});
