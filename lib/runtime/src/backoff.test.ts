import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelayMs, cappedBackoff, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';

describe('backoffDelayMs', () => {
  const exact: BackoffPolicy = { initialMs: 500, maxMs: 30_000, factor: 2, jitter: 0 };

  it.each([
    [0, 500],
    [1, 1_000],
    [2, 2_000],
    [5, 16_000],
    [6, 30_000],
    [100, 30_000],
    [-3, 500],
  ])('attempt %d without jitter waits %d ms', (attempt, ms) => {
    expect(backoffDelayMs(exact, attempt, 0.99)).toBe(ms);
  });

  it('spreads by the jitter share around the base delay', () => {
    expect(backoffDelayMs(DEFAULT_BACKOFF, 0, 0)).toBe(400);
    expect(backoffDelayMs(DEFAULT_BACKOFF, 0, 0.5)).toBe(500);
    expect(backoffDelayMs(DEFAULT_BACKOFF, 0, 0.999)).toBe(600);
  });

  it('stays within [0, max] and within the jitter band', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 200 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const ms = backoffDelayMs(DEFAULT_BACKOFF, attempt, r);
          const base = Math.min(DEFAULT_BACKOFF.maxMs, DEFAULT_BACKOFF.initialMs * 2 ** attempt);
          expect(ms).toBeGreaterThanOrEqual(0);
          expect(ms).toBeLessThanOrEqual(DEFAULT_BACKOFF.maxMs);
          expect(ms).toBeGreaterThanOrEqual(Math.floor(base * (1 - DEFAULT_BACKOFF.jitter)));
        },
      ),
    );
  });

  it('never shrinks as attempts grow, for a fixed random value', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          expect(backoffDelayMs(exact, attempt + 1, r)).toBeGreaterThanOrEqual(
            backoffDelayMs(exact, attempt, r),
          );
        },
      ),
    );
  });
});

describe('cappedBackoff', () => {
  it('leaves the policy alone without a cap or with one at or above its own', () => {
    expect(cappedBackoff(DEFAULT_BACKOFF, undefined)).toBe(DEFAULT_BACKOFF);
    expect(cappedBackoff(DEFAULT_BACKOFF, 30_000)).toBe(DEFAULT_BACKOFF);
    expect(cappedBackoff(DEFAULT_BACKOFF, 60_000)).toBe(DEFAULT_BACKOFF);
  });

  it('lowers the cap, and the first delay when the cap is below it', () => {
    expect(cappedBackoff(DEFAULT_BACKOFF, 1_000)).toEqual({ ...DEFAULT_BACKOFF, maxMs: 1_000 });
    expect(cappedBackoff(DEFAULT_BACKOFF, 200)).toEqual({ ...DEFAULT_BACKOFF, initialMs: 200, maxMs: 200 });
  });

  it('never waits longer than the cap, whatever the attempt and the jitter', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60_000 }),
        fc.nat({ max: 200 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (cap, attempt, r) => {
          expect(backoffDelayMs(cappedBackoff(DEFAULT_BACKOFF, cap), attempt, r)).toBeLessThanOrEqual(cap);
        },
      ),
    );
  });
});
