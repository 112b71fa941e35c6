import { describe, expect, it } from 'vitest';
import type { GracefulEvictionTask, ResourceHealth, Taint, Toleration } from '@kf/api';
import { attemptFor, binding, cluster } from '../test-builders.ts';
import { clusterEviction } from './cluster-eviction.ts';

const NOT_READY: Taint = {
  key: 'cluster.karmada.io/not-ready',
  effect: 'NoExecute',
  timeAdded: '2026-01-01T00:00:00Z',
};
const tolerateNotReady: Toleration = { key: NOT_READY.key, operator: 'Exists', effect: 'NoExecute' };
const appFailure = (purgeMode: GracefulEvictionTask['purgeMode'] = 'Gracefully'): GracefulEvictionTask => ({
  fromCluster: 'm1',
  purgeMode,
  reason: 'ApplicationFailure',
  producer: 'resource-binding-application-failover-controller',
});
const taintTask = (over: Partial<GracefulEvictionTask> = {}): GracefulEvictionTask => ({
  fromCluster: 'm1',
  purgeMode: 'Gracefully',
  reason: 'TaintUntolerated',
  producer: 'TaintManager',
  ...over,
});
const EVICTING = { ok: false, reason: 'cluster(s) is in the process of eviction' };

interface Row {
  readonly tasks: readonly GracefulEvictionTask[];
  readonly taints?: readonly Taint[];
  readonly tolerations?: readonly Toleration[];
  readonly placed?: Record<string, number>;
  readonly health?: Record<string, ResourceHealth>;
}

describe('ClusterEviction', () => {
  it.each<[string, Row, boolean]>([
    ['no eviction tasks', { tasks: [] }, true],
    [
      'a task for another cluster',
      { tasks: [taintTask({ fromCluster: 'other' })], taints: [NOT_READY] },
      true,
    ],
    // The cause holds: kept out, as upstream.
    ['taint cause holds', { tasks: [taintTask()], taints: [NOT_READY] }, false],
    [
      'taint cause holds, even when the cluster is still listed',
      { tasks: [taintTask()], taints: [NOT_READY], placed: { m1: 3 } },
      false,
    ],
    ['application still unhealthy there', { tasks: [appFailure()], health: { m1: 'Unhealthy' } }, false],
    [
      'fail-back left it on purpose',
      { tasks: [{ ...taintTask(), reason: 'FailBack', producer: 'fail-back-controller' }] },
      false,
    ],
    ['a task of an unknown producer', { tasks: [taintTask({ producer: 'someone' })] }, false],
    // The cause has ended and nothing replaced the copy: the cluster may take the workload back.
    ['taint gone, placed nowhere else', { tasks: [taintTask()] }, true],
    [
      'taint tolerated for good now',
      { tasks: [taintTask()], taints: [NOT_READY], tolerations: [tolerateNotReady] },
      true,
    ],
    [
      'taint gone, placed elsewhere, Unhealthy there',
      { tasks: [taintTask()], placed: { m2: 3 }, health: { m2: 'Unhealthy' } },
      true,
    ],
    ['taint gone, placed elsewhere, no status yet', { tasks: [taintTask()], placed: { m2: 3 } }, true],
    [
      'application Healthy there again, nowhere else',
      { tasks: [appFailure()], health: { m1: 'Healthy' } },
      true,
    ],
    ['purge mode Never, taint gone', { tasks: [taintTask({ purgeMode: 'Never' })] }, true],
    [
      'suppressDeletion true, application healthy again',
      { tasks: [{ ...appFailure('Never'), suppressDeletion: true }], health: { m1: 'Healthy' } },
      true,
    ],
    // The cause has ended, but the task runs its course.
    [
      'taint gone, a healthy copy elsewhere',
      { tasks: [taintTask()], placed: { m2: 3 }, health: { m2: 'Healthy' } },
      false,
    ],
    [
      'application healthy again, and elsewhere too',
      { tasks: [appFailure()], placed: { m2: 3 }, health: { m1: 'Healthy', m2: 'Healthy' } },
      false,
    ],
    ['purge mode Directly, taint gone', { tasks: [taintTask({ purgeMode: 'Directly' })] }, false],
    [
      'deletion confirmed (suppressDeletion false), taint gone',
      { tasks: [taintTask({ suppressDeletion: false })] },
      false,
    ],
    [
      'two tasks from the cluster, one still holding',
      { tasks: [taintTask(), appFailure()], health: { m1: 'Unhealthy' } },
      false,
    ],
  ])('%s', (_name, row, ok) => {
    const b = binding({
      tasks: row.tasks,
      clusters: row.placed ?? {},
      ...(row.health === undefined ? {} : { health: row.health }),
      placement: { clusterTolerations: [...(row.tolerations ?? [])] },
    });
    const fit = clusterEviction.filter(
      attemptFor(b, Date.parse('2026-01-01T00:10:00Z')),
      cluster('m1', { taints: row.taints ?? [] }),
    );
    expect(fit).toEqual(ok ? { ok: true } : EVICTING);
  });
});
