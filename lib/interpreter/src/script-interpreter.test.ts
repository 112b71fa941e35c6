import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterpreterScriptError } from './errors.ts';
import type { KubeObject } from './json.ts';
import { ScriptInterpreter } from './script-interpreter.ts';
import { scriptSource } from './testing/sources.ts';

let scripts: ScriptInterpreter;
beforeAll(async () => {
  scripts = await ScriptInterpreter.create({ timeoutMs: 200 });
});
afterAll(() => {
  scripts.pool.close();
});

const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns', labels: {} },
  spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [] } } },
  status: { readyReplicas: 2 },
};

/** The InterpreterScriptError `run` throws. */
function failure(run: () => unknown): InterpreterScriptError {
  try {
    run();
  } catch (error) {
    if (error instanceof InterpreterScriptError) return error;
    throw error;
  }
  throw new Error('expected an InterpreterScriptError');
}

describe('InterpretHealth', () => {
  const health = (body: string): boolean =>
    scripts.interpretHealth(
      scriptSource('InterpretHealth', `function InterpretHealth(obj) ${body} end`),
      deployment,
    );

  it('returns the boolean', () => {
    expect(health('return obj.status.readyReplicas == obj.spec.replicas')).toBe(false);
    expect(health('return obj.metadata.name == "web"')).toBe(true);
  });

  it('refuses anything but a boolean', () => {
    const error = failure(() => health('return 1'));
    expect(error.reason).toBe('result');
    expect(error.operation).toBe('InterpretHealth');
    expect(error.customization).toBe('test');
    expect(error.message).toBe(
      'InterpretHealth script of ResourceInterpreterCustomization test: InterpretHealth must return a boolean (true when healthy), got number',
    );
    expect(failure(() => health('')).message).toMatch(/got nil$/);
  });
});

describe('InterpretReplica', () => {
  const replicas = (body: string): ReturnType<ScriptInterpreter['getReplicas']> =>
    scripts.getReplicas(
      scriptSource('InterpretReplica', `function GetReplicas(obj) ${body} end`),
      deployment,
    );

  it('returns the replicas and requirements, in Karmada types', () => {
    expect(replicas('return obj.spec.replicas')).toEqual({ replicas: 3 });
    expect(
      replicas(
        'return 2.9, { resourceRequest = { cpu = 0.5 }, nodeClaim = {}, namespace = obj.metadata.namespace }',
      ),
    ).toEqual({
      replicas: 2,
      requirements: { resourceRequest: { cpu: '500m' }, namespace: 'ns' },
    });
    expect(replicas('return 1, {}')).toEqual({ replicas: 1, requirements: {} });
  });

  it('refuses a missing number, wrong requirements and out-of-range replicas', () => {
    expect(failure(() => replicas('return "3"')).message).toMatch(
      /must return the number of replicas first, got string/,
    );
    expect(failure(() => replicas('return 1, "x"')).message).toMatch(
      /table of replica requirements or nil second, got string/,
    );
    expect(failure(() => replicas('return 1, { namespace = 1 }')).message).toMatch(
      /does not fit: field namespace: cannot unmarshal number 1/,
    );
    expect(failure(() => replicas('return 2^40')).message).toMatch(/out of the int32 range/);
    expect(failure(() => replicas('return 1, { f = print }')).message).toMatch(
      /cannot be read as JSON: cannot encode function/,
    );
  });
});

describe('ReviseReplica, Retain and AggregateStatus', () => {
  it('revises replicas, keeping empty objects and lists the desired object had', () => {
    const source = scriptSource(
      'ReviseReplica',
      'function ReviseReplica(obj, n) obj.spec.replicas = n return obj end',
    );
    expect(scripts.reviseReplica(source, deployment, 5)).toEqual({
      ...deployment,
      spec: { ...(deployment.spec as object), replicas: 5 },
    });
  });

  it('retains observed fields, settling empty tables against both objects', () => {
    const source = scriptSource(
      'Retain',
      'function Retain(desired, observed) desired.spec.paused = observed.spec.paused desired.spec.extra = {} return desired end',
    );
    const observed = { ...deployment, spec: { paused: true, strategy: {} } };
    const retained = scripts.retain(source, { ...deployment, spec: { strategy: {}, ports: [] } }, observed);
    expect(retained.spec).toEqual({ strategy: {}, ports: [], paused: true });
  });

  it('aggregates status items, nil when there are none', () => {
    const source = scriptSource(
      'AggregateStatus',
      `function AggregateStatus(obj, items)
        if items == nil then obj.status = { items = "none" } return obj end
        local ready = 0
        for _, item in ipairs(items) do ready = ready + item.status.readyReplicas end
        obj.status = { readyReplicas = ready, clusters = #items, applied = items[1].applied == true, health = items[1].health }
        return obj
      end`,
    );
    const items = [
      { clusterName: 'a', status: { readyReplicas: 2 }, applied: true, health: 'Healthy' as const },
      { clusterName: 'b', status: { readyReplicas: 1 }, applied: false },
    ];
    expect(scripts.aggregateStatus(source, deployment, items).status).toEqual({
      readyReplicas: 3,
      clusters: 2,
      applied: true,
      health: 'Healthy',
    });
    expect(scripts.aggregateStatus(source, deployment, undefined).status).toEqual({ items: 'none' });
  });

  it('refuses a result without a kind or that is not a table', () => {
    const noKind = scriptSource('Retain', 'function Retain(d, o) return { spec = d.spec } end');
    expect(failure(() => scripts.retain(noKind, deployment, deployment)).message).toMatch(
      /object with its kind/,
    );
    const number = scriptSource('ReviseReplica', 'function ReviseReplica(d, n) return n end');
    expect(failure(() => scripts.reviseReplica(number, deployment, 1)).message).toMatch(
      /must return the object, got number/,
    );
  });
});

