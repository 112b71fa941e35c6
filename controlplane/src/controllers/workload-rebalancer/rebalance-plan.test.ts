import { describe, expect, it } from 'vitest';
import type { ObservedWorkload, ResourceBinding, WorkloadReference } from '@kf/api';
import {
  bindingKeyFor,
  bindingNotFound,
  bindingStepFor,
  describeWorkload,
  expiryOf,
  isTriggeredSince,
  observedWorkloadsFor,
  rebalanced,
  settleStatus,
  statusPatch,
} from './rebalance-plan.ts';

const deploy = (name: string, namespace = 'default'): WorkloadReference => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace,
  name,
});
const clusterRole: WorkloadReference = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  name: 'demo-role',
};
const pending = (workload: WorkloadReference): ObservedWorkload => ({ workload });
const ok = (workload: WorkloadReference): ObservedWorkload => ({ workload, ...rebalanced });
const failed = (workload: WorkloadReference): ObservedWorkload => ({ workload, ...bindingNotFound });

const CREATED = '2026-11-20T10:00:00Z';
const binding = (rescheduleTriggeredAt?: string): ResourceBinding => ({
  metadata: { name: 'web-deployment', namespace: 'default', resourceVersion: '42' },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
    ...(rescheduleTriggeredAt === undefined ? {} : { rescheduleTriggeredAt }),
  },
});

describe('bindingKeyFor', () => {
  it.each([
    [
      'a namespaced workload: a ResourceBinding in its namespace',
      deploy('web', 'shop'),
      'shop/web-deployment',
    ],
    ['a cluster-scoped workload: a ClusterResourceBinding', clusterRole, 'demo-role-clusterrole'],
    ['an empty namespace is cluster-scoped', deploy('web', ''), 'web-deployment'],
    [
      'the name lowercased, with ":" as "."',
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'System:Admin' },
      'system.admin-clusterrole',
    ],
  ] as const)('%s', (_name, workload, key) => {
    expect(bindingKeyFor(workload)).toBe(key);
  });
});

describe('describeWorkload', () => {
  it('names the kind, then namespace/name or the name alone', () => {
    expect(describeWorkload(deploy('web'))).toBe('Deployment default/web');
    expect(describeWorkload(clusterRole)).toBe('ClusterRole demo-role');
  });
});

describe('observedWorkloadsFor', () => {
  const a = deploy('a');
  const b = deploy('b');
  const c = deploy('c');

  it('gives every workload of a new rebalancer an entry without a result, in upstream order', () => {
    expect(observedWorkloadsFor([deploy('demo-deploy-2'), clusterRole, deploy('demo-deploy-1')], [])).toEqual(
      [pending(deploy('demo-deploy-1')), pending(deploy('demo-deploy-2')), pending(clusterRole)],
    );
  });

  it('keeps the entries of workloads still listed as they are, results included', () => {
    expect(observedWorkloadsFor([a, b, c], [ok(a), failed(b), pending(c)])).toEqual([
      ok(a),
      failed(b),
      pending(c),
    ]);
  });

  it('keeps a Successful workload no longer listed, and drops a Failed or pending one', () => {
    expect(observedWorkloadsFor([c], [ok(a), failed(b), pending(deploy('d')), ok(c)])).toEqual([
      ok(a),
      ok(c),
    ]);
  });

  it('adds a workload listed for the first time, without a result', () => {
    expect(observedWorkloadsFor([a, b], [ok(a)])).toEqual([ok(a), pending(b)]);
  });

  it('takes a changed entry as one removed and one added', () => {
    const moved = deploy('a', 'other');
    expect(observedWorkloadsFor([moved], [failed(a)])).toEqual([pending(moved)]);
    expect(observedWorkloadsFor([moved], [ok(a)])).toEqual([ok(a), pending(moved)]);
  });

  it('changes nothing when only the order of the list changes', () => {
    const status = observedWorkloadsFor([c, a, b], []);
    expect(observedWorkloadsFor([b, c, a], status)).toEqual(status);
  });

  it('gives a workload listed twice one entry', () => {
    expect(observedWorkloadsFor([a, a], [])).toEqual([pending(a)]);
  });

  it('takes an empty namespace as an unset one, and records it unset', () => {
    const unset: WorkloadReference = { apiVersion: 'v1', kind: 'Namespace', name: 'shop' };
    const empty: WorkloadReference = { ...unset, namespace: '' };
    expect(observedWorkloadsFor([empty], [])).toEqual([pending(unset)]);
    expect(observedWorkloadsFor([empty], [ok(unset)])).toEqual([ok(unset)]);
  });

  it('records the four fields of a reference and nothing else', () => {
    const extra = { ...a, uid: 'u-1' } as WorkloadReference;
    expect(observedWorkloadsFor([extra], [])).toEqual([pending(a)]);
  });

  it('sorts by apiVersion, then kind, then namespace, then name', () => {
    const refs: WorkloadReference[] = [
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'x' },
      { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'a', name: 'x' },
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'b', name: 'a' },
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'a', name: 'z' },
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'a', name: 'b' },
    ];
    expect(observedWorkloadsFor(refs, []).map((e) => describeWorkload(e.workload))).toEqual([
      'Deployment a/b',
      'Deployment a/z',
      'Deployment b/a',
      'StatefulSet a/x',
      'ConfigMap a/x',
    ]);
  });
});

