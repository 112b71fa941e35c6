import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  annotations,
  formatTime,
  type Cluster,
  type ClusterCondition,
  type ConditionStatus,
  type MatchCondition,
  type Taint,
} from '@kf/api';
import {
  areConditionsMatched,
  holdSecondsOf,
  planPolicyTaints,
  type HeldClusterTaintPolicy,
} from './policy-taints.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const s = (seconds: number): number => T0 + seconds * 1000;
const at = (seconds: number): string => formatTime(s(seconds));

const notReadyExecute = { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute' } as const;
const dnsNoSchedule = { key: 'example.com/dns', effect: 'NoSchedule', value: 'broken' } as const;
const readyNotTrue: MatchCondition = { conditionType: 'Ready', operator: 'NotIn', statusValues: ['True'] };
const readyTrue: MatchCondition = { conditionType: 'Ready', operator: 'In', statusValues: ['True'] };

const cond = (type: string, status: ConditionStatus, sinceSeconds?: number): ClusterCondition => ({
  type,
  status,
  ...(sinceSeconds === undefined ? {} : { lastTransitionTime: at(sinceSeconds) }),
});

const clusterWith = (conditions: ClusterCondition[], taints?: Taint[], name = 'm1'): Cluster => ({
  metadata: { name, labels: { env: 'prod' } },
  spec: { syncMode: 'Pull', ...(taints === undefined ? {} : { taints }) },
  status: { conditions },
});

const policy = (
  name: string,
  spec: Partial<HeldClusterTaintPolicy['spec']>,
  createdSeconds = 0,
): HeldClusterTaintPolicy => ({
  metadata: { name, creationTimestamp: at(createdSeconds) },
  spec: {
    taints: [notReadyExecute],
    addOnConditions: [readyNotTrue],
    removeOnConditions: [readyTrue],
    ...spec,
  },
});

const stamped = (
  t: { key: string; effect: 'NoSchedule' | 'NoExecute'; value?: string },
  seconds: number,
): Taint => ({
  ...t,
  timeAdded: at(seconds),
});

describe('areConditionsMatched', () => {
  const conditions = [cond('Ready', 'False'), cond('Dns', 'True')];
  it.each<[string, MatchCondition[] | undefined, boolean]>([
    ['unset never matches', undefined, false],
    ['empty never matches', [], false],
    [
      'In with the status',
      [{ conditionType: 'Ready', operator: 'In', statusValues: ['False', 'Unknown'] }],
      true,
    ],
    ['In without the status', [{ conditionType: 'Ready', operator: 'In', statusValues: ['True'] }], false],
    ['NotIn without the status', [readyNotTrue], true],
    ['NotIn with the status', [{ conditionType: 'Dns', operator: 'NotIn', statusValues: ['True'] }], false],
    ['In on a missing condition', [{ conditionType: 'Gone', operator: 'In', statusValues: ['True'] }], false],
    [
      'NotIn on a missing condition',
      [{ conditionType: 'Gone', operator: 'NotIn', statusValues: ['True'] }],
      false,
    ],
    [
      'all must hold',
      [readyNotTrue, { conditionType: 'Dns', operator: 'In', statusValues: ['False'] }],
      false,
    ],
    ['all hold', [readyNotTrue, { conditionType: 'Dns', operator: 'In', statusValues: ['True'] }], true],
    [
      'an unknown operator fails the whole list',
      [readyNotTrue, { conditionType: 'Dns', operator: 'Gt' as 'In', statusValues: ['True'] }],
      false,
    ],
  ])('%s', (_name, matches, expected) => {
    expect(areConditionsMatched(conditions, matches)).toBe(expected);
  });
});

describe('planPolicyTaints', () => {
  it.each<[string, Cluster, HeldClusterTaintPolicy[], number, Taint[], number | undefined]>([
    [
      'no policies: taints unchanged',
      clusterWith([cond('Ready', 'False')], [dnsNoSchedule]),
      [],
      0,
      [dnsNoSchedule],
      undefined,
    ],
    [
      'adds on matching conditions with timeAdded now',
      clusterWith([cond('Ready', 'False', 0)]),
      [policy('p', {})],
      5,
      [stamped(notReadyExecute, 5)],
      undefined,
    ],
    [
      'does not add twice',
      clusterWith([cond('Ready', 'False')], [stamped(notReadyExecute, 1)]),
      [policy('p', {})],
      5,
      [stamped(notReadyExecute, 1)],
      undefined,
    ],
    [
      'an existing taint of the same key and effect counts whatever its value',
      clusterWith([cond('Ready', 'False')], [{ ...notReadyExecute, value: 'x' }]),
      [policy('p', {})],
      5,
      [{ ...notReadyExecute, value: 'x' }],
      undefined,
    ],
    [
      'removes on matching remove conditions',
      clusterWith([cond('Ready', 'True')], [dnsNoSchedule, stamped(notReadyExecute, 1)]),
      [policy('p', {})],
      5,
      [dnsNoSchedule],
      undefined,
    ],
    [
      'removes only the first duplicate',
      clusterWith([cond('Ready', 'True')], [stamped(notReadyExecute, 1), stamped(notReadyExecute, 2)]),
      [policy('p', {})],
      5,
      [stamped(notReadyExecute, 2)],
      undefined,
    ],
    [
      'a missing condition neither adds nor removes',
      clusterWith([], [dnsNoSchedule]),
      [policy('p', {})],
      5,
      [dnsNoSchedule],
      undefined,
    ],
    [
      'a policy without remove conditions never removes',
      clusterWith([cond('Ready', 'True')], [stamped(notReadyExecute, 1)]),
      [policy('p', { removeOnConditions: [] })],
      5,
      [stamped(notReadyExecute, 1)],
      undefined,
    ],
    [
      'an untargeted cluster keeps its taints',
      clusterWith([cond('Ready', 'True')], [stamped(notReadyExecute, 1)]),
      [policy('p', { targetClusters: { clusterNames: ['m9'] } })],
      5,
      [stamped(notReadyExecute, 1)],
      undefined,
    ],
    [
      'a targeted cluster by label',
      clusterWith([cond('Ready', 'Unknown')]),
      [policy('p', { targetClusters: { labelSelector: { matchLabels: { env: 'prod' } } } })],
      5,
      [stamped(notReadyExecute, 5)],
      undefined,
    ],
    [
      'policy value is written',
      clusterWith([cond('Ready', 'False')]),
      [policy('p', { taints: [dnsNoSchedule] })],
      5,
      [stamped(dnsNoSchedule, 5)],
      undefined,
    ],
    [
      'when both match, add then remove: net nothing',
      clusterWith([cond('Ready', 'False')]),
      [policy('p', { removeOnConditions: [readyNotTrue] })],
      5,
      [],
      undefined,
    ],
    [
      'policies apply oldest first: a later remover wins over an earlier adder',
      clusterWith([cond('Ready', 'False')]),
      [
        policy('remover', { addOnConditions: [], removeOnConditions: [readyNotTrue] }, 2),
        policy('adder', { removeOnConditions: [] }, 1),
      ],
      5,
      [],
      undefined,
    ],
    [
      'policies apply oldest first: a later adder wins over an earlier remover',
      clusterWith([cond('Ready', 'False')]),
      [
        policy('remover', { addOnConditions: [], removeOnConditions: [readyNotTrue] }, 1),
        policy('adder', { removeOnConditions: [] }, 2),
      ],
      5,
      [stamped(notReadyExecute, 5)],
      undefined,
    ],
    [
      'equal creation times break by name',
      clusterWith([cond('Ready', 'False')]),
      [
        policy('b-adder', { removeOnConditions: [] }, 1),
        policy('a-remover', { addOnConditions: [], removeOnConditions: [readyNotTrue] }, 1),
      ],
      5,
      [stamped(notReadyExecute, 5)],
      undefined,
    ],
    [
      'hold: not yet held long enough, recheck when it will be',
      clusterWith([cond('Ready', 'False', 0)]),
      [policy('p', { addAfterSeconds: 60 })],
      20,
      [],
      40_000,
    ],
    [
      'hold: added once held exactly long enough',
      clusterWith([cond('Ready', 'False', 0)]),
      [policy('p', { addAfterSeconds: 60 })],
      60,
      [stamped(notReadyExecute, 60)],
      undefined,
    ],
    [
      'hold: the latest matched condition counts',
      clusterWith([cond('Ready', 'False', 0), cond('Dns', 'False', 30)]),
      [
        policy('p', {
          addAfterSeconds: 60,
          addOnConditions: [readyNotTrue, { conditionType: 'Dns', operator: 'In', statusValues: ['False'] }],
        }),
      ],
      60,
      [],
      30_000,
    ],
    [
      'hold: a condition without lastTransitionTime does not hold back',
      clusterWith([cond('Ready', 'False')]),
      [policy('p', { addAfterSeconds: 60 })],
      1,
      [stamped(notReadyExecute, 1)],
      undefined,
    ],
    [
      'hold: no recheck when the taint is already there',
      clusterWith([cond('Ready', 'False', 0)], [stamped(notReadyExecute, 0)]),
      [policy('p', { addAfterSeconds: 60 })],
      20,
      [stamped(notReadyExecute, 0)],
      undefined,
    ],
    [
      'hold: zero adds at once',
      clusterWith([cond('Ready', 'False', 0)]),
      [policy('p', { addAfterSeconds: 0 })],
      0,
      [stamped(notReadyExecute, 0)],
      undefined,
    ],
    [
      'hold: the shortest remaining hold is the recheck',
      clusterWith([cond('Ready', 'False', 0)]),
      [
        policy('slow', { addAfterSeconds: 120 }),
        policy('fast', { addAfterSeconds: 30, taints: [dnsNoSchedule] }),
      ],
      10,
      [],
      20_000,
    ],
    [
      'hold: one policy held, another adds',
      clusterWith([cond('Ready', 'False', 0)]),
      [policy('slow', { addAfterSeconds: 120 }), policy('fast', { taints: [dnsNoSchedule] }, 1)],
      10,
      [stamped(dnsNoSchedule, 10)],
      110_000,
    ],
  ])('%s', (...[, cluster, policies, nowSeconds, taints, recheckInMs]) => {
    const plan = planPolicyTaints(cluster, policies, s(nowSeconds));
    expect(plan.taints).toEqual(taints);
    expect(plan.recheckInMs).toBe(recheckInMs);
  });

  describe('hold measured on the control plane clock', () => {
    // Ready turned False; the member stamped it at 0 s on its clock; the control plane saw it at 50 s.
    const cluster = clusterWith([cond('Ready', 'False', 0)]);
    const seenAt = (seconds: number) => () => s(seconds);

    it('counts the hold from the moment the transition was seen, not from its stamp', () => {
      const plan = planPolicyTaints(cluster, [policy('p', { addAfterSeconds: 60 })], s(60), {
        conditionSinceMs: seenAt(50),
      });
      expect(plan.taints).toEqual([]);
      expect(plan.recheckInMs).toBe(50_000);
    });

    it('adds once held that long from the sighting', () => {
      const plan = planPolicyTaints(cluster, [policy('p', { addAfterSeconds: 60 })], s(110), {
        conditionSinceMs: seenAt(50),
      });
      expect(plan.taints).toEqual([stamped(notReadyExecute, 110)]);
    });

    it('holds nothing back for a transition time it does not know', () => {
      const plan = planPolicyTaints(cluster, [policy('p', { addAfterSeconds: 60 })], s(51), {
        conditionSinceMs: () => undefined,
      });
      expect(plan.taints).toEqual([stamped(notReadyExecute, 51)]);
    });
  });

  it('reports what it added and removed', () => {
    const cluster = clusterWith([cond('Ready', 'True')], [stamped(notReadyExecute, 1)]);
    const plan = planPolicyTaints(cluster, [policy('p', { taints: [notReadyExecute] })], s(5));
    expect(plan).toMatchObject({ added: [], removed: [stamped(notReadyExecute, 1)], changed: true });
  });

  describe('with a stale Ready=Unknown (the Lease is fresh)', () => {
    const unknown = clusterWith([cond('Ready', 'Unknown', 0)]);
    it.each<[string, HeldClusterTaintPolicy[], number, Taint[], unknown[], number | undefined]>([
      [
        'NoExecute on Ready waits while the Lease is fresh, and says so',
        [policy('p', { addAfterSeconds: 3 })],
        4_000,
        [],
        [{ policy: 'p', taint: notReadyExecute }],
        4_000,
      ],
      [
        'NoSchedule of the same policy is still added',
        [policy('p', { taints: [notReadyExecute, dnsNoSchedule] })],
        2_500,
        [stamped(dnsNoSchedule, 10)],
        [{ policy: 'p', taint: notReadyExecute }],
        2_500,
      ],
      [
        'a hold still running wins over the stale wait',
        [policy('p', { addAfterSeconds: 15 })],
        4_000,
        [],
        [],
        5_000,
      ],
      [
        'a policy that does not match on Ready is not held back',
        [
          policy('dns', {
            addOnConditions: [{ conditionType: 'Dns', operator: 'In', statusValues: ['False'] }],
            removeOnConditions: [],
          }),
        ],
        4_000,
        [stamped(notReadyExecute, 10)],
        [],
        undefined,
      ],
    ])('%s', (...[, policies, staleReadyForMs, taints, deferred, recheckInMs]) => {
      const cluster = {
        ...unknown,
        status: { conditions: [...(unknown.status?.conditions ?? []), cond('Dns', 'False', 0)] },
      };
      const plan = planPolicyTaints(cluster, policies, s(10), { staleReadyForMs });
      expect(plan.taints).toEqual(taints);
      expect(plan.deferred).toEqual(deferred);
      expect(plan.recheckInMs).toBe(recheckInMs);
    });

    it('a taint already there stays: the stale wait only holds back adding', () => {
      const tainted = clusterWith([cond('Ready', 'Unknown', 0)], [stamped(notReadyExecute, 5)]);
      const plan = planPolicyTaints(tainted, [policy('p', {})], s(10), { staleReadyForMs: 4_000 });
      expect(plan).toMatchObject({ changed: false, deferred: [] });
    });

    it('once the wait is over (0 ms left) NoExecute is added at once', () => {
      const plan = planPolicyTaints(unknown, [policy('p', { addAfterSeconds: 3 })], s(10), {
        staleReadyForMs: 0,
      });
      expect(plan.added).toEqual([stamped(notReadyExecute, 10)]);
    });
  });

  const statuses = fc.constantFrom<ConditionStatus>('True', 'False', 'Unknown');
  it('converges: planning on the planned taints changes nothing', () => {
    fc.assert(
      fc.property(
        statuses,
        fc.integer({ min: 0, max: 120 }),
        fc.integer({ min: 0, max: 300 }),
        (status, hold, now) => {
          const policies = [
            policy('p', { addAfterSeconds: hold }),
            policy('q', { taints: [dnsNoSchedule] }, 1),
          ];
          const cluster = clusterWith([cond('Ready', status, 0)]);
          const once = planPolicyTaints(cluster, policies, s(now));
          const again = planPolicyTaints(
            { ...cluster, spec: { ...cluster.spec, taints: once.taints } },
            policies,
            s(now),
          );
          expect(again.changed).toBe(false);
        },
      ),
    );
  });

  it('never adds before the hold has passed and always adds once it has', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 0, max: 1200 }), (hold, now) => {
        const cluster = clusterWith([cond('Ready', 'Unknown', 0)]);
        const plan = planPolicyTaints(cluster, [policy('p', { addAfterSeconds: hold })], s(now));
        expect(plan.added.length > 0).toBe(now >= hold);
        if (now < hold) expect(plan.recheckInMs).toBe((hold - now) * 1000);
      }),
    );
  });
});

describe('holdSecondsOf', () => {
  const held = (annotation: string | undefined, spec: number | undefined): HeldClusterTaintPolicy => {
    const p = policy('p', spec === undefined ? {} : { addAfterSeconds: spec });
    if (annotation === undefined) return p;
    return { ...p, metadata: { ...p.metadata, annotations: { [annotations.addAfterSeconds]: annotation } } };
  };

  it.each<[string, string | undefined, number | undefined, number]>([
    ['neither: no hold', undefined, undefined, 0],
    ['the spec field alone', undefined, 30, 30],
    ["the annotation alone (what works under Karmada's CRD)", '15', undefined, 15],
    ['the annotation wins over the spec field', '15', 30, 15],
    ['an unreadable annotation is ignored', '15s', 30, 30],
    ['a negative spec value is no hold', undefined, -5, 0],
  ])('%s', (_what, annotation, spec, expected) => {
    expect(holdSecondsOf(held(annotation, spec))).toBe(expected);
  });

  it('holds the taint back by the annotation', () => {
    const cluster = clusterWith([cond('Ready', 'False', 0)]);
    const plan = planPolicyTaints(cluster, [held('60', undefined)], s(20));
    expect(plan.recheckInMs).toBe(40_000);
  });
});
