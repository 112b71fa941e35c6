/**
 * The Argo Rollouts customization the project ships (deploy/customizations), run against its own
 * cases the way Karmada's third-party customizations are run against theirs.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceInterpreterCustomization } from '@kf/api';
import type { KubeObject } from './json.ts';
import { ScriptInterpreter } from './script-interpreter.ts';
import {
  type ThirdPartyCase,
  caseMismatch,
  caseSource,
  loadCustomizationCases,
  runCase,
} from './testing/thirdparty.ts';

const deployFolder = (path: string): string =>
  fileURLToPath(new URL(`../../../deploy/customizations/${path}`, import.meta.url));

const kind = await loadCustomizationCases(
  'argoproj.io/v1alpha1/Rollout',
  deployFolder('argoproj.io_v1alpha1_rollout.yaml'),
  deployFolder('testdata/argoproj.io/v1alpha1/Rollout'),
);

let scripts: ScriptInterpreter;
beforeAll(async () => {
  scripts = await ScriptInterpreter.create();
});
afterAll(() => {
  scripts.pool.close();
});

function rolloutCustomization(): ResourceInterpreterCustomization {
  const [customization] = kind.customizations;
  if (customization === undefined) throw new Error('the Rollout manifest holds no customization');
  return customization;
}

/** The script of `operation`, as the runner picks it for a case. */
function sourceFor(operation: string) {
  return caseSource(rolloutCustomization(), { file: '', name: '', operation });
}

it('ships one customization for argoproj.io/v1alpha1 Rollout with every operation but retention', () => {
  expect(kind.customizations).toHaveLength(1);
  const customization = rolloutCustomization();
  expect(customization.spec.target).toEqual({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout' });
  expect(Object.keys(customization.spec.customizations).sort()).toEqual([
    'dependencyInterpretation',
    'healthInterpretation',
    'replicaResource',
    'replicaRevision',
    'statusAggregation',
    'statusReflection',
  ]);
});

it('has cases for every operation it customizes', () => {
  const operations = new Set(kind.cases.map((c) => c.operation));
  expect([...operations].sort()).toEqual([
    'AggregateStatus',
    'InterpretDependency',
    'InterpretHealth',
    'InterpretReplica',
    'InterpretStatus',
    'ReviseReplica',
  ]);
});

describe('argoproj.io/v1alpha1/Rollout', () => {
  it.each(kind.cases.map((c) => [`${c.file}: ${c.name}`, c] as const))('%s', (_name, c: ThirdPartyCase) => {
    const source = caseSource(rolloutCustomization(), c);
    expect(caseMismatch(c, runCase(scripts, source, c))).toBeUndefined();
  });
});

const rollout = (status: Record<string, unknown>): KubeObject => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  metadata: { name: 'web', namespace: 'shop', generation: 5 },
  spec: { replicas: 4 },
  status: { observedGeneration: '5', replicas: 4, updatedReplicas: 4, availableReplicas: 4, ...status },
});

describe('direct checks', () => {
  it('calls a Degraded rollout unhealthy even with every replica available', () => {
    const health = sourceFor('InterpretHealth');
    expect(scripts.interpretHealth(health, rollout({ phase: 'Healthy' }))).toBe(true);
    expect(scripts.interpretHealth(health, rollout({ phase: 'Degraded' }))).toBe(false);
  });

  it('reads observedGeneration as the string Rollouts store it as', () => {
    const health = sourceFor('InterpretHealth');
    expect(scripts.interpretHealth(health, rollout({ observedGeneration: '4' }))).toBe(false);
    expect(scripts.interpretHealth(health, rollout({ observedGeneration: '5' }))).toBe(true);
  });

  it('sets spec.replicas to the number it is given', () => {
    const revised = scripts.reviseReplica(sourceFor('ReviseReplica'), rollout({}), 7);
    expect(revised.spec).toEqual({ replicas: 7 });
    expect(revised.metadata).toEqual({ name: 'web', namespace: 'shop', generation: 5 });
  });
});
