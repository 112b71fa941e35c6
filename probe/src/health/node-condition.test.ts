import { describe, expect, it } from 'vitest';
import { planNodeWrite, type NodeCondition, type NodeReport } from './node-condition.ts';

const NOW = Date.parse('2026-11-22T05:00:00Z');
const iso = (offsetS: number): string => new Date(NOW + offsetS * 1000).toISOString().replace('.000Z', 'Z');
const OK: NodeReport = {
  status: 'True',
  message: 'kubernetes.default resolves (kubernetes.default.svc.cluster.local)',
};
const BAD: NodeReport = {
  status: 'False',
  message: 'kubernetes.default did not resolve: NXDOMAIN for kubernetes.default',
};
const HEARTBEAT_MS = 15_000;

function written(report: NodeReport, heartbeatS: number, transitionS: number): NodeCondition {
  return {
    type: 'ServiceDomainNameResolutionReady',
    status: report.status,
    reason:
      report.status === 'True' ? 'ServiceDomainNameResolutionReady' : 'ServiceDomainNameResolutionFailed',
    message: report.message,
    lastHeartbeatTime: iso(heartbeatS),
    lastTransitionTime: iso(transitionS),
  };
}

describe('planNodeWrite', () => {
  it.each<[string, NodeCondition | undefined, NodeReport, NodeCondition | undefined]>([
    ['adds a missing condition', undefined, OK, written(OK, 0, 0)],
    [
      'writes nothing while the heartbeat is recent and nothing changed',
      written(OK, -14, -600),
      OK,
      undefined,
    ],
    [
      'refreshes the heartbeat once it is an interval old, keeping the transition time',
      written(OK, -15, -600),
      OK,
      written(OK, 0, -600),
    ],
    ['a status change moves the transition time', written(OK, -1, -600), BAD, written(BAD, 0, 0)],
    [
      'a message change is written at once, keeping the transition time',
      written(BAD, -1, -600),
      { ...BAD, message: 'other cause' },
      written({ ...BAD, message: 'other cause' }, 0, -600),
    ],
    [
      'a condition without heartbeat is written',
      without(written(OK, 0, -600), 'lastHeartbeatTime'),
      OK,
      written(OK, 0, -600),
    ],
    [
      'a heartbeat from the future (clock went back) is rewritten',
      written(OK, 30, -600),
      OK,
      written(OK, 0, -600),
    ],
    ['a foreign reason is replaced', { ...written(OK, -1, -600), reason: 'Other' }, OK, written(OK, 0, -600)],
    [
      'a condition without transition time gets now',
      without(written(OK, -1, 0), 'lastTransitionTime'),
      { ...OK, message: 'x' },
      written({ ...OK, message: 'x' }, 0, 0),
    ],
  ])('%s', (_name, current, report, expected) => {
    expect(planNodeWrite(current, report, NOW, HEARTBEAT_MS)).toEqual(expected);
  });
});

function without(c: NodeCondition, key: 'lastHeartbeatTime' | 'lastTransitionTime'): NodeCondition {
  return Object.fromEntries(Object.entries(c).filter(([k]) => k !== key)) as unknown as NodeCondition;
}
