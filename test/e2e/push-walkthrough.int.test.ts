/**
 * The failover walkthrough with Push members: member1 and member2 joined in Push mode
 * (`controlplane join`; the control plane reports their status, renews their Lease and applies
 * their Works), member3 in Pull mode (its agent). Deployment `nginx` (3 replicas) is divided
 * member1:1, member2:2 by static weights. member1's API server is stopped: the control plane finds
 * it unreachable, so its Ready turns False (reason ClusterNotReachable, not Unknown), the NoExecute
 * taint follows and the replica moves to member2. When member1's API server returns, Ready turns
 * True and the control plane removes member1's old Work and its Deployment there; nothing moves back.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clusterConditionTypes,
  clusterReadyReasons,
  findCondition,
  namespaces,
  syncModes,
  type Cluster,
} from '@kf/api';
import { CORE_EVENT_RESOURCE, ResourceClient, type CoreEvent } from '@kf/kube';
import { SECRET_RESOURCE, type Secret } from '@kf/member';
import {
  CONTROL_PLANE_USER,
  dividedByStaticWeights,
  startFailoverFederation,
  type FailoverFederation,
} from '@kf/testing';
import {
  NAMESPACE,
  TAINTS,
  clusterTaint,
  demoDeployment,
  holdsFor,
  memberCopy,
  placement,
  policyFor,
  propagate,
  returnedWithoutFailBack,
  runsAvailable,
  until,
  worksOf,
} from './support.ts';

let fed: FailoverFederation;

beforeAll(async () => {
  // As the control plane is deployed (deploy/controlplane/rbac.yaml alone), and at debug level:
  // the member tokens must not reach the log at any level.
  fed = await startFailoverFederation({
    members: 3,
    nodes: 1,
    pushMembers: ['member1', 'member2'],
    controlPlaneAsDeployed: true,
    logLevel: 'debug',
  });
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

function ready(cluster: Cluster) {
  return findCondition(cluster.status?.conditions, clusterConditionTypes.ready);
}

/** Field managers that wrote the member's copy of `name`. */
async function managersOfCopy(member: string, name: string): Promise<string[]> {
  const copy = await fed.memberApps(member).readNamespacedDeployment({ name, namespace: NAMESPACE });
  return [...new Set((copy.metadata?.managedFields ?? []).map((f) => f.manager ?? ''))].sort();
}