describe('isTriggeredSince and bindingStepFor', () => {
  it.each([
    ['unset', undefined, false],
    ['before the request', '2026-11-20T09:59:59Z', false],
    ['at the request', CREATED, true],
    ['after it (a later rebalancer)', '2026-11-20T10:00:01Z', true],
    ['unreadable', 'yesterday', false],
  ] as const)('a binding triggered %s: %s', (_name, at, triggered) => {
    expect(isTriggeredSince(at, CREATED)).toBe(triggered);
    expect(bindingStepFor(binding(at), CREATED).kind).toBe(triggered ? 'triggered' : 'trigger');
  });

  it('finds nothing to write without a binding', () => {
    expect(bindingStepFor(undefined, CREATED)).toEqual({ kind: 'missing' });
  });

  it('writes the request time, guarded by the resourceVersion read', () => {
    const b = binding('2026-11-20T09:00:00Z');
    expect(bindingStepFor(b, CREATED)).toEqual({
      kind: 'trigger',
      binding: b,
      patch: { metadata: { resourceVersion: '42' }, spec: { rescheduleTriggeredAt: CREATED } },
    });
  });

  it('compares instants, not strings', () => {
    expect(isTriggeredSince('2026-11-20T11:00:00+01:00', CREATED)).toBe(true);
    expect(isTriggeredSince('2026-11-20T10:59:59+01:00', CREATED)).toBe(false);
  });
});

