import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InterpreterScriptError } from './errors.ts';
import type { KubeObject } from './json.ts';
import { type LuaSandbox, VmCrashedError } from './lua/sandbox.ts';
import { type ResourceInterpreter, createResourceInterpreter } from './resource-interpreter.ts';
import { customization } from './testing/sources.ts';

const target = { apiVersion: 'example.io/v1', kind: 'Widget' };
const widget: KubeObject = {
  ...target,
  metadata: { name: 'w', namespace: 'ns' },
  spec: { replicas: 2, configMap: 'settings', secret: 'token' },
  status: { ready: true },
};

const widgetScripts = {
  InterpretHealth: 'function InterpretHealth(obj) return obj.status.ready end',
  InterpretReplica:
    'function GetReplicas(obj) return obj.spec.replicas, { namespace = obj.metadata.namespace } end',
  ReviseReplica: 'function ReviseReplica(obj, n) obj.spec.replicas = n return obj end',
  Retain: 'function Retain(d, o) d.status = o.status return d end',
  AggregateStatus: 'function AggregateStatus(obj, items) obj.status = { clusters = #items } return obj end',
  InterpretStatus: 'function ReflectStatus(obj) return obj.status end',
  InterpretComponent:
    'function GetComponents(obj) return { { name = "main", replicas = obj.spec.replicas } } end',
  InterpretDependency: `function GetDependencies(obj)
    return { { apiVersion = "v1", kind = "ConfigMap", namespace = "ns", name = obj.spec.configMap } }
  end`,
};

let interpreter: ResourceInterpreter;
beforeAll(async () => {
  interpreter = await createResourceInterpreter([
    customization('widget', target, widgetScripts, '1'),
    customization(
      'widget-secrets',
      target,
      {
        InterpretDependency: `function GetDependencies(obj)
        return {
          { apiVersion = "v1", kind = "Secret", namespace = "ns", name = obj.spec.secret },
          { apiVersion = "v1", kind = "ConfigMap", namespace = "ns", name = obj.spec.configMap },
        }
      end`,
      },
      '1',
    ),
  ]);
});
afterAll(() => {
  interpreter.close();
});

describe('ResourceInterpreter', () => {
  it('runs each operation of the kind', () => {
    expect(interpreter.interpretHealth(widget)).toBe(true);
    expect(interpreter.getReplicas(widget)).toEqual({ replicas: 2, requirements: { namespace: 'ns' } });
    expect(interpreter.reviseReplica(widget, 5)?.spec).toMatchObject({ replicas: 5 });
    expect(interpreter.retain({ ...widget, status: {} }, widget)?.status).toEqual({ ready: true });
    expect(interpreter.aggregateStatus(widget, [{ clusterName: 'a' }, { clusterName: 'b' }])?.status).toEqual(
      { clusters: 2 },
    );
    expect(interpreter.reflectStatus(widget)).toEqual({ ready: true });
    expect(interpreter.getComponents(widget)).toEqual([{ name: 'main', replicas: 2 }]);
  });

  it('merges the references of every dependency script, without duplicates, sorted', () => {
    expect(interpreter.getDependencies(widget)).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'settings' },
      { apiVersion: 'v1', kind: 'Secret', namespace: 'ns', name: 'token' },
    ]);
  });

  it('returns undefined for kinds no customization scripts', () => {
    const other = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } };
    expect(interpreter.interpretHealth(other)).toBeUndefined();
    expect(interpreter.getReplicas(other)).toBeUndefined();
    expect(interpreter.reviseReplica(other, 1)).toBeUndefined();
    expect(interpreter.retain(other, other)).toBeUndefined();
    expect(interpreter.aggregateStatus(other, [])).toBeUndefined();
    expect(interpreter.reflectStatus(other)).toBeUndefined();
    expect(interpreter.getDependencies(other)).toBeUndefined();
    expect(interpreter.getComponents(other)).toBeUndefined();
    expect(interpreter.hookEnabled('apps/v1', 'Deployment', 'InterpretHealth')).toBe(false);
    expect(interpreter.hookEnabled(target.apiVersion, target.kind, 'InterpretHealth')).toBe(true);
  });

  it('reuses one VM and compiles each script once', () => {
    const before = interpreter.stats;
    for (let i = 0; i < 200; i++) interpreter.interpretHealth(widget);
    expect(interpreter.stats.vmsCreated).toBe(before.vmsCreated);
    expect(interpreter.stats.compiledScripts).toBe(before.compiledScripts);
  });

  it('recompiles only the customizations an update changed', async () => {
    const secrets = customization(
      'widget-secrets',
      target,
      { InterpretDependency: 'function GetDependencies(obj) return {} end' },
      '7',
    );
    const fresh = await createResourceInterpreter([
      customization('widget', target, widgetScripts, '1'),
      secrets,
    ]);
    try {
      fresh.interpretHealth(widget);
      fresh.getDependencies(widget);
      expect(fresh.stats.compiledScripts).toBe(3);
      fresh.update([
        customization(
          'widget',
          target,
          { ...widgetScripts, InterpretHealth: 'function InterpretHealth() return false end' },
          '2',
        ),
        secrets,
      ]);
      expect(fresh.stats.compiledScripts).toBe(1);
      expect(fresh.interpretHealth(widget)).toBe(false);
      expect(fresh.stats.compiledScripts).toBe(2);
      fresh.update([customization('widget', target, { ...widgetScripts, InterpretHealth: 'x' }, '3')]);
      expect(() => fresh.interpretHealth(widget)).toThrow(InterpreterScriptError);
      expect(fresh.reflectStatus(widget)).toEqual({ ready: true });
    } finally {
      fresh.close();
    }
  });

  it('frees a script that ran out of memory and keeps serving the others', async () => {
    const small = await createResourceInterpreter(
      [
        customization('hog', target, {
          InterpretHealth:
            'hoard = {} function InterpretHealth(obj) for i = 1, 1e8 do hoard[i] = { i } end end',
          InterpretStatus: 'function ReflectStatus(obj) return { ok = true } end',
        }),
      ],
      { memoryLimitBytes: 4 * 1024 * 1024, timeoutMs: 10_000 },
    );
    try {
      expect(() => small.interpretHealth(widget)).toThrow(/ran out of the 4 MiB the Lua VM may use/);
      expect(small.stats.memoryUsedBytes).toBeLessThan(1024 * 1024);
      expect(small.reflectStatus(widget)).toEqual({ ok: true });
    } finally {
      small.close();
    }
  });

  it('moves to the spare VM when the VM fails underneath Lua', async () => {
    const fragile = await createResourceInterpreter([customization('widget', target, widgetScripts)]);
    try {
      const pool = (fragile as unknown as { scripts: { pool: object } }).scripts.pool;
      const active = Reflect.get(pool, 'active') as LuaSandbox;
      vi.spyOn(active, 'call').mockImplementation(() => {
        vi.spyOn(active, 'crashed', 'get').mockReturnValue(true);
        throw new VmCrashedError('trap');
      });
      expect(() => fragile.interpretHealth(widget)).toThrow(/the Lua VM failed while running the script/);
      expect(fragile.interpretHealth(widget)).toBe(true);
      await vi.waitFor(() => {
        expect(fragile.stats.vmsCreated).toBe(3);
      });
    } finally {
      fragile.close();
    }
  });

  it('refuses calls once closed', async () => {
    const closed = await createResourceInterpreter([customization('widget', target, widgetScripts)]);
    closed.close();
    expect(() => closed.interpretHealth(widget)).toThrow(/the interpreter is closed/);
  });
});
