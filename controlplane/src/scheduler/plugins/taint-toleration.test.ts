import type { Taint, Toleration } from '@kf/api';
import { describe, expect, it } from 'vitest';
import { attemptFor, binding, cluster } from '../test-builders.ts';
import { taintToleration } from './taint-toleration.ts';

const notReady: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' };
const unreachable: Taint = {
  key: 'cluster.karmada.io/unreachable',
  effect: 'NoExecute',
  timeAdded: '2026-01-01T00:00:00Z',
};
const gpu: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };

describe('TaintToleration', () => {
  it.each<[string, readonly Taint[], readonly Toleration[], Record<string, number>, string | undefined]>([
    ['no taints', [], [], {}, undefined],
    [
      'untolerated NoSchedule',
      [notReady],
      [],
      {},
      'cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}',
    ],
    [
      'untolerated NoExecute',
      [unreachable],
      [],
      {},
      'cluster(s) had untolerated taint {cluster.karmada.io/unreachable:NoExecute}',
    ],
    ['taint with a value', [gpu], [], {}, 'cluster(s) had untolerated taint {dedicated=gpu:NoSchedule}'],
    ['tolerated', [gpu], [{ key: 'dedicated', value: 'gpu' }], {}, undefined],
    [
      'first untolerated taint is reported',
      [gpu, notReady],
      [{ key: 'dedicated', operator: 'Exists' }],
      {},
      'cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}',
    ],
    [
      'toleration of another effect',
      [unreachable],
      [{ key: unreachable.key, operator: 'Exists', effect: 'NoSchedule' }],
      {},
      'cluster(s) had untolerated taint {cluster.karmada.io/unreachable:NoExecute}',
    ],
    ['a cluster already holding the workload passes', [notReady, unreachable], [], { m1: 2 }, undefined],
  ])('%s', (...[, taints, tolerations, current, reason]) => {
    const b = binding({ clusters: current, placement: { clusterTolerations: tolerations } });
    const fit = taintToleration.filter(attemptFor(b), cluster('m1', { taints }));
    expect(fit).toEqual(reason === undefined ? { ok: true } : { ok: false, reason });
  });
});
