import { describe, expect, it } from 'vitest';
import type { ClusterCondition, ConditionStatus, ConditionUpdate } from '@kf/api';
import { decideReady, type ReadyMemory, type Thresholds } from './ready-threshold.ts';

const thresholds: Thresholds = { successMs: 30_000, failureMs: 20_000 };
const observed = (status: ConditionStatus): ConditionUpdate => ({
  type: 'Ready',
  status,
  reason: status === 'True' ? 'ClusterReady' : 'ClusterNotReachable',
  message: 'm',
});
const stored = (status: ConditionStatus): ClusterCondition => ({ type: 'Ready', status, reason: 'R' });

/**
 * Runs probes `[observed status, at ms]` against a stored condition that takes every written
 * value, starting from `initial`; returns the stored status after each probe.
 */
function run(
  initial: ConditionStatus | undefined,
  probes: readonly (readonly [ConditionStatus, number])[],
): string[] {
  let memory: ReadyMemory | undefined;
  let current = initial === undefined ? undefined : stored(initial);
  return probes.map(([status, at]) => {
    const d = decideReady({ memory, stored: current, observed: observed(status), nowMs: at }, thresholds);
    memory = d.memory;
    if (d.kind === 'observed') current = stored(d.condition.status);
    return current?.status ?? 'none';
  });
}

describe('decideReady', () => {
  describe('an observation that held since before it was made (a probe left unanswered)', () => {
    const memory: ReadyMemory = { lastObserved: 'True', sinceMs: 0 };
    const decide = (heldSinceMs: number, nowMs: number, m: ReadyMemory = memory) =>
      decideReady(
        { memory: m, stored: stored('True'), observed: observed('False'), nowMs, heldSinceMs },
        thresholds,
      );

    it('counts the failure threshold from when it began to hold', () => {
      // Sent at 10 s, given up at 30 s: 20 s without an answer is the failure threshold.
      expect(decide(10_000, 30_000)).toMatchObject({
        kind: 'observed',
        memory: { lastObserved: 'False', sinceMs: 10_000 },
      });
      expect(decide(10_001, 30_000)).toEqual({
        kind: 'held',
        memory: { lastObserved: 'False', sinceMs: 10_001 },
        flipAtMs: 30_001,
      });
    });

    it('never dates it after the moment it was made', () => {
      expect(decide(40_000, 30_000)).toEqual({
        kind: 'held',
        memory: { lastObserved: 'False', sinceMs: 30_000 },
        flipAtMs: 50_000,
      });
    });

    it('keeps the start of a spell already under way', () => {
      const failing: ReadyMemory = { lastObserved: 'False', sinceMs: 5_000 };
      expect(decide(20_000, 25_000, failing)).toMatchObject({ kind: 'observed', memory: failing });
    });
  });

  it.each<[string, ConditionStatus | undefined, [ConditionStatus, number][], string[]]>([
    ['the first observation after start is written at once', 'True', [['False', 1_000]], ['False']],
    ['without a stored Ready the observation is written', undefined, [['False', 1_000]], ['False']],
    [
      'failures flip True to False only after the failure threshold',
      'True',
      [
        ['True', 0],
        ['False', 10_000],
        ['False', 29_999],
        ['False', 30_000],
      ],
      ['True', 'True', 'True', 'False'],
    ],
    [
      'one success restarts the failure clock',
      'True',
      [
        ['True', 0],
        ['False', 10_000],
        ['True', 20_000],
        ['False', 25_000],
        ['False', 44_999],
        ['False', 45_000],
      ],
      ['True', 'True', 'True', 'True', 'True', 'False'],
    ],
    [
      'recovery flips False to True only after the success threshold',
      'False',
      [
        ['False', 0],
        ['True', 5_000],
        ['True', 34_999],
        ['True', 35_000],
      ],
      ['False', 'False', 'False', 'True'],
    ],
    [
      'False to Unknown-like statuses is not a crossing: written at once',
      'Unknown',
      [
        ['True', 0],
        ['False', 1_000],
      ],
      ['True', 'True'],
    ],
    [
      'after the control plane set Unknown, an old True streak is written at once',
      'True',
      [
        ['True', 0],
        ['True', 60_000],
      ],
      ['True', 'True'],
    ],
  ])('%s', (_name, initial, probes, expected) => {
    expect(run(initial, probes)).toEqual(expected);
  });

  it('Unknown stored by the control plane flips back to True at once when True was seen long enough', () => {
    const memory: ReadyMemory = { lastObserved: 'True', sinceMs: 0 };
    const d = decideReady(
      { memory, stored: stored('Unknown'), observed: observed('True'), nowMs: 100_000 },
      thresholds,
    );
    expect(d.kind).toBe('observed');
  });

  it('False stored and False observed is not a crossing (no hold, reason refreshed)', () => {
    const memory: ReadyMemory = { lastObserved: 'True', sinceMs: 0 };
    const d = decideReady(
      { memory, stored: stored('Unknown'), observed: observed('False'), nowMs: 1_000 },
      thresholds,
    );
    expect(d).toMatchObject({ kind: 'observed', memory: { lastObserved: 'False', sinceMs: 1_000 } });
  });

  it('says when a held observation will win', () => {
    const memory: ReadyMemory = { lastObserved: 'True', sinceMs: 0 };
    const d = decideReady(
      { memory, stored: stored('True'), observed: observed('False'), nowMs: 5_000 },
      thresholds,
    );
    expect(d).toEqual({ kind: 'held', memory: { lastObserved: 'False', sinceMs: 5_000 }, flipAtMs: 25_000 });
  });
});
