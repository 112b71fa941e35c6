/**
 * A Push cluster joined by Karmada's own tooling (`karmadactl join`, Karmada v1.18.2): its Cluster
 * and credential Secrets in Karmada's shapes, its ServiceAccount and role in the member as Karmada
 * makes them. The project's control plane serves it as it serves its own joins: it reports its
 * status and applies its Works, and when its API server stops the cluster turns Ready=False
 * (ClusterNotReachable), its replica moves to the Pull member beside it, and when it returns its
 * old copy is removed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterReadyReasons, findCondition, namespaces, syncModes } from '@kf/api';
import { ResourceClient } from '@kf/kube';
import { SECRET_RESOURCE, type Secret } from '@kf/member';
import { dividedByStaticWeights, startFailoverFederation, type FailoverFederation } from '@kf/testing';
import {
  demoDeployment,
  placement,
  policyFor,
  propagate,
  returnedWithoutFailBack,
  runsAvailable,
  until,
} from '../e2e/support.ts';

let fed: FailoverFederation;

beforeAll(async () => {
  fed = await startFailoverFederation({
    members: 2,
    nodes: 1,
    pushMembers: ['member1'],
    pushJoin: 'karmadactl',
  });
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

const readyOf = async (name: string) =>
  findCondition((await fed.clusters.get(name)).status?.conditions, 'Ready');

describe('a Push cluster joined by karmadactl join', () => {
  it("is in Karmada's shapes and reported by the project's control plane", async () => {
    const cluster = await fed.clusters.get('member1');
    expect(cluster.spec).toMatchObject({
      syncMode: syncModes.push,
      secretRef: { namespace: namespaces.cluster, name: 'member1' },
      impersonatorSecretRef: { namespace: namespaces.cluster, name: 'member1-impersonator' },
    });
    const secret = await new ResourceClient<Secret>(fed.controlPlaneKubeConfig(), SECRET_RESOURCE).get(
      `${namespaces.cluster}/member1`,
    );
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(['caBundle', 'token']);
    expect(await readyOf('member1')).toMatchObject({
      status: 'True',
      reason: clusterReadyReasons.clusterReady,
    });
    expect(cluster.status?.kubernetesVersion).toMatch(/^v1\./);
    expect(cluster.status?.nodeSummary).toMatchObject({ totalNum: 1 });
  });

  it('gets its Works applied, fails over when its API server stops, and is cleaned up when it returns', async () => {
    await propagate(
      fed,
      policyFor('web', dividedByStaticWeights({ member1: 1, member2: 1 }), {
        failover: { cluster: { purgeMode: 'Gracefully' } },
      }),
      demoDeployment('web', 2),
    );
    await until('web 1/1 on member1', () => runsAvailable(fed, 'member1', 'web', 1));
    await until('web 1/1 on member2', () => runsAvailable(fed, 'member2', 'web', 1));

    await fed.killMemberApiServer('member1');
    await until('member1 Ready=False', async () => (await readyOf('member1'))?.status === 'False', 60_000);
    expect((await readyOf('member1'))?.reason).toBe(clusterReadyReasons.clusterNotReachable);
    await until(
      'web placed member2:2',
      async () => JSON.stringify(await placement(fed, 'web')) === JSON.stringify({ member2: 2 }),
      60_000,
    );
    await until('web 2/2 on member2', () => runsAvailable(fed, 'member2', 'web', 2), 60_000);

    await fed.startMemberApiServer('member1');
    await returnedWithoutFailBack(fed, 'member1', 'web', { member2: 2 });
  });
});