describe('InterpretStatus', () => {
  it('returns the status, empty tables removed', () => {
    const source = scriptSource(
      'InterpretStatus',
      'function ReflectStatus(obj) return { readyReplicas = obj.status.readyReplicas, conditions = {} } end',
    );
    expect(scripts.reflectStatus(source, deployment)).toEqual({ readyReplicas: 2 });
    const empty = scriptSource('InterpretStatus', 'function ReflectStatus(obj) return {} end');
    expect(scripts.reflectStatus(empty, deployment)).toEqual({});
  });

  it('refuses a result that is not a table', () => {
    const source = scriptSource('InterpretStatus', 'function ReflectStatus(obj) return nil end');
    expect(failure(() => scripts.reflectStatus(source, deployment)).message).toMatch(
      /must return a table, got nil/,
    );
  });
});

describe('InterpretDependency', () => {
  const dependencies = (body: string): ReturnType<ScriptInterpreter['getDependencies']> =>
    scripts.getDependencies(
      scriptSource('InterpretDependency', `function GetDependencies(obj) ${body} end`),
      deployment,
    );

  it('returns checked references', () => {
    expect(dependencies('return {}')).toEqual([]);
    expect(
      dependencies(
        'return { { apiVersion = "v1", kind = "ConfigMap", namespace = "ns", name = "c", extra = 1 } }',
      ),
    ).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'c' }]);
    expect(
      dependencies(
        'return { { apiVersion = "v1", kind = "Secret", labelSelector = { matchLabels = { app = "x" } } } }',
      ),
    ).toEqual([{ apiVersion: 'v1', kind: 'Secret', labelSelector: { matchLabels: { app: 'x' } } }]);
  });

  it.each([
    ['{ { kind = "ConfigMap", name = "c" } }', 'dependencies[0].apiVersion: missing required apiVersion'],
    ['{ { apiVersion = "v1", name = "c" } }', 'dependencies[0].kind: missing required kind'],
    [
      '{ { apiVersion = "v1", kind = "Secret" } }',
      'dependency can not leave name and labelSelector all empty',
    ],
    [
      '{ { apiVersion = "v1", kind = "Secret", labelSelector = { matchExpressions = { { key = "a", operator = "In" } } } } }',
      'must be specified when operator is In or NotIn',
    ],
    [
      '{ { apiVersion = "v1", kind = "Secret", labelSelector = { matchLabels = { ["bad key!"] = "x" } } } }',
      'invalid label key "bad key!"',
    ],
    ['"x"', 'must return a table of references, got string'],
    ['{ { apiVersion = 1 } }', 'cannot unmarshal number 1'],
  ])('refuses %s', (result, message) => {
    expect(failure(() => dependencies(`return ${result}`)).message).toContain(message);
  });
});

describe('InterpretComponent', () => {
  const components = (body: string): ReturnType<ScriptInterpreter['getComponents']> =>
    scripts.getComponents(
      scriptSource('InterpretComponent', `function GetComponents(obj) ${body} end`),
      deployment,
    );

  it('returns components, none for nil', () => {
    expect(components('return nil')).toEqual([]);
    expect(components('return {}')).toEqual([]);
    expect(
      components(
        'return { { name = "main", replicas = obj.spec.replicas, replicaRequirements = { resourceRequest = { memory = "1Gi" } } } }',
      ),
    ).toEqual([{ name: 'main', replicas: 3, replicaRequirements: { resourceRequest: { memory: '1Gi' } } }]);
  });

  it('refuses components of the wrong shape', () => {
    expect(failure(() => components('return 1')).message).toMatch(/table of components or nil, got number/);
    expect(failure(() => components('return { { name = "a", replicas = 1.5 } }')).message).toMatch(/int32/);
  });
});

describe('failures common to every operation', () => {
  const health = (script: string): boolean =>
    scripts.interpretHealth(scriptSource('InterpretHealth', script), deployment);

  it.each<[string, string, RegExp]>([
    ['compile', 'function InterpretHealth(', /does not compile: script:1: .*; fix the Lua syntax$/],
    [
      'runtime',
      'function InterpretHealth(obj) return obj.nope.deeper end',
      /failed: script:1: attempt to index a nil value \(field 'nope'\)$/,
    ],
    ['timeout', 'function InterpretHealth(obj) while true do end end', /did not return within 200 ms;/],
    [
      'missing-function',
      'function Health(obj) return true end',
      /not found function InterpretHealth; define function InterpretHealth\(observedObj\)$/,
    ],
  ])('%s, and the VM works on', (reason, script, message) => {
    const error = failure(() => health(script));
    expect(error.reason).toBe(reason);
    expect(error.message).toMatch(message);
    expect(health('function InterpretHealth(obj) return true end')).toBe(true);
  });

  it('reports an object Lua cannot be given', () => {
    const source = scriptSource('InterpretHealth', 'function InterpretHealth(obj) return true end');
    const error = failure(() => scripts.interpretHealth(source, { kind: 'X', bad: () => 1 }));
    expect(error.reason).toBe('input');
    expect(error.message).toMatch(/the object could not be passed to Lua: cannot pass a function to Lua/);
  });

  it('refuses a script of another operation', () => {
    const source = scriptSource('InterpretStatus', 'function ReflectStatus() end');
    expect(() => scripts.interpretHealth(source, deployment)).toThrow(TypeError);
  });
});
