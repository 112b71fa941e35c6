import { afterAll, describe, expect, it } from 'vitest';
import type { Condition } from '@kf/api';
import { SCRIPT_CONDITIONS, planScriptCondition, runScript } from './script-condition.ts';
import { CLONESET, cloneSet, failingScripts, interpreterWith } from './test-scripts.ts';

const NOW = Date.parse('2026-01-02T03:04:05Z');
const failed = { kind: 'failed', message: 'boom' } as const;

describe('planScriptCondition', () => {
  it('turns False with an Event on the first failure, and says nothing more while it repeats', () => {
    const first = planScriptCondition(undefined, 'GetReplicas', failed, NOW);
    expect(first?.conditions).toEqual([
      {
        type: 'ReplicasInterpreted',
        status: 'False',
        reason: 'GetReplicasFailed',
        message: 'boom',
        lastTransitionTime: '2026-01-02T03:04:05Z',
      },
    ]);
    expect(first?.event).toEqual({ reason: 'GetReplicasFailed', message: 'boom' });
    expect(planScriptCondition(first?.conditions, 'GetReplicas', failed, NOW + 1000)).toBeUndefined();
  });

  it('reports a failure with another message again', () => {
    const first = planScriptCondition(undefined, 'ReviseReplica', failed, NOW);
    const next = planScriptCondition(
      first?.conditions,
      'ReviseReplica',
      { kind: 'failed', message: 'other' },
      NOW,
    );
    expect(next?.event).toEqual({ reason: 'SyncWorkFailed', message: 'other' });
  });

  it('turns True without an Event once the script works, and goes when no script is left', () => {
    const broken = planScriptCondition(undefined, 'AggregateStatus', failed, NOW)?.conditions;
    const fixed = planScriptCondition(broken, 'AggregateStatus', { kind: 'succeeded', value: 1 }, NOW);
    expect(fixed?.event).toBeUndefined();
    expect(fixed?.conditions[0]).toMatchObject({
      type: SCRIPT_CONDITIONS.AggregateStatus.type,
      status: 'True',
      reason: 'AggregateStatusSucceed',
    });
    expect(
      planScriptCondition(fixed?.conditions, 'AggregateStatus', { kind: 'succeeded', value: 2 }, NOW),
    ).toBeUndefined();
    expect(planScriptCondition(fixed?.conditions, 'AggregateStatus', { kind: 'none' }, NOW)).toEqual({
      conditions: [],
    });
    expect(planScriptCondition(undefined, 'AggregateStatus', { kind: 'none' }, NOW)).toBeUndefined();
  });

  it('leaves the other conditions alone', () => {
    const scheduled: Condition = {
      type: 'Scheduled',
      status: 'True',
      reason: 'Success',
      message: '',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    };
    const plan = planScriptCondition([scheduled], 'GetReplicas', failed, NOW);
    expect(plan?.conditions.map((c) => c.type)).toEqual(['Scheduled', 'ReplicasInterpreted']);
  });
});

describe('runScript', async () => {
  const interpreter = await interpreterWith(failingScripts());
  afterAll(() => {
    interpreter.close();
  });

  it('is none without an interpreter or without a script for the kind', () => {
    expect(runScript(undefined, () => 1)).toEqual({ kind: 'none' });
    expect(runScript(interpreter, (i) => i.getReplicas({ apiVersion: 'v1', kind: 'ConfigMap' }))).toEqual({
      kind: 'none',
    });
  });

  it("turns a script's error into a failure naming the customization", () => {
    const out = runScript(interpreter, (i) => i.getReplicas({ ...cloneSet(1), ...CLONESET }));
    expect(out.kind).toBe('failed');
    expect(out.kind === 'failed' && out.message).toMatch(
      /InterpretReplica script of ResourceInterpreterCustomization broken.*no luck/,
    );
  });

  it('lets errors that are not the script’s through', () => {
    expect(() =>
      runScript(interpreter, () => {
        throw new TypeError('a bug');
      }),
    ).toThrow(TypeError);
  });
});
