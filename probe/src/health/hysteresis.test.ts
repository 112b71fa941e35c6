import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { observe, untilFlipMs, type HoldTimes, type Hysteresis, type Observed } from './hysteresis.ts';

const hold: HoldTimes = { toTrueMs: 20_000, toFalseMs: 10_000 };
const fold = (
  steps: ReadonlyArray<readonly [Observed, number]>,
  start?: Hysteresis,
): Hysteresis | undefined =>
  steps.reduce<Hysteresis | undefined>((s, [seen, t]) => observe(s, seen, t, hold), start);
const TRUE: Hysteresis = { reported: 'True' };
const FALSE: Hysteresis = { reported: 'False' };

describe('observe', () => {
  it.each<[string, Hysteresis | undefined, ReadonlyArray<readonly [Observed, number]>, Hysteresis]>([
    ['reports the first observation at once (True)', undefined, [['True', 0]], TRUE],
    ['reports the first observation at once (False)', undefined, [['False', 0]], FALSE],
    [
      'keeps True while failures are younger than the failure threshold',
      TRUE,
      [
        ['False', 0],
        ['False', 9_999],
      ],
      { reported: 'True', pending: { value: 'False', sinceMs: 0 } },
    ],
    [
      'reports False once failures lasted the failure threshold',
      TRUE,
      [
        ['False', 0],
        ['False', 10_000],
      ],
      FALSE,
    ],
    [
      'a single failure within the threshold never flips',
      TRUE,
      [
        ['False', 0],
        ['True', 5_000],
        ['True', 60_000],
      ],
      TRUE,
    ],
    [
      'one success restarts the failure clock',
      TRUE,
      [
        ['False', 0],
        ['True', 5_000],
        ['False', 6_000],
        ['False', 15_000],
      ],
      { reported: 'True', pending: { value: 'False', sinceMs: 6_000 } },
    ],
    [
      'flips after the restarted clock ran out',
      TRUE,
      [
        ['False', 0],
        ['True', 5_000],
        ['False', 6_000],
        ['False', 16_000],
      ],
      FALSE,
    ],
    [
      'keeps False while successes are younger than the success threshold',
      FALSE,
      [
        ['True', 0],
        ['True', 19_999],
      ],
      { reported: 'False', pending: { value: 'True', sinceMs: 0 } },
    ],
    [
      'reports True once successes lasted the success threshold',
      FALSE,
      [
        ['True', 0],
        ['True', 20_000],
      ],
      TRUE,
    ],
    [
      'one failure restarts the success clock',
      FALSE,
      [
        ['True', 0],
        ['False', 10_000],
        ['True', 11_000],
        ['True', 30_000],
      ],
      { reported: 'False', pending: { value: 'True', sinceMs: 11_000 } },
    ],
    [
      'the streak counts from its first observation, not the last',
      TRUE,
      [
        ['False', 1_000],
        ['False', 2_000],
        ['False', 11_000],
      ],
      FALSE,
    ],
    [
      'a lone late observation past the threshold starts a streak only',
      TRUE,
      [['False', 50_000]],
      { reported: 'True', pending: { value: 'False', sinceMs: 50_000 } },
    ],
  ])('%s', (_name, start, steps, expected) => {
    expect(fold(steps, start)).toEqual(expected);
  });

  it('flips at once with a zero hold time', () => {
    expect(observe(TRUE, 'False', 5, { toTrueMs: 0, toFalseMs: 0 })).toEqual(FALSE);
  });

  it('never reports a value not seen for its whole hold time', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(3_000)), { maxLength: 60 }), (raw) => {
        let t = 0;
        let s: Hysteresis = TRUE;
        let streak: { value: Observed; sinceMs: number } | undefined;
        for (const [ok, gap] of raw) {
          t += gap;
          const seen: Observed = ok ? 'True' : 'False';
          streak = streak?.value === seen ? streak : { value: seen, sinceMs: t };
          const next = observe(s, seen, t, hold);
          if (next.reported !== s.reported) {
            const need = seen === 'True' ? hold.toTrueMs : hold.toFalseMs;
            expect(next.reported).toBe(seen);
            expect(t - streak.sinceMs).toBeGreaterThanOrEqual(need);
          }
          s = next;
        }
      }),
    );
  });
});

describe('untilFlipMs', () => {
  it.each<[string, Hysteresis, number, number | undefined]>([
    ['nothing pending: no flip due', TRUE, 0, undefined],
    [
      'pending failure: the rest of the failure threshold',
      { reported: 'True', pending: { value: 'False', sinceMs: 1_000 } },
      4_000,
      7_000,
    ],
    [
      'pending success: the rest of the success threshold',
      { reported: 'False', pending: { value: 'True', sinceMs: 0 } },
      5_000,
      15_000,
    ],
    ['overdue: zero', { reported: 'True', pending: { value: 'False', sinceMs: 0 } }, 99_000, 0],
  ])('%s', (_name, s, now, expected) => {
    expect(untilFlipMs(s, now, hold)).toBe(expected);
  });
});
