/**
 * Custom kinds end to end, driven by ResourceInterpreterCustomization scripts: Karmada's own
 * customizations for OpenKruise's CloneSet and Apache Flink's FlinkDeployment, applied unchanged,
 * and the project's for Argo Rollouts (deploy/customizations). Their CRDs are installed in the
 * control plane and both members; nothing runs them in the members, so a test makes an object
 * healthy or unhealthy by writing its status there, as its operator would.
 * - Health: each member's agent runs the kind's InterpretHealth script on the member's object,
 *   and application failover moves the workload once the script has found it Unhealthy for
 *   `tolerationSeconds`, not before. The ConfigMap a CloneSet or a Rollout mounts (named by the
 *   kind's InterpretDependency script, `propagateDeps: true`) moves with it.
 * - Replicas: a CloneSet and a Rollout divided 2:1 by static weights reach the members with the
 *   replicas their ReviseReplica script wrote; the template's status is what their AggregateStatus
 *   script made of the members' status.
 * - Components (gate MultiplePodTemplatesScheduling): a FlinkDeployment's job manager and task
 *   managers come from its InterpretComponent script and are placed together on one member, or not
 *   at all when no member has room for the whole set, though each pod alone would fit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotations, findCondition, type ApplicationFailoverBehavior } from '@kf/api';
import { dividedByStaticWeights, startFailoverFederation, type FailoverFederation } from '@kf/testing';
import {
  CLONESET,
  CustomKinds,
  FLINK,
  FLINK_RUNNING,
  ONE_CLUSTER,
  ROLLOUT,
  configMapOf,
  policyOf,
} from './custom-kinds.ts';
import { NAMESPACE, createConfigMap, memberHasConfigMap, until } from './support.ts';

const TOLERATION_SECONDS = 5;

const FAILOVER: ApplicationFailoverBehavior = {
  decisionConditions: { tolerationSeconds: TOLERATION_SECONDS },
  purgeMode: 'Directly',
};

const KINDS = [CLONESET, FLINK, ROLLOUT] as const;

let fed: FailoverFederation;
let kinds: CustomKinds;

beforeAll(async () => {
  fed = await startFailoverFederation({
    members: 2,
    nodes: 1,
    controlPlaneFlags: ['--feature-gates=MultiplePodTemplatesScheduling=true'],
  });
  kinds = new CustomKinds(fed);
  await kinds.install(KINDS);
}, 240_000);

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

describe('custom kinds on real members', () => {
  it.concurrent.each(KINDS.map((k) => [k.resource.kind, k] as const))(
    'moves a %s its InterpretHealth script finds Unhealthy, after tolerationSeconds',
    async (_, kind) => {
      const name = `moving-${kind.resource.kind.toLowerCase()}`;
      const config = configMapOf(name);
      if (kind.mountsConfigMap) await createConfigMap(fed, config);
      await kinds.propagate(
        kind,
        policyOf(kind, name, ONE_CLUSTER, { propagateDeps: true, failover: { application: FAILOVER } }),
        kind.template(name, 2),
      );
      await until(
        `${name} placed on one member`,
        async () => (await kinds.placedOn(kind, name)).length === 1,
      );
      const [from = ''] = await kinds.placedOn(kind, name);
      const to = from === 'member1' ? 'member2' : 'member1';
      await until(`${name} on ${from}`, async () => (await kinds.memberCopy(kind, from, name)) !== undefined);
      // The ConfigMap its template mounts goes with it: the kind's InterpretDependency script names it.
      if (kind.mountsConfigMap)
        await until(`${config} on ${from}`, () => memberHasConfigMap(fed, from, config));

      await kinds.setMemberStatus(kind, from, name, kind.healthyStatus);
      await until(
        `${name} Healthy in its Work on ${from}`,
        async () => (await kinds.workHealth(kind, name, from)) === 'Healthy',
      );
      // Only a workload seen Healthy on a cluster is failed over from it.
      await until(`${name} recorded as seen Healthy on ${from}`, async () => {
        const b = await kinds.bindingOf(kind, name);
        return (b?.metadata.annotations?.[annotations.applicationFailoverHealthyClusters] ?? '')
          .split(',')
          .includes(from);
      });

      await kinds.setMemberStatus(kind, from, name, kind.unhealthyStatus);
      const unhealthyAtMs = await until(
        `${name} Unhealthy in its Work on ${from}`,
        async () => (await kinds.workHealth(kind, name, from)) === 'Unhealthy',
      );
      const movedAtMs = await until(
        `${name} moved to ${to}`,
        async () => (await kinds.placedOn(kind, name)).join() === to,
      );
      expect(movedAtMs - unhealthyAtMs).toBeGreaterThanOrEqual(TOLERATION_SECONDS * 1000 - 1000);
      await until(`${name} on ${to}`, async () => (await kinds.memberCopy(kind, to, name)) !== undefined);
      await until(
        `${name} gone from ${from}`,
        async () => (await kinds.memberCopy(kind, from, name)) === undefined,
      );
      if (kind.mountsConfigMap) {
        await until(`${config} moved to ${to}`, async () => {
          return (
            (await memberHasConfigMap(fed, to, config)) && !(await memberHasConfigMap(fed, from, config))
          );
        });
      }
    },
    180_000,
  );
});

describe('replicas and status of custom kinds', () => {
  it.concurrent.each([CLONESET, ROLLOUT].map((k) => [k.resource.kind, k] as const))(
    'divides a %s 2:1 through its ReviseReplica script and aggregates its status',
    async (_, kind) => {
      const name = `divided-${kind.resource.kind.toLowerCase()}`;
      await kinds.propagate(
        kind,
        policyOf(kind, name, dividedByStaticWeights({ member1: 2, member2: 1 })),
        kind.template(name, 6),
      );
      const want = { member1: 4, member2: 2 };
      for (const [member, replicas] of Object.entries(want)) {
        await until(`${name} with ${replicas} replicas on ${member}`, async () => {
          return (await kinds.memberCopy(kind, member, name))?.spec?.['replicas'] === replicas;
        });
        await kinds.setMemberStatus(kind, member, name, kind.healthyStatus);
      }
      const templates = kinds.templates(kind);
      await until(`${name}'s status aggregated from both members`, async () => {
        const status = (await templates.get(`${NAMESPACE}/${name}`)).status;
        return status?.['replicas'] === 6 && status['availableReplicas'] === 6;
      });
      const b = await kinds.bindingOf(kind, name);
      expect(Object.fromEntries((b?.spec.clusters ?? []).map((c) => [c.name, c.replicas]))).toEqual(want);
      expect(b?.spec.replicaRequirements?.resourceRequest).toEqual({ cpu: '250m', memory: '256Mi' });
      expect(findCondition(b?.status?.conditions, 'ReplicasInterpreted')?.status).toBe('True');
      expect((b?.status?.aggregatedStatus ?? []).map((i) => [i.clusterName, i.health]).sort()).toEqual([
        ['member1', 'Healthy'],
        ['member2', 'Healthy'],
      ]);
    },
    120_000,
  );
});

describe('multi-template workloads (gate MultiplePodTemplatesScheduling)', () => {
  it("places a FlinkDeployment's job manager and task managers together on one member", async () => {
    const name = 'whole-flink';
    await kinds.propagate(FLINK, policyOf(FLINK, name, ONE_CLUSTER), FLINK.template(name, 2));
    await until(`${name} placed`, async () => (await kinds.placedOn(FLINK, name)).length === 1);
    const b = await kinds.bindingOf(FLINK, name);
    // Flink's "1024m" (MiB) passes through the script as a Kubernetes quantity, as upstream's does.
    expect(b?.spec.components).toEqual([
      {
        name: 'jobmanager',
        replicas: 1,
        replicaRequirements: { resourceRequest: { cpu: '1', memory: '1024m' } },
      },
      {
        name: 'taskmanager',
        replicas: 2,
        replicaRequirements: { resourceRequest: { cpu: '2', memory: '1024m' } },
      },
    ]);
    expect(b?.spec.replicas).toBeUndefined();
    const [member = ''] = await kinds.placedOn(FLINK, name);
    await until(
      `${name} on ${member}`,
      async () => (await kinds.memberCopy(FLINK, member, name)) !== undefined,
    );
    // The member's status comes back through the agent's ReflectStatus and the AggregateStatus script.
    await kinds.setMemberStatus(FLINK, member, name, FLINK.healthyStatus);
    const templates = kinds.templates(FLINK);
    await until(`${name}'s status aggregated`, async () => {
      const status = (await templates.get(`${NAMESPACE}/${name}`)).status;
      return status?.['lifecycleState'] === 'STABLE';
    });
    expect((await templates.get(`${NAMESPACE}/${name}`)).status).toMatchObject(FLINK_RUNNING);
  });

  it('places none of a FlinkDeployment no member has room for as a whole, though each pod would fit', async () => {
    // Each member has one 32-CPU node: a 20-CPU task manager fits, two of them and the job manager do not.
    const name = 'oversized-flink';
    await kinds.propagate(FLINK, policyOf(FLINK, name, ONE_CLUSTER), FLINK.template(name, 20));
    await until(`${name} found unschedulable`, async () => {
      const scheduled = findCondition((await kinds.bindingOf(FLINK, name))?.status?.conditions, 'Scheduled');
      return scheduled?.status === 'False';
    });
    const b = await kinds.bindingOf(FLINK, name);
    expect(b?.spec.components?.map((c) => c.replicas)).toEqual([1, 2]);
    expect(b?.spec.clusters ?? []).toEqual([]);
    expect(findCondition(b?.status?.conditions, 'Scheduled')?.message).toMatch(/insufficient|resource|fit/i);
  });
});
