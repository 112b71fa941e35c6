/**
 * Karmada's own karmada-agent (v1.18.2, built from its Go module) as a member of the project's
 * control plane, with the identity `karmadactl register` issues and the access deploy/agent grants
 * (plus deploy/agent/karmada-agent.yaml, what Karmada's agent reads beyond the project's): it
 * registers, its Works are scheduled and applied, and when it dies the project's control plane
 * fails its workloads over to the other member.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCondition } from '@kf/api';
import { startFailoverFederation, type FailoverFederation } from '@kf/testing';
import {
  TAINTS,
  clusterTaint,
  demoDeployment,
  memberCopy,
  placement,
  policyFor,
  propagate,
  runsAvailable,
  until,
  workHealth,
} from '../e2e/support.ts';

let fed: FailoverFederation;

beforeAll(async () => {
  fed = await startFailoverFederation({ members: 2, nodes: 1, karmadaAgents: ['member2'] });
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

describe("Karmada's karmada-agent in the project's control plane", () => {
  it('registers in pull mode, renews its Lease and reports Ready with its status', async () => {
    const cluster = await fed.clusters.get('member2');
    expect(cluster.spec.syncMode).toBe('Pull');
    expect(findCondition(cluster.status?.conditions, 'Ready')?.status).toBe('True');
    expect(cluster.status?.kubernetesVersion).toMatch(/^v1\./);
    expect(cluster.status?.nodeSummary?.readyNum).toBe(1);
    const lease = await fed.leases.get('karmada-cluster/member2');
    expect(lease.spec?.holderIdentity).toBe('member2');
  });

  it('applies the Works the project schedules for it and reports them applied and healthy', async () => {
    await propagate(
      fed,
      policyFor('mixed', {
        clusterAffinity: { clusterNames: ['member1', 'member2'] },
        replicaScheduling: { replicaSchedulingType: 'Duplicated' },
      }),
      demoDeployment('mixed', 1),
    );
    await until('mixed available on both members', async () => {
      return (
        (await runsAvailable(fed, 'member1', 'mixed', 1)) && (await runsAvailable(fed, 'member2', 'mixed', 1))
      );
    });
    await until(
      'the Work on member2 reported Healthy',
      async () => (await workHealth(fed, 'mixed', 'member2')) === 'Healthy',
    );
  });

  it('dies: the project taints its cluster and moves its workloads to the other member', async () => {
    await propagate(
      fed,
      policyFor('movable', {
        clusterAffinity: { clusterNames: ['member1', 'member2'] },
        replicaScheduling: {
          replicaSchedulingType: 'Divided',
          replicaDivisionPreference: 'Weighted',
          weightPreference: {
            staticWeightList: [
              { targetCluster: { clusterNames: ['member1'] }, weight: 1 },
              { targetCluster: { clusterNames: ['member2'] }, weight: 1 },
            ],
          },
        },
      }),
      demoDeployment('movable', 2),
    );
    await until('movable split over both members', async () => {
      const p = await placement(fed, 'movable');
      return p?.['member1'] === 1 && p['member2'] === 1;
    });
    await until('movable available on member2', () => runsAvailable(fed, 'member2', 'movable', 1));

    await fed.killAgent('member2');
    await until('member2 Ready Unknown', async () => {
      const c = await fed.clusters.get('member2');
      return findCondition(c.status?.conditions, 'Ready')?.status === 'Unknown';
    });
    await until(
      'member2 tainted not-ready:NoExecute',
      async () => (await clusterTaint(fed, 'member2', TAINTS.notReadyExecute)) !== undefined,
    );
    await until('both replicas of movable on member1', async () => {
      const p = await placement(fed, 'movable');
      return (
        p?.['member2'] === undefined &&
        p?.['member1'] === 2 &&
        (await runsAvailable(fed, 'member1', 'movable', 2))
      );
    });

    await fed.startAgent('member2');
    await until('member2 Ready again', async () => {
      const c = await fed.clusters.get('member2');
      return findCondition(c.status?.conditions, 'Ready')?.status === 'True';
    });
    await until(
      'its stale copy of movable deleted by karmada-agent',
      async () => (await memberCopy(fed, 'member2', 'movable')) === undefined,
    );
  });
});