describe('the walkthrough with member1 and member2 in Push mode, member3 in Pull mode', () => {
  it('reports the Push members from the control plane: status, Ready, and their Lease', async () => {
    for (const name of ['member1', 'member2']) {
      const cluster = await fed.clusters.get(name);
      expect(cluster.spec.syncMode).toBe(syncModes.push);
      expect(ready(cluster)).toMatchObject({ status: 'True', reason: clusterReadyReasons.clusterReady });
      expect(cluster.status?.kubernetesVersion).toMatch(/^v1\./);
      expect(cluster.status?.nodeSummary).toMatchObject({ totalNum: 1, readyNum: 1 });
      expect(cluster.status?.apiEnablements?.some((e) => e.groupVersion === 'apps/v1')).toBe(true);
      const renewedAt = async () =>
        Date.parse((await fed.leases.get(`${namespaces.cluster}/${name}`)).spec?.renewTime ?? '');
      const first = await renewedAt();
      await until(`${name} Lease renewed again`, async () => (await renewedAt()) > first, 10_000);
    }
    expect((await fed.clusters.get('member3')).spec.syncMode).toBe(syncModes.pull);
  });

  it('applies the Works of the Push members: member1:1, member2:2, all available', async () => {
    await propagate(
      fed,
      policyFor('nginx', dividedByStaticWeights({ member1: 1, member2: 2 }), {
        failover: { cluster: { purgeMode: 'Gracefully' } },
      }),
      demoDeployment('nginx', 3),
    );
    await until('nginx 1/1 on member1', () => runsAvailable(fed, 'member1', 'nginx', 1));
    await until('nginx 2/2 on member2', () => runsAvailable(fed, 'member2', 'nginx', 2));
    expect(await memberCopy(fed, 'member3', 'nginx')).toBeUndefined();
    expect(await worksOf(fed, 'nginx')).toEqual({
      member1: { deleting: false, replicas: 1 },
      member2: { deleting: false, replicas: 2 },
    });
    // The control plane wrote them: no agent runs in a Push member.
    expect(await managersOfCopy('member1', 'nginx')).toContain('karmada-failover-controlplane');
  });

  it('marks member1 Ready=False ClusterNotReachable when its API server stops, and moves its replica to member2', async () => {
    const stoppedAt = Date.now();
    await fed.killMemberApiServer('member1');
    const falseAt = await until(
      'member1 Ready=False',
      async () => ready(await fed.clusters.get('member1'))?.status === 'False',
      60_000,
      100,
    );
    const member1 = await fed.clusters.get('member1');
    expect(ready(member1)).toMatchObject({
      status: 'False',
      reason: clusterReadyReasons.clusterNotReachable,
    });
    // Not before the failure threshold (3 s): a blip does not make a member unready.
    expect(falseAt - stoppedAt).toBeGreaterThanOrEqual(3_000);
    const taintedAt = await until(
      'member1 tainted NoExecute',
      async () => (await clusterTaint(fed, 'member1', TAINTS.notReadyExecute)) !== undefined,
      30_000,
    );
    const placedAt = await until(
      'binding places member2:3',
      async () => JSON.stringify(await placement(fed, 'nginx')) === JSON.stringify({ member2: 3 }),
      60_000,
    );
    const availableAt = await until(
      'nginx 3/3 on member2',
      () => runsAvailable(fed, 'member2', 'nginx', 3),
      60_000,
    );
    const s = (t: number) => `+${((t - stoppedAt) / 1000).toFixed(1)} s`;
    process.stdout.write(
      `Push member1's API server stopped: Ready=False ${s(falseAt)}, NoExecute ${s(taintedAt)}, member2:3 ${s(placedAt)}, available ${s(availableAt)}\n`,
    );
    // member1's Work is deleted, but the copy on member1 cannot be removed while member1 is down:
    // the Work waits with its finalizer.
    await until(
      'member1 Work deleting',
      async () => (await worksOf(fed, 'nginx'))['member1']?.deleting === true,
      60_000,
    );
    await holdsFor(
      3000,
      'member1 Work kept',
      async () => (await worksOf(fed, 'nginx'))['member1'] !== undefined,
    );
    // Push members never go Unknown: the control plane sees them, it does not wait for them.
    expect(ready(await fed.clusters.get('member1'))?.status).toBe('False');
  });

  it("removes member1's Work and copy when member1 returns, and does not move back", async () => {
    await fed.startMemberApiServer('member1');
    await returnedWithoutFailBack(fed, 'member1', 'nginx', { member2: 3 });
  });

  it('did all of it as its deployed identity, refused nothing, and wrote no member token to its log or an Event', async () => {
    const log = await readFile(fed.controlPlaneProcess.logFile, 'utf8');
    expect(log).toMatch(/"level":"debug"/);
    // Refused as the control plane's own identity. (A member's API server that has just started
    // refuses everyone until it has loaded its RBAC: those 403s name the member's ServiceAccount,
    // and the controllers retry them.)
    const forbidden = log
      .split('\n')
      .filter((l) => /forbidden|"status":403\b/i.test(l) && l.includes(CONTROL_PLANE_USER));
    expect(forbidden.slice(0, 3)).toEqual([]);
    const { items } = await new ResourceClient<CoreEvent>(
      fed.controlPlaneKubeConfig(),
      CORE_EVENT_RESOURCE,
    ).list();
    const events = JSON.stringify(items);
    for (const name of ['member1', 'member2']) {
      const secret = await new ResourceClient<Secret>(fed.controlPlaneKubeConfig(), SECRET_RESOURCE).get(
        `${namespaces.cluster}/${name}`,
      );
      const token = Buffer.from(secret.data?.token ?? '', 'base64').toString();
      expect(token.length).toBeGreaterThan(100);
      // The token, as the Secret keeps it, and its signature alone.
      for (const form of [token, secret.data?.token ?? '', token.split('.')[2] ?? '']) {
        expect(form.length).toBeGreaterThan(20);
        expect(log.includes(form)).toBe(false);
        expect(events.includes(form)).toBe(false);
      }
    }
  });
});
