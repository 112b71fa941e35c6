import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EVICTION_PACING,
  fillBucket,
  planEvictions,
  turnInMs,
  type EvictionPacing,
  type PendingEviction,
  type TokenBucket,
} from './pacing.ts';

const pending = (n: number, dueAtMs = 0): PendingEviction[] =>
  Array.from({ length: n }, (_, i) => ({ key: `ns/b${String(i).padStart(4, '0')}`, dueAtMs }));
const slow: EvictionPacing = { ratePerSecond: 2, burst: 3 };

describe('planEvictions', () => {
  it.each<
    [
      string,
      PendingEviction[],
      TokenBucket,
      number,
      EvictionPacing,
      { evictNow: string[]; bucket: TokenBucket; wakeInMs?: number },
    ]
  >([
    [
      'nothing pending: nothing to do',
      [],
      { tokens: 3, updatedAtMs: 0 },
      0,
      slow,
      { evictNow: [], bucket: { tokens: 3, updatedAtMs: 0 } },
    ],
    [
      'a full bucket lets the burst through and wakes for the next token',
      pending(5),
      { tokens: 3, updatedAtMs: 0 },
      0,
      slow,
      {
        evictNow: ['ns/b0000', 'ns/b0001', 'ns/b0002'],
        bucket: { tokens: 0, updatedAtMs: 0 },
        wakeInMs: 500,
      },
    ],
    [
      'tokens refill with time',
      pending(5),
      { tokens: 0, updatedAtMs: 0 },
      1_000,
      slow,
      { evictNow: ['ns/b0000', 'ns/b0001'], bucket: { tokens: 0, updatedAtMs: 1_000 }, wakeInMs: 500 },
    ],
    [
      'a partial token waits for the rest',
      pending(2),
      { tokens: 0, updatedAtMs: 0 },
      250,
      slow,
      { evictNow: [], bucket: { tokens: 0.5, updatedAtMs: 250 }, wakeInMs: 250 },
    ],
    [
      'the bucket never holds more than the burst',
      pending(10),
      { tokens: 0, updatedAtMs: 0 },
      3_600_000,
      slow,
      {
        evictNow: ['ns/b0000', 'ns/b0001', 'ns/b0002'],
        bucket: { tokens: 0, updatedAtMs: 3_600_000 },
        wakeInMs: 500,
      },
    ],
    [
      'a clock that went back refills nothing',
      pending(1),
      { tokens: 0.5, updatedAtMs: 10_000 },
      5_000,
      slow,
      { evictNow: [], bucket: { tokens: 0.5, updatedAtMs: 10_000 }, wakeInMs: 250 },
    ],
    [
      'rate 0: only the burst, no wake-up',
      pending(5),
      { tokens: 2, updatedAtMs: 0 },
      100_000,
      { ratePerSecond: 0, burst: 2 },
      { evictNow: ['ns/b0000', 'ns/b0001'], bucket: { tokens: 0, updatedAtMs: 100_000 } },
    ],
    [
      'older work goes first, then by key',
      [
        { key: 'a', dueAtMs: 20 },
        { key: 'c', dueAtMs: 10 },
        { key: 'b', dueAtMs: 10 },
      ],
      { tokens: 2, updatedAtMs: 0 },
      0,
      slow,
      { evictNow: ['b', 'c'], bucket: { tokens: 0, updatedAtMs: 0 }, wakeInMs: 500 },
    ],
  ])('%s', (...[, items, bucket, now, pacing, expected]) => {
    expect(planEvictions(items, bucket, now, pacing)).toEqual(expected);
  });

  it('empties a failed cluster of 1,000 bindings in well under a minute with the defaults', () => {
    let left = pending(1_000);
    let bucket = fillBucket(DEFAULT_EVICTION_PACING, 0);
    let now = 0;
    for (;;) {
      const plan = planEvictions(left, bucket, now, DEFAULT_EVICTION_PACING);
      const gone = new Set(plan.evictNow);
      left = left.filter((p) => !gone.has(p.key));
      bucket = plan.bucket;
      if (plan.wakeInMs === undefined) break;
      now += plan.wakeInMs;
    }
    expect(left).toEqual([]);
    expect(now).toBeLessThanOrEqual(18_000);
    expect(now).toBeGreaterThan(17_000);
  });

  it('spending a token that is whole but for floating-point dust leaves an empty bucket', () => {
    const p = { ratePerSecond: 3, burst: 6 };
    const first = planEvictions(pending(13), fillBucket(p, 0), 0, p);
    const left = pending(13).slice(first.evictNow.length);
    const second = planEvictions(left, first.bucket, 1_998, p); // 5.994 tokens: 5 spent
    const third = planEvictions(left.slice(second.evictNow.length), second.bucket, 2_000, p);
    expect([first.evictNow.length, second.evictNow.length, third.evictNow.length]).toEqual([6, 5, 1]);
    expect(third.bucket.tokens).toBe(0);
    expect(third.wakeInMs).toBe(334);
  });

  it('never evicts more than burst + rate × elapsed, and each key at most once', () => {
    const pacing = fc.record<EvictionPacing>({
      ratePerSecond: fc.integer({ min: 1, max: 100 }),
      burst: fc.integer({ min: 1, max: 20 }),
    });
    fc.assert(
      fc.property(
        pacing,
        fc.integer({ min: 0, max: 200 }),
        fc.array(fc.integer({ min: 0, max: 2_000 }), { maxLength: 30 }),
        (p, n, gaps) => {
          let left = pending(n);
          let bucket = fillBucket(p, 0);
          let now = 0;
          const evicted: string[] = [];
          for (const gap of gaps) {
            now += gap;
            const plan = planEvictions(left, bucket, now, p);
            evicted.push(...plan.evictNow);
            const gone = new Set(plan.evictNow);
            left = left.filter((e) => !gone.has(e.key));
            bucket = plan.bucket;
            expect(bucket.tokens).toBeGreaterThanOrEqual(0);
            if (plan.wakeInMs !== undefined) expect(plan.wakeInMs).toBeGreaterThan(0);
          }
          expect(new Set(evicted).size).toBe(evicted.length);
          expect(evicted.length).toBeLessThanOrEqual(
            p.burst + Math.floor((now * p.ratePerSecond) / 1000) + 1e-9,
          );
        },
      ),
    );
  });

  it('a wake-up at the time given always lets at least one more through', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 2, max: 50 }),
        (rate, burst, n) => {
          const p = { ratePerSecond: rate, burst };
          const first = planEvictions(pending(n), fillBucket(p, 0), 0, p);
          if (first.wakeInMs === undefined) return;
          const left = pending(n).slice(first.evictNow.length);
          const second = planEvictions(left, first.bucket, first.wakeInMs, p);
          expect(second.evictNow.length).toBeGreaterThanOrEqual(1);
        },
      ),
    );
  });
});

describe('turnInMs', () => {
  // slow: 2 tokens/s (one every 500 ms), burst 3; the bucket is empty at 0 ms.
  const empty = { tokens: 0, updatedAtMs: 0 };
  it.each<[string, number, number, number | undefined]>([
    ['the first in line waits for the next token', 1, 0, 500],
    ['the third waits for three tokens', 3, 0, 1_500],
    ['tokens already earned count: the third at 250 ms', 3, 250, 1_250],
    ['those ahead take the tokens there are: the fifth of five with 3 in the bucket', 5, 1_500, 1_000],
  ])('%s', (_name, position, nowMs, expected) => {
    const plan = planEvictions(pending(position), empty, nowMs, slow);
    expect(plan.evictNow).not.toContain(pending(position).at(-1)?.key);
    expect(turnInMs(position, plan, slow)).toBe(expected);
  });

  it('is undefined when no token ever comes', () => {
    const none = { ratePerSecond: 0, burst: 1 };
    const plan = planEvictions(pending(2), empty, 0, none);
    expect(turnInMs(2, plan, none)).toBeUndefined();
  });
});
