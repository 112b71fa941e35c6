/**
 * Karmada's own karmada-agent (v1.18.2, built from its Go module) as a member of the project's
 * control plane, with the identity `karmadactl register` issues and the access deploy/agent grants
 * (plus deploy/agent/karmada-agent.yaml, what Karmada's agent reads beyond the project's): it
 * registers, its Works are scheduled and applied, and when it dies the project's control plane
 * fails its workloads over to the other member. It judges a custom kind by the customization it
 * reads from the project's control plane (the Rollout one the project ships), and the project's
 * application failover acts on its verdict.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotations, findCondition, type Taint } from '@kf/api';
import { retryOnConflict } from '@kf/kube';
import { startFailoverFederation, type FailoverFederation } from '@kf/testing';
import { CustomKinds, ONE_CLUSTER, ROLLOUT, policyOf } from '../e2e/custom-kinds.ts';
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

  it("judges a Rollout by the project's shipped customization and the project moves it when Unhealthy", async () => {
    const kinds = new CustomKinds(fed);
    await kinds.install([ROLLOUT]);
    const name = 'canary';
    // Held off member1 until placed, so that Karmada's agent on member2 is the one that judges it.
    const hold: Taint = { key: 'example.com/hold', effect: 'NoSchedule' };
    await editClusterTaints('member1', (taints) => [...taints, hold]);
    await kinds.propagate(
      ROLLOUT,
      policyOf(ROLLOUT, name, ONE_CLUSTER, {
        propagateDeps: true,
        failover: { application: { decisionConditions: { tolerationSeconds: 5 }, purgeMode: 'Directly' } },
      }),
      ROLLOUT.template(name, 1),
    );
    await until(
      `${name} placed on member2`,
      async () => (await kinds.placedOn(ROLLOUT, name)).join() === 'member2',
    );
    await editClusterTaints('member1', (taints) => taints.filter((t) => t.key !== hold.key));
    await until(
      `${name} applied on member2`,
      async () => (await kinds.memberCopy(ROLLOUT, 'member2', name)) !== undefined,
    );

    await kinds.setMemberStatus(ROLLOUT, 'member2', name, ROLLOUT.healthyStatus);
    await until(`${name} Healthy in its Work on member2`, async () => {
      return (await kinds.workHealth(ROLLOUT, name, 'member2')) === 'Healthy';
    });
    await until(`${name} seen Healthy on member2`, async () => {
      const b = await kinds.bindingOf(ROLLOUT, name);
      return (b?.metadata.annotations?.[annotations.applicationFailoverHealthyClusters] ?? '').includes(
        'member2',
      );
    });
    // Karmada's agent calls a kind without a health script Healthy: Unhealthy comes from the script.
    await kinds.setMemberStatus(ROLLOUT, 'member2', name, ROLLOUT.unhealthyStatus);
    await until(`${name} Unhealthy in its Work on member2`, async () => {
      return (await kinds.workHealth(ROLLOUT, name, 'member2')) === 'Unhealthy';
    });
    await until(
      `${name} moved to member1`,
      async () => (await kinds.placedOn(ROLLOUT, name)).join() === 'member1',
    );
    await until(
      `${name} applied on member1`,
      async () => (await kinds.memberCopy(ROLLOUT, 'member1', name)) !== undefined,
    );
    await until(
      `${name} removed from member2 by karmada-agent`,
      async () => (await kinds.memberCopy(ROLLOUT, 'member2', name)) === undefined,
    );
  });
});

/** Read-modify-write of a Cluster's taints (the control plane writes its own into the same list). */
async function editClusterTaints(
  cluster: string,
  edit: (taints: readonly Taint[]) => Taint[],
): Promise<void> {
  await retryOnConflict(async () => {
    const c = await fed.clusters.get(cluster);
    await fed.clusters.replace({ ...c, spec: { ...c.spec, taints: edit(c.spec.taints ?? []) } });
  });
}
