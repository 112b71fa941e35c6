/**
 * WorkloadRebalancer after a failover, with real agents and the control plane as a process: a
 * Deployment divided 1:1 by static weights over member1 and member2 moves wholly to member2 when
 * member1's agent dies, and stays there when it comes back. A WorkloadRebalancer naming it asks its
 * binding for a fresh placement and it is split 1:1 again; one naming a Deployment without binding
 * reports it Failed. A rebalancer without TTL is kept; one given `ttlSecondsAfterFinished: 1` is
 * deleted about a second after it finished.
 * The namespace propagation cases (namespace-cases.ts) run on the same federation afterwards.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workloadRebalancerKind, type WorkloadRebalancer, type WorkloadReference } from '@kf/api';
import { ResourceClient } from '@kf/kube';
import { dividedByStaticWeights, startFailoverFederation, type FailoverFederation } from '@kf/testing';
import {
  NAMESPACE,
  binding,
  demoDeployment,
  eventsAbout,
  placement,
  policyFor,
  propagate,
  timeMs,
  until,
} from './support.ts';
import { defineNamespaceTests } from './namespace-cases.ts';

let fed: FailoverFederation;
let rebalancers: ResourceClient<WorkloadRebalancer>;

beforeAll(async () => {
  fed = await startFailoverFederation({ members: 2, nodes: 1 });
  rebalancers = new ResourceClient<WorkloadRebalancer>(fed.controlPlaneKubeConfig(), workloadRebalancerKind);
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

const deployment = (name: string): WorkloadReference => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace: NAMESPACE,
  name,
});

const placedAs = async (expected: Record<string, number>): Promise<boolean> =>
  isDeepStrictEqual(await placement(fed, 'web'), expected);

describe('WorkloadRebalancer', () => {
  it('a Deployment split 1:1 moves to member2 when member1 fails, and stays there when it returns', async () => {
    await propagate(
      fed,
      policyFor('web', dividedByStaticWeights({ member1: 1, member2: 1 })),
      demoDeployment('web', 2),
    );
    await until('web placed member1:1 member2:1', () => placedAs({ member1: 1, member2: 1 }));
    await fed.killAgent('member1');
    await until('web moved to member2', () => placedAs({ member2: 2 }), 120_000);
    // Until its eviction task is done, member1 is out of any placement of the binding.
    await until(
      'eviction task done',
      async () => ((await binding(fed, 'web'))?.spec.gracefulEvictionTasks ?? []).length === 0,
      60_000,
    );
    await fed.startAgent('member1');
    await fed.waitForHealthyClusters(90_000);
    expect(await placement(fed, 'web')).toEqual({ member2: 2 });
  });

  it('places the Deployment afresh, and reports it Successful', async () => {
    // Times have whole seconds: a request made in the second of the last placement is not after it.
    const lastScheduledMs = timeMs((await binding(fed, 'web'))?.status?.lastScheduledTime);
    await new Promise((r) => setTimeout(r, Math.max(0, lastScheduledMs + 1000 - Date.now())));
    const created = await rebalancers.create({
      metadata: { name: 'web-back' },
      spec: { workloads: [deployment('web')] },
    });
    await until('web placed member1:1 member2:1 again', () => placedAs({ member1: 1, member2: 1 }), 60_000);
    expect((await binding(fed, 'web'))?.spec.rescheduleTriggeredAt).toBe(created.metadata.creationTimestamp);
    const { status } = await rebalancers.get('web-back');
    expect(status?.observedWorkloads).toEqual([{ workload: deployment('web'), result: 'Successful' }]);
    expect(status?.observedGeneration).toBe(1);
    expect(status?.finishTime).toBeDefined();
    await until(
      'an Event on the rebalancer',
      async () => (await eventsAbout(fed, 'web-back', 'WorkloadRebalanced')).length === 1,
    );
    const metrics = await (await fetch(`${fed.controlPlaneUrl}/metrics`)).text();
    expect(metrics).toContain('karmada_failover_workload_rebalances_total{result="Successful"} 1');
  });

  it('reports a workload without binding Failed, and deletes a finished rebalancer once its TTL ran out', async () => {
    await rebalancers.create({
      metadata: { name: 'ghost-back' },
      spec: { workloads: [deployment('ghost')] },
    });
    await until(
      'ghost-back finished',
      async () => (await rebalancers.get('ghost-back')).status?.finishTime !== undefined,
    );
    expect((await rebalancers.get('ghost-back')).status?.observedWorkloads).toEqual([
      { workload: deployment('ghost'), result: 'Failed', reason: 'ReferencedBindingNotFound' },
    ]);

    // A new generation finishes again now, and the TTL counts from there.
    const editedAtMs = Date.now();
    await rebalancers.mergePatch('ghost-back', { spec: { ttlSecondsAfterFinished: 1 } });
    const goneAtMs = await until(
      'ghost-back deleted',
      async () => (await rebalancers.find('ghost-back')) === undefined,
      10_000,
      100,
    );
    expect(goneAtMs - editedAtMs).toBeLessThan(4_000);
    expect(await rebalancers.find('web-back')).toBeDefined();
  });
});

defineNamespaceTests(() => fed);
