import { describe, expect, it } from 'vitest';
import {
  judgeProbe,
  needsHealthzFallback,
  observedReadyCondition,
  probeAnswered,
  type ProbeResult,
} from './ready-condition.ts';

const status = (s: number) => ({ kind: 'status', status: s }) as const;
const refused = { kind: 'error', error: 'ECONNREFUSED' } as const;

describe('judgeProbe', () => {
  it.each<[string, ProbeResult, boolean, boolean]>([
    ['/readyz 200: online and healthy', { readyz: status(200) }, true, true],
    ['/readyz 202: online, not healthy', { readyz: status(202) }, true, false],
    ['/readyz 206: online, not healthy', { readyz: status(206) }, true, false],
    ['/readyz 500: offline (an error status)', { readyz: status(500) }, false, false],
    ['/readyz 503: offline', { readyz: status(503) }, false, false],
    ['/readyz 403: offline', { readyz: status(403) }, false, false],
    ['no answer: offline', { readyz: refused }, false, false],
    ['/readyz 404, /healthz 200: healthy', { readyz: status(404), healthz: status(200) }, true, true],
    ['/readyz 404, /healthz 202: not healthy', { readyz: status(404), healthz: status(202) }, true, false],
    ['/readyz 404, /healthz 404: offline', { readyz: status(404), healthz: status(404) }, false, false],
    ['/readyz 404, /healthz unanswered: offline', { readyz: status(404), healthz: refused }, false, false],
    ['/readyz 200 ignores a /healthz answer', { readyz: status(200), healthz: refused }, true, true],
  ])('%s', (_name, result, online, healthy) => {
    expect(judgeProbe(result)).toEqual({ online, healthy });
  });

  it('tells an answer of any status from none at all', () => {
    const timedOut = { kind: 'error', error: 'The operation was aborted due to timeout' } as const;
    const cases: [ProbeResult, boolean][] = [
      [{ readyz: status(200) }, true],
      [{ readyz: status(503) }, true],
      [{ readyz: refused }, false],
      [{ readyz: timedOut }, false],
      [{ readyz: status(404), healthz: status(500) }, true],
      [{ readyz: status(404), healthz: timedOut }, false],
      [{ readyz: status(200), healthz: timedOut }, true],
    ];
    expect(cases.map(([r]) => probeAnswered(r))).toEqual(cases.map(([, answered]) => answered));
  });

  it('falls back to /healthz only after a 404', () => {
    expect([404, 200, 500].map((s) => needsHealthzFallback(status(s)))).toEqual([true, false, false]);
    expect(needsHealthzFallback(refused)).toBe(false);
  });
});

describe('observedReadyCondition', () => {
  it.each([
    [false, false, 'False', 'ClusterNotReachable', 'cluster is not reachable'],
    [false, true, 'False', 'ClusterNotReachable', 'cluster is not reachable'],
    [
      true,
      false,
      'False',
      'ClusterNotReady',
      'cluster is reachable but health endpoint responded without ok',
    ],
    [true, true, 'True', 'ClusterReady', 'cluster is healthy and ready to accept workloads'],
  ] as const)('online=%s healthy=%s → %s/%s', (...[online, healthy, s, reason, message]) => {
    expect(observedReadyCondition({ online, healthy })).toEqual({
      type: 'Ready',
      status: s,
      reason,
      message,
    });
  });
});