describe('settleStatus', () => {
  const NOW = Date.parse('2026-11-20T10:00:07.600Z');
  const a = deploy('a');
  const b = deploy('b');

  it('writes the first results with observedGeneration and the finish time', () => {
    expect(
      settleStatus({ generation: 1, current: undefined, observed: [ok(a), failed(b)], nowMs: NOW }),
    ).toEqual({
      status: {
        observedWorkloads: [ok(a), failed(b)],
        observedGeneration: 1,
        finishTime: '2026-11-20T10:00:07Z',
      },
      changed: true,
      finished: true,
    });
  });

  it('has no finish time while a workload has no result', () => {
    expect(
      settleStatus({ generation: 1, current: undefined, observed: [ok(a), pending(b)], nowMs: NOW }),
    ).toEqual({
      status: { observedWorkloads: [ok(a), pending(b)], observedGeneration: 1 },
      changed: true,
      finished: false,
    });
  });

  it('writes nothing when nothing changed, and keeps the finish time', () => {
    const current = { observedWorkloads: [ok(a)], observedGeneration: 2, finishTime: '2026-11-20T09:00:00Z' };
    expect(settleStatus({ generation: 2, current, observed: [ok(a)], nowMs: NOW })).toEqual({
      status: current,
      changed: false,
      finished: true,
    });
  });

  it('finishes again, now, when a new generation is settled (the TTL counts from there)', () => {
    const current = { observedWorkloads: [ok(a)], observedGeneration: 2, finishTime: '2026-11-20T09:00:00Z' };
    const settled = settleStatus({ generation: 3, current, observed: [ok(a)], nowMs: NOW });
    expect(settled.changed).toBe(true);
    expect(settled.status).toEqual({ ...current, observedGeneration: 3, finishTime: '2026-11-20T10:00:07Z' });
  });

  it('drops the finish time when a workload is added, and sets it again when all have results', () => {
    const current = { observedWorkloads: [ok(a)], observedGeneration: 1, finishTime: '2026-11-20T09:00:00Z' };
    const adding = settleStatus({ generation: 2, current, observed: [ok(a), pending(b)], nowMs: NOW });
    expect(adding.status.finishTime).toBeUndefined();
    expect(adding.changed).toBe(true);
    const done = settleStatus({
      generation: 2,
      current: adding.status,
      observed: [ok(a), ok(b)],
      nowMs: NOW + 1000,
    });
    expect(done.status.finishTime).toBe('2026-11-20T10:00:08Z');
  });

  it('drops a finish time left while a workload is still pending', () => {
    const current = {
      observedWorkloads: [pending(a)],
      observedGeneration: 1,
      finishTime: '2026-11-20T09:00:00Z',
    };
    const settled = settleStatus({ generation: 1, current, observed: [pending(a)], nowMs: NOW });
    expect(settled).toEqual({
      status: { observedWorkloads: [pending(a)], observedGeneration: 1 },
      changed: true,
      finished: false,
    });
  });

  it('sets a missing finish time of a finished status', () => {
    const current = { observedWorkloads: [ok(a)], observedGeneration: 1 };
    const settled = settleStatus({ generation: 1, current, observed: [ok(a)], nowMs: NOW });
    expect(settled.changed).toBe(true);
    expect(settled.status.finishTime).toBe('2026-11-20T10:00:07Z');
  });

  it('writes nothing while the same workloads stay pending', () => {
    const current = { observedWorkloads: [pending(a)], observedGeneration: 1 };
    expect(settleStatus({ generation: 1, current, observed: [pending(a)], nowMs: NOW }).changed).toBe(false);
  });
});

describe('statusPatch', () => {
  it('sends every status field, null for what is unset, guarded by the resourceVersion', () => {
    expect(statusPatch({ observedWorkloads: [pending(deploy('a'))], observedGeneration: 4 }, '9')).toEqual({
      metadata: { resourceVersion: '9' },
      status: { observedWorkloads: [pending(deploy('a'))], observedGeneration: 4, finishTime: null },
    });
  });
});

describe('expiryOf', () => {
  const FINISHED = '2026-11-20T10:00:00Z';
  const at = (t: string): number => Date.parse(t);

  it.each([
    ['no TTL: kept', { finishTime: FINISHED, now: '2026-11-21T10:00:00Z' }, { kind: 'keep' }],
    ['not finished: kept', { ttl: 60, now: '2026-11-21T10:00:00Z' }, { kind: 'keep' }],
    [
      'before the TTL ran out: wait for the rest',
      { ttl: 60, finishTime: FINISHED, now: '2026-11-20T10:00:45.500Z' },
      { kind: 'wait', ms: 14_500 },
    ],
    [
      'when it ran out: delete',
      { ttl: 60, finishTime: FINISHED, now: '2026-11-20T10:01:00Z' },
      { kind: 'delete' },
    ],
    ['TTL 0: delete at once', { ttl: 0, finishTime: FINISHED, now: FINISHED }, { kind: 'delete' }],
    ['long after: delete', { ttl: 1, finishTime: FINISHED, now: '2026-11-25T00:00:00Z' }, { kind: 'delete' }],
  ] as const)('%s', (_name, c: { ttl?: number; finishTime?: string; now: string }, expected) => {
    expect(expiryOf(c.ttl, c.finishTime, at(c.now))).toEqual(expected);
  });
});
