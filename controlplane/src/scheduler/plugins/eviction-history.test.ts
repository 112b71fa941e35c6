import { annotations, type EvictionHistoryEntry, type ResourceHealth } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { formatEvictionHistory } from '../eviction-history-annotation.ts';
import { attemptFor, binding, cluster } from '../test-builders.ts';
import { toBindingView } from '../binding-view.ts';
import { bindingObject } from '../test-builders.ts';
import { evictionHistory, nextUnblockInMs } from './eviction-history.ts';

const evictedAt = '2026-01-01T00:00:00Z';
const evictedAtMs = Date.parse(evictedAt);
const entry: EvictionHistoryEntry = {
  clusterName: 'm1',
  creationTimestamp: evictedAt,
  reason: 'ApplicationFailure',
};
const reason = 'cluster(s) evicted this workload less than blockPredecessorSeconds ago';

describe('EvictionHistory', () => {
  it.each<
    [string, readonly EvictionHistoryEntry[], number | undefined, number, Record<string, number>, boolean]
  >([
    // [name, history, blockPredecessorSeconds, ms since eviction, current clusters, fits]
    ['no history', [], undefined, 0, {}, true],
    ['another cluster was evicted', [{ ...entry, clusterName: 'm2' }], undefined, 0, {}, true],
    ['just evicted', [entry], undefined, 0, {}, false],
    ['within the default 600 s', [entry], undefined, 599_999, {}, false],
    ['after the default 600 s', [entry], undefined, 600_000, {}, true],
    ['within an explicit window', [entry], 30, 29_999, {}, false],
    ['after an explicit window', [entry], 30, 30_000, {}, true],
    ['zero blocks for good', [entry], 0, 10 ** 12, {}, false],
    [
      'a later eviction of the same cluster counts',
      [entry, { ...entry, creationTimestamp: '2026-01-01T00:09:00Z' }],
      undefined,
      700_000,
      {},
      false,
    ],
    ['a cluster already holding the workload passes', [entry], undefined, 0, { m1: 1 }, true],
  ])('%s', (...[, history, seconds, sinceMs, current, ok]) => {
    const b = binding({
      history,
      clusters: current,
      ...(seconds === undefined ? {} : { blockPredecessorSeconds: seconds }),
    });
    const fit = evictionHistory.filter(attemptFor(b, evictedAtMs + sinceMs), cluster('m1'));
    expect(fit).toEqual(ok ? { ok: true } : { ok: false, reason });
  });

  it.each<[string, Record<string, ResourceHealth>, boolean]>([
    // [name, health by cluster, fits]
    ['an evicted copy Healthy again that nothing replaced passes (it never left)', { m1: 'Healthy' }, true],
    ['still Unhealthy: blocked', { m1: 'Unhealthy' }, false],
    ['Healthy again, but a healthy copy runs on m2: blocked', { m1: 'Healthy', m2: 'Healthy' }, false],
  ])('%s', (_name, health, ok) => {
    const task = {
      fromCluster: 'm1',
      purgeMode: 'Gracefully',
      reason: 'ApplicationFailure',
      producer: 'resource-binding-application-failover-controller',
    } as const;
    const b = binding({ history: [entry], tasks: [task], clusters: { m2: 1 }, health });
    const fit = evictionHistory.filter(attemptFor(b, evictedAtMs), cluster('m1'));
    expect(fit).toEqual(ok ? { ok: true } : { ok: false, reason });
  });

  describe('from the annotations Karmada keeps', () => {
    const history = { [annotations.evictionHistory]: formatEvictionHistory([entry]) };

    it.each<[string, Record<string, string>, number | undefined, number, boolean]>([
      // [name, annotations, spec blockPredecessorSeconds, ms since eviction, fits]
      ['just evicted', history, undefined, 0, false],
      ['after the default 600 s', history, undefined, 600_000, true],
      [
        'within the annotated block',
        { ...history, [annotations.blockPredecessorSeconds]: '30' },
        600,
        29_999,
        false,
      ],
      [
        'after the annotated block, shorter than the spec field',
        { ...history, [annotations.blockPredecessorSeconds]: '30' },
        600,
        30_000,
        true,
      ],
      [
        'annotated 0 blocks for good',
        { ...history, [annotations.blockPredecessorSeconds]: '0' },
        30,
        10 ** 12,
        false,
      ],
      [
        'an unreadable block annotation: the spec field',
        { ...history, [annotations.blockPredecessorSeconds]: 'x' },
        30,
        30_000,
        true,
      ],
      [
        'an unreadable history annotation blocks nothing',
        { [annotations.evictionHistory]: 'oops' },
        undefined,
        0,
        true,
      ],
    ])('%s', (...[, a, seconds, sinceMs, ok]) => {
      const b = binding({
        annotations: a,
        ...(seconds === undefined ? {} : { blockPredecessorSeconds: seconds }),
      });
      const fit = evictionHistory.filter(attemptFor(b, evictedAtMs + sinceMs), cluster('m1'));
      expect(fit).toEqual(ok ? { ok: true } : { ok: false, reason });
    });

    it('still blocks by an entry left in spec.evictionHistory', () => {
      const b = binding({ annotations: { [annotations.evictionHistory]: '[]' }, history: [entry] });
      expect(evictionHistory.filter(attemptFor(b, evictedAtMs), cluster('m1'))).toEqual({
        ok: false,
        reason,
      });
    });

    it('tells when the annotated block ends', () => {
      const b = binding({ annotations: { ...history, [annotations.blockPredecessorSeconds]: '30' } });
      expect(nextUnblockInMs(b, evictedAtMs + 10_000)).toBe(20_000);
    });
  });
});

describe('nextUnblockInMs', () => {
  const at = (clusterName: string, creationTimestamp: string): EvictionHistoryEntry => ({
    clusterName,
    creationTimestamp,
  });
  it.each<
    [string, readonly EvictionHistoryEntry[], number | undefined, Record<string, number>, number | undefined]
  >([
    // [name, history, blockPredecessorSeconds, current clusters, expected]
    ['no history', [], undefined, {}, undefined],
    ['the rest of the default 600 s', [entry], undefined, {}, 590_000],
    ['the earliest of several blocks', [entry, at('m2', '2025-12-31T23:59:00Z')], undefined, {}, 530_000],
    ['a block that has run out', [entry], 5, {}, undefined],
    ['blocks for good never end', [entry], 0, {}, undefined],
    ['a cluster holding the workload is not waited for', [entry], undefined, { m1: 1 }, undefined],
  ])('%s', (...[, history, seconds, current, expected]) => {
    const b = toBindingView(
      bindingObject({
        history,
        clusters: current,
        ...(seconds === undefined ? {} : { blockPredecessorSeconds: seconds }),
      }),
    );
    expect(nextUnblockInMs(b, evictedAtMs + 10_000)).toBe(expected);
  });
});
