import { afterAll, describe, expect, it } from 'vitest';
import { customization } from '@kf/interpreter/testing';
import { cloneSet, cloneSetScripts, failingScripts, interpreterWith } from '../interpreter/test-scripts.ts';
import { interpretedReplicas, interpretedWorkload } from './replicas.ts';

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

describe('interpretedWorkload', async () => {
  const JOB = { apiVersion: 'example.com/v1', kind: 'StreamJob' };
  const interpreter = await interpreterWith(
    customization('stream-job', JOB, {
      InterpretReplica: 'function GetReplicas(obj)\n  return obj.spec.workers\nend',
      InterpretComponent: `function GetComponents(obj)
  return {
    { name = "leader", replicas = 1, replicaRequirements = { resourceRequest = { cpu = "1" } } },
    { name = "worker", replicas = obj.spec.workers, replicaRequirements = { resourceRequest = { cpu = "2" } } },
  }
end`,
    }),
    cloneSetScripts,
  );
  const broken = await interpreterWith(
    customization('broken', JOB, {
      InterpretComponent: 'function GetComponents(obj)\n  error("no luck")\nend',
    }),
  );
  afterAll(() => {
    interpreter.close();
    broken.close();
  });
  const job = { ...JOB, metadata: { name: 'etl', namespace: 'default' }, spec: { workers: 3 } };

  it('takes components instead of replicas with the gate on', () => {
    expect(interpretedWorkload(job, interpreter, true)).toEqual({
      step: 'GetComponents',
      outcome: {
        kind: 'succeeded',
        value: {
          replicas: 0,
          replicaRequirements: undefined,
          components: [
            { name: 'leader', replicas: 1, replicaRequirements: { resourceRequest: { cpu: '1' } } },
            { name: 'worker', replicas: 3, replicaRequirements: { resourceRequest: { cpu: '2' } } },
          ],
        },
      },
    });
  });

  it('asks InterpretReplica with the gate off, and for kinds without an InterpretComponent script', () => {
    expect(interpretedWorkload(job, interpreter, false)).toEqual({
      step: 'GetReplicas',
      outcome: { kind: 'succeeded', value: { replicas: 3, replicaRequirements: undefined } },
    });
    expect(interpretedWorkload(cloneSet(2), interpreter, true).step).toBe('GetReplicas');
  });

  it('stops at a failing InterpretComponent script instead of falling back to replicas', () => {
    const out = interpretedWorkload(job, broken, true);
    expect(out.step).toBe('GetComponents');
    expect(out.outcome.kind === 'failed' && out.outcome.message).toContain('no luck');
  });
});
