import { describe, expect, it } from 'vitest';
import {
  decideClusterVerdict,
  type AggregationMode,
  type ClusterVerdict,
  type NodeView,
} from './aggregate.ts';
import type { NodeVerdict } from './staleness.ts';

const UPSTREAM: AggregationMode = { kind: 'upstream' };
const HALF: AggregationMode = { kind: 'quorum', failureQuorum: 0.5 };
const ALL: AggregationMode = { kind: 'quorum', failureQuorum: 1 };

/** `'TF?'` → three Ready nodes with verdicts True, False, Unknown; `-` is a node that is not Ready. */
function nodes(spec: string): NodeView[] {
  const verdicts: Record<string, NodeVerdict> = { T: 'True', F: 'False', '?': 'Unknown', '-': 'False' };
  return [...spec].map((c, i) => ({
    name: `node-${i}`,
    ready: c !== '-',
    verdict: verdicts[c] ?? 'Unknown',
  }));
}

type Expect = Pick<Extract<ClusterVerdict, { kind: 'report' }>, 'status' | 'message'> | { skip: string };

const READY = { status: 'True', message: 'service domain name resolution is ready' } as const;
const UNREADY = { status: 'False', message: 'service domain name resolution is unready' } as const;

describe('decideClusterVerdict', () => {
  it.each<[string, AggregationMode, string, Expect]>([
    ['upstream: no nodes → skip', UPSTREAM, '', { skip: 'NoReadyNodes' }],
    ['upstream: only nodes that are not Ready → skip', UPSTREAM, '--', { skip: 'NoReadyNodes' }],
    ['upstream: every node fine → True', UPSTREAM, 'TTT', READY],
    ['upstream: one node fine is enough for True', UPSTREAM, 'FFT', READY],
    ['upstream: every node failing → False', UPSTREAM, 'FFF', UNREADY],
    ['upstream: a single failing node → False', UPSTREAM, 'F', UNREADY],
    ['upstream: any Unknown → skip', UPSTREAM, 'FF?', { skip: 'UnknownNodes' }],
    ['upstream: Unknown with successes → skip too', UPSTREAM, 'T?', { skip: 'UnknownNodes' }],
    ['upstream: nodes that are not Ready are ignored', UPSTREAM, 'FF-', UNREADY],
    ['quorum 0.5: every node fine → True, plain message', HALF, 'TTT', READY],
    [
      'quorum 0.5: 1 of 3 failed → True with the count',
      HALF,
      'TFT',
      { status: 'True', message: 'service domain name resolution is ready: 1 of 3 nodes failed' },
    ],
    [
      'quorum 0.5: 2 of 3 failed → False with the count',
      HALF,
      'FFT',
      { status: 'False', message: 'service domain name resolution is unready: 2 of 3 nodes failed' },
    ],
    [
      'quorum 0.5: exactly half failed → False',
      HALF,
      'FT',
      { status: 'False', message: 'service domain name resolution is unready: 1 of 2 nodes failed' },
    ],
    [
      'quorum 0.5: keeps reporting with Unknown nodes',
      HALF,
      'FF?T',
      {
        status: 'False',
        message: 'service domain name resolution is unready: 2 of 3 nodes failed; 1 node unknown',
      },
    ],
    [
      'quorum 0.5: Unknown nodes named even when fine',
      HALF,
      'T??',
      {
        status: 'True',
        message: 'service domain name resolution is ready: 0 of 1 node failed; 2 nodes unknown',
      },
    ],
    ['quorum 0.5: every node Unknown → skip', HALF, '??', { skip: 'NoKnownNodes' }],
    ['quorum 0.5: no Ready node → skip', HALF, '-', { skip: 'NoReadyNodes' }],
    [
      'quorum 1: all must fail (2 of 3 → True)',
      ALL,
      'FFT',
      { status: 'True', message: 'service domain name resolution is ready: 2 of 3 nodes failed' },
    ],
    [
      'quorum 1: all known failed → False',
      ALL,
      'FF?',
      {
        status: 'False',
        message: 'service domain name resolution is unready: 2 of 2 nodes failed; 1 node unknown',
      },
    ],
    [
      'quorum 0.3: 3 of 10 is enough despite rounding',
      { kind: 'quorum', failureQuorum: 0.3 },
      'FFFTTTTTTT',
      { status: 'False', message: 'service domain name resolution is unready: 3 of 10 nodes failed' },
    ],
  ])('%s', (_name, mode, spec, expected) => {
    const v = decideClusterVerdict(nodes(spec), mode);
    if ('skip' in expected) expect(v).toMatchObject({ kind: 'skip', reason: expected.skip });
    else expect(v).toMatchObject({ kind: 'report', ...expected });
  });

  it('uses the upstream reasons', () => {
    expect(decideClusterVerdict(nodes('F'), UPSTREAM)).toMatchObject({
      reason: 'ServiceDomainNameResolutionFailed',
    });
    expect(decideClusterVerdict(nodes('T'), HALF)).toMatchObject({
      reason: 'ServiceDomainNameResolutionReady',
    });
  });

  it('counts Ready nodes only', () => {
    expect(decideClusterVerdict(nodes('TF?--'), HALF).counts).toEqual({
      ready: 3,
      failed: 1,
      succeeded: 1,
      unknown: 1,
    });
  });
});
