import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterCondition, ConditionStatus, Taint } from '@kf/api';
import { planSchedulingTaints } from './scheduling-taints.ts';

const NOW = Date.parse('2026-11-20T10:00:00Z');
const STAMP = '2026-11-20T10:00:00Z';
const OLD = '2026-11-01T00:00:00Z';

const notReady: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule', timeAdded: OLD };
const unreachable: Taint = { key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule', timeAdded: OLD };
const notReadyExecute: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: OLD };
const cordon: Taint = { key: 'cluster.karmada.io/unschedulable', effect: 'NoSchedule' };
const newNotReady: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule', timeAdded: STAMP };
const newUnreachable: Taint = {
  key: 'cluster.karmada.io/unreachable',
  effect: 'NoSchedule',
  timeAdded: STAMP,
};

const ready = (status: ConditionStatus): ClusterCondition => ({ type: 'Ready', status });

describe('planSchedulingTaints', () => {
  it.each<[string, Taint[] | undefined, ConditionStatus | undefined, Taint[], Taint[], Taint[], boolean]>([
    ['Ready absent adds not-ready', undefined, undefined, [newNotReady], [newNotReady], [], true],
    [
      'Ready absent keeps unreachable (upstream removes nothing)',
      [unreachable],
      undefined,
      [unreachable, newNotReady],
      [newNotReady],
      [],
      true,
    ],
    ['Ready False adds not-ready', [], 'False', [newNotReady], [newNotReady], [], true],
    [
      'Ready False swaps unreachable for not-ready',
      [unreachable],
      'False',
      [newNotReady],
      [newNotReady],
      [unreachable],
      true,
    ],
    ['Ready Unknown adds unreachable', [], 'Unknown', [newUnreachable], [newUnreachable], [], true],
    [
      'Ready Unknown swaps not-ready for unreachable',
      [notReady],
      'Unknown',
      [newUnreachable],
      [newUnreachable],
      [notReady],
      true,
    ],
    [
      'Ready True removes both',
      [notReady, cordon, unreachable],
      'True',
      [cordon],
      [],
      [notReady, unreachable],
      true,
    ],
    ['Ready True without taints changes nothing', undefined, 'True', [], [], [], false],
    [
      'an existing taint keeps its time and value',
      [{ ...notReady, value: 'v' }],
      'False',
      [{ ...notReady, value: 'v' }],
      [],
      [],
      false,
    ],
    [
      'NoExecute taints of the same keys are left alone',
      [notReadyExecute],
      'True',
      [notReadyExecute],
      [],
      [],
      false,
    ],
    [
      'NoExecute not-ready does not count as the NoSchedule one',
      [notReadyExecute],
      'False',
      [notReadyExecute, newNotReady],
      [newNotReady],
      [],
      true,
    ],
    [
      'added taints come after the others',
      [cordon, notReady],
      'Unknown',
      [cordon, newUnreachable],
      [newUnreachable],
      [notReady],
      true,
    ],
  ])('%s', (...[, current, status, taints, added, removed, changed]) => {
    const plan = planSchedulingTaints(current, status === undefined ? undefined : ready(status), NOW);
    expect(plan).toEqual({ taints, added, removed, changed });
  });

  const taint = fc.record<Taint>({
    key: fc.constantFrom('cluster.karmada.io/not-ready', 'cluster.karmada.io/unreachable', 'other'),
    effect: fc.constantFrom('NoSchedule', 'NoExecute'),
  });
  const status = fc.constantFrom<ConditionStatus | undefined>('True', 'False', 'Unknown', undefined);

  it('is idempotent: applying the plan and planning again changes nothing', () => {
    fc.assert(
      fc.property(fc.array(taint, { maxLength: 6 }), status, (current, s) => {
        const condition = s === undefined ? undefined : ready(s);
        const once = planSchedulingTaints(current, condition, NOW);
        const twice = planSchedulingTaints(once.taints, condition, NOW + 1_000);
        expect(twice.changed).toBe(false);
        expect(twice.taints).toEqual(once.taints);
      }),
    );
  });

  it('never touches taints other than the two NoSchedule ones', () => {
    fc.assert(
      fc.property(fc.array(taint, { maxLength: 6 }), status, (current, s) => {
        const managed = (t: Taint): boolean => t.effect === 'NoSchedule' && t.key !== 'other';
        const plan = planSchedulingTaints(current, s === undefined ? undefined : ready(s), NOW);
        expect(plan.taints.filter((t) => !managed(t))).toEqual(current.filter((t) => !managed(t)));
      }),
    );
  });
});
