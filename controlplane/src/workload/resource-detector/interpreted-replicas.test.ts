import { afterAll, describe, expect, it } from 'vitest';
import { customization } from '@kf/interpreter/testing';
import { cloneSet, cloneSetScripts, failingScripts, interpreterWith } from '../interpreter/test-scripts.ts';
import { interpretedReplicas } from './replicas.ts';

describe('interpretedReplicas', async () => {
  const interpreter = await interpreterWith(
    cloneSetScripts,
    customization(
      'deployments',
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      {
        InterpretReplica: 'function GetReplicas(obj)\n  return obj.spec.replicas * 10\nend',
      },
    ),
  );
  const broken = await interpreterWith(failingScripts());
  afterAll(() => {
    interpreter.close();
    broken.close();
  });

  it("takes replicas and requirements from the kind's InterpretReplica script", () => {
    expect(interpretedReplicas(cloneSet(4), interpreter)).toEqual({
      kind: 'succeeded',
      value: { replicas: 4, replicaRequirements: { resourceRequest: { cpu: '250m', memory: '1Gi' } } },
    });
  });

  it('lets a customization of a built-in kind win over the built-in rules, as upstream asks it first', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 2 },
    };
    expect(interpretedReplicas(deployment, interpreter)).toEqual({
      kind: 'succeeded',
      value: { replicas: 20, replicaRequirements: undefined },
    });
  });

  it('is none for kinds without a script, and without an interpreter', () => {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    expect(interpretedReplicas(widget, interpreter)).toEqual({ kind: 'none' });
    expect(interpretedReplicas(cloneSet(4), undefined)).toEqual({ kind: 'none' });
  });

  it('fails with what the script said', () => {
    const out = interpretedReplicas(cloneSet(4), broken);
    expect(out.kind === 'failed' && out.message).toContain('no luck');
  });
});
