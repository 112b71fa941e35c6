import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptInterpreter } from '../script-interpreter.ts';
import { scriptSource } from '../testing/sources.ts';

let scripts: ScriptInterpreter;
beforeAll(async () => {
  scripts = await ScriptInterpreter.create();
});
afterAll(() => {
  scripts.pool.close();
});

/** Runs `body` (which sees `obj` and `kube`) as a status reflection and returns its `value`. */
function evaluate(body: string, obj: Record<string, unknown> = { kind: 'Test' }): unknown {
  const source = scriptSource(
    'InterpretStatus',
    `local kube = require("kube")\nfunction ReflectStatus(obj)\n  return { value = (function() ${body} end)() }\nend`,
  );
  const status = scripts.reflectStatus(source, { kind: 'Test', ...obj }) as { value?: unknown };
  return status.value;
}

const template = (spec: Record<string, unknown>): Record<string, unknown> => ({
  kind: 'Test',
  spec: { template: { spec } },
});

describe('kube.resourceAdd', () => {
  it('sums quantity strings into a canonical quantity', () => {
    expect(evaluate('return kube.resourceAdd("1", "500m")')).toBe('1500m');
    expect(evaluate('return kube.resourceAdd("1Gi", "512Mi", nil)')).toBe('1536Mi');
    expect(evaluate('return kube.resourceAdd()')).toBe('0');
  });

  it('refuses numbers and malformed quantities, at the calling line', () => {
    expect(() => evaluate('return kube.resourceAdd(1)')).toThrow(
      "script:3: bad argument #1 to 'resourceAdd' (string expected, got number)",
    );
    expect(() => evaluate('return kube.resourceAdd("x")')).toThrow("cannot parse 'x'");
  });
});

describe('kube.getResourceQuantity', () => {
  it('reads a quantity as a number', () => {
    expect(evaluate('return kube.getResourceQuantity("2Gi")')).toBe(2147483648);
    expect(evaluate('return kube.getResourceQuantity("250m")')).toBe(0.25);
    expect(evaluate('return kube.getResourceQuantity(nil)')).toBe(0);
  });

  it('refuses negative values and a wrong number of arguments', () => {
    expect(() => evaluate('return kube.getResourceQuantity("-1")')).toThrow('negative value');
    expect(() => evaluate('return kube.getResourceQuantity("1", "2")')).toThrow('only accepts one argument');
  });
});

describe('kube.accuratePodRequirements', () => {
  const requirements = (spec: Record<string, unknown>): unknown =>
    evaluate('return kube.accuratePodRequirements(obj.spec.template)', template(spec));

  it('sums app containers, takes the largest init container, adds the overhead', () => {
    const spec = {
      containers: [
        { name: 'a', resources: { requests: { cpu: '250m', memory: '1Gi' } } },
        { name: 'b', resources: { limits: { cpu: '1', memory: '512Mi', 'nvidia.com/gpu': '1' } } },
      ],
      initContainers: [{ name: 'init', resources: { requests: { cpu: '2' } } }],
      overhead: { memory: '64Mi' },
    };
    expect(requirements(spec)).toEqual({
      resourceRequest: { cpu: '2', memory: '1600Mi', 'nvidia.com/gpu': '1' },
    });
  });

  it('claims nodes from the selector, tolerations and required node affinity', () => {
    const hard = {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
    };
    const spec = {
      containers: [{ name: 'a' }],
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'k', operator: 'Exists' }],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: hard } },
    };
    expect(requirements(spec)).toEqual({
      nodeClaim: {
        hardNodeAffinity: hard,
        nodeSelector: { disk: 'ssd' },
        tolerations: [{ key: 'k', operator: 'Exists' }],
      },
    });
  });

  it('ignores unknown native resources and returns nil when the pod asks for nothing', () => {
    expect(
      requirements({ containers: [{ name: 'a', resources: { requests: { storage: '1Gi' } } }] }),
    ).toBeUndefined();
  });

  it('refuses a malformed pod template', () => {
    expect(() => requirements({ containers: { name: 'a' } })).toThrow(
      'fail to convert lua value to PodTemplateSpec: field spec.containers: cannot unmarshal object',
    );
    expect(() => evaluate('return kube.accuratePodRequirements("x")')).toThrow(
      '(table expected, got string)',
    );
    expect(() => evaluate('return kube.accuratePodRequirements()')).toThrow('only accepts one argument');
  });
});

describe('kube.getPodDependencies', () => {
  const dependencies = (spec: Record<string, unknown>, namespace = '"ns"'): unknown =>
    evaluate(`return kube.getPodDependencies(obj.spec.template, ${namespace})`, template(spec));

  it('lists ConfigMaps, Secrets, the ServiceAccount and PVCs, in that order', () => {
    const spec = {
      serviceAccountName: 'runner',
      imagePullSecrets: [{ name: 'pull' }],
      containers: [
        {
          name: 'a',
          envFrom: [{ configMapRef: { name: 'cm-env' } }, { secretRef: { name: 's-env' } }],
          env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's-key', key: 'k' } } }],
        },
      ],
      volumes: [
        { name: 'v1', configMap: { name: 'cm-vol' } },
        { name: 'v2', secret: { secretName: 's-vol' } },
        { name: 'v3', persistentVolumeClaim: { claimName: 'data' } },
        {
          name: 'v4',
          projected: { sources: [{ secret: { name: 's-proj' } }, { configMap: { name: 'cm-proj' } }] },
        },
        { name: 'v5', csi: { driver: 'd', nodePublishSecretRef: { name: 's-csi' } } },
      ],
    };
    const ref = (kind: string, name: string): Record<string, string> => ({
      apiVersion: 'v1',
      kind,
      namespace: 'ns',
      name,
    });
    expect(dependencies(spec)).toEqual([
      ref('ConfigMap', 'cm-env'),
      ref('ConfigMap', 'cm-proj'),
      ref('ConfigMap', 'cm-vol'),
      ref('Secret', 'pull'),
      ref('Secret', 's-csi'),
      ref('Secret', 's-env'),
      ref('Secret', 's-key'),
      ref('Secret', 's-proj'),
      ref('Secret', 's-vol'),
      ref('ServiceAccount', 'runner'),
      ref('PersistentVolumeClaim', 'data'),
    ]);
  });

  it('uses the default namespace for nil and returns nil when there is nothing', () => {
    expect(dependencies({ serviceAccountName: 'x' }, 'nil')).toEqual([
      { apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'default', name: 'x' },
    ]);
    expect(dependencies({ serviceAccountName: 'default' })).toBeUndefined();
  });

  it('wants exactly two arguments', () => {
    expect(() => evaluate('return kube.getPodDependencies({})')).toThrow('only accepts two argument');
    expect(() => evaluate('return kube.getPodDependencies({}, {})')).toThrow(
      "bad argument #2 to 'getPodDependencies'",
    );
  });
});
