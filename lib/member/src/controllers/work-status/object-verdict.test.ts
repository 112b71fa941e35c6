import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResourceInterpreter, InterpreterScriptError, type ResourceInterpreter } from '@kf/interpreter';
import { customization } from '@kf/interpreter/testing';
import type { MemberInterpreter } from '../../interpreter/customizations.ts';
import { judgeObject } from './object-verdict.ts';

const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget' };
const widget = (status: Record<string, unknown>) => ({
  ...WIDGET,
  metadata: { name: 'w', namespace: 'default', generation: 2 },
  status,
});

/** An interpreter answering from fixed results; a function throws like a failing script. */
function scripted(answers: { health?: boolean | (() => never); status?: unknown }): MemberInterpreter {
  return {
    interpretHealth: () => (typeof answers.health === 'function' ? answers.health() : answers.health),
    reflectStatus: () => {
      if (typeof answers.status === 'function') return (answers.status as () => never)();
      return answers.status as ReturnType<MemberInterpreter['reflectStatus']>;
    },
    retain: () => undefined,
  };
}

const failing = (operation: 'InterpretHealth' | 'InterpretStatus') => (): never => {
  throw new InterpreterScriptError(operation, 'widgets', 'runtime', 'failed: script:3: boom');
};

describe('judgeObject', () => {
  it('uses the built-in rules without scripts: a Deployment not rolled out is Unhealthy, its status reduced', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', generation: 1 },
      spec: { replicas: 2 },
      status: { observedGeneration: 1, updatedReplicas: 1, availableReplicas: 1, conditions: [] },
    };
    expect(judgeObject(deployment, undefined)).toEqual({
      health: 'Unhealthy',
      status: { updatedReplicas: 1, availableReplicas: 1, generation: 1, observedGeneration: 1 },
      failures: [],
    });
    // The interpreter has no script for the kind: the same verdict.
    expect(judgeObject(deployment, scripted({}))).toEqual(judgeObject(deployment, undefined));
  });

  it('takes the health script over the built-in rule: true → Healthy, false → Unhealthy', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status: { phase: 'Pending' } };
    expect(judgeObject(pod, scripted({ health: true })).health).toBe('Healthy');
    expect(judgeObject(widget({}), scripted({ health: false })).health).toBe('Unhealthy');
  });

  it("reflects the status script's result instead of .status, and nothing for nil", () => {
    const obj = widget({ phase: 'Spinning', secret: 'x' });
    expect(judgeObject(obj, scripted({ status: { phase: 'Spinning' } })).status).toEqual({
      phase: 'Spinning',
    });
    expect(judgeObject(obj, scripted({ status: null }))).toEqual({ health: 'Healthy', failures: [] });
  });

  it('a failing health script: Unknown and the failure, the status still reflected', () => {
    const verdict = judgeObject(widget({ phase: 'x' }), scripted({ health: failing('InterpretHealth') }));
    expect(verdict).toEqual({
      health: 'Unknown',
      status: { phase: 'x' },
      failures: [
        {
          operation: 'InterpretHealth',
          message:
            'InterpretHealth script of ResourceInterpreterCustomization widgets: failed: script:3: boom',
        },
      ],
    });
  });

  it('a failing status script: the status left out, the health still judged', () => {
    const verdict = judgeObject(
      widget({ phase: 'x' }),
      scripted({ health: true, status: failing('InterpretStatus') }),
    );
    expect(verdict.health).toBe('Healthy');
    expect(verdict.status).toBeUndefined();
    expect(verdict.failures.map((f) => f.operation)).toEqual(['InterpretStatus']);
  });

  it('refuses a status that is not an object, and any error thrown (not only script errors)', () => {
    const list = judgeObject(widget({}), scripted({ status: [1, 2] }));
    expect(list.status).toBeUndefined();
    expect(list.failures[0]?.message).toMatch(/returned a list, not a table of fields/);
    const odd = judgeObject(
      widget({}),
      scripted({
        health: () => {
          throw new TypeError('unexpected');
        },
      }),
    );
    expect(odd).toMatchObject({
      health: 'Unknown',
      failures: [{ operation: 'InterpretHealth', message: 'unexpected' }],
    });
  });

  describe('with the real interpreter', () => {
    let interpreter: ResourceInterpreter;
    beforeAll(async () => {
      interpreter = await createResourceInterpreter([
        customization('widgets', WIDGET, {
          InterpretHealth: 'function InterpretHealth(o) return o.status.ready == o.status.wanted end',
          InterpretStatus: 'function ReflectStatus(o) return { ready = o.status.ready } end',
        }),
      ]);
    });
    afterAll(() => {
      interpreter.close();
    });

    it('judges by the scripts, and a script that indexes nil fails with the script line', () => {
      expect(judgeObject(widget({ ready: 2, wanted: 2 }), interpreter)).toEqual({
        health: 'Healthy',
        status: { ready: 2 },
        failures: [],
      });
      expect(judgeObject(widget({ ready: 1, wanted: 2 }), interpreter).health).toBe('Unhealthy');
      const noStatus = { ...WIDGET, metadata: { name: 'w' } };
      const verdict = judgeObject(noStatus, interpreter);
      expect(verdict.health).toBe('Unknown');
      expect(verdict.status).toBeUndefined();
      expect(verdict.failures.map((f) => f.operation)).toEqual(['InterpretHealth', 'InterpretStatus']);
      expect(verdict.failures[0]?.message).toMatch(
        /^InterpretHealth script of ResourceInterpreterCustomization widgets: .*status/,
      );
    });
  });
});
