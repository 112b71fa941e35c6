/**
 * The project's agent in a real Karmada (v1.18.2, built from its Go module): it registers through
 * Karmada's aggregated API, Karmada's scheduler and controllers place a Deployment on its member,
 * the agent applies Karmada's Works and reports their status, which Karmada aggregates; killing the
 * agent makes Karmada's own cluster controller, ClusterTaintPolicy and taint manager move the
 * workload, and the agent restarted cleans up what Karmada took away.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TAINT_POLICY_FILE, KarmadaFederation, NOT_READY_NO_EXECUTE, eventually } from '@kf/testing';

const NAMESPACE = 'default';

const execFileAsync = promisify(execFile);
const MEMBERS = ['member1', 'member2'] as const;
const APP = 'peer-web';

let peer: KarmadaFederation;

beforeAll(async () => {
  peer = await KarmadaFederation.start({ members: MEMBERS });
});

afterAll(async () => {
  await (peer as KarmadaFederation | undefined)?.destroy();
});

describe("the project's agent in a real Karmada", () => {
  it('registers its Cluster through the aggregated API and Karmada sees it Ready, with its status', async () => {
    for (const name of MEMBERS) {
      await eventually(`${name} Ready`, async () => (await peer.readyStatus(name)) === 'True', 60_000);
    }
    const cluster = await peer.clusters.get('member1');
    expect(cluster.spec.syncMode).toBe('Pull');
    expect(cluster.status?.kubernetesVersion).toMatch(/^v1\./);
    expect(cluster.status?.apiEnablements?.some((a) => a.groupVersion === 'apps/v1')).toBe(true);
    expect(cluster.status?.nodeSummary?.readyNum).toBe(1);
    // Karmada's own cluster controller made the execution namespace for it.
    const { stdout } = await execFileAsync(
      peer.karmada.cluster.kubectlPath,
      peer.karmada.cluster.kubectlArgs('get', 'namespace', 'karmada-es-member1', '-o', 'name'),
    );
    expect(stdout.trim()).toBe('namespace/karmada-es-member1');
  });

  it("applies the Works Karmada's scheduler and controllers make, and Karmada aggregates their status", async () => {
    await peer.propagateDivided(APP, MEMBERS, 2);
    for (const m of MEMBERS) {
      await eventually(
        `${m} runs 1 available replica`,
        async () => (await peer.memberCopy(m, APP))?.available === 1,
        90_000,
      );
    }
    expect(await peer.placement(APP)).toEqual({ member1: 1, member2: 1 });
    await eventually(
      'the binding aggregates both members applied and healthy',
      async () => {
        const entries = (await peer.binding(APP))?.status?.aggregatedStatus ?? [];
        return entries.length === 2 && entries.every((e) => e.applied === true && e.health === 'Healthy');
      },
      60_000,
    );
    await eventually(
      "the template's status adds up the members' replicas",
      async () => {
        const d = await peer.templates().readNamespacedDeployment({ name: APP, namespace: NAMESPACE });
        return d.status?.readyReplicas === 2;
      },
      60_000,
    );
  });

  it('agent killed: Karmada taints and evicts; agent back: Ready again and its stale copy cleaned up', async () => {
    const cp = peer.karmada.cluster;
    await execFileAsync(cp.kubectlPath, cp.kubectlArgs('apply', '-f', DEFAULT_TAINT_POLICY_FILE));
    const killedAt = Date.now();
    await peer.killAgent('member1');
    const unknownAt = await eventually(
      'member1 Ready Unknown',
      async () => (await peer.readyStatus('member1')) === 'Unknown',
      60_000,
    );
    const taintedAt = await eventually(
      'member1 tainted not-ready:NoExecute',
      () => peer.tainted('member1', NOT_READY_NO_EXECUTE),
      60_000,
    );
    const movedAt = await eventually(
      'both replicas placed on member2 and available there',
      () => peer.runsAllOn(APP, 'member2', 2),
      120_000,
    );
    const after = (t: number) => `+${((t - killedAt) / 1000).toFixed(1)} s`;
    process.stdout.write(
      `Karmada with the project's agent killed: Unknown ${after(unknownAt)}, NoExecute ${after(taintedAt)}, ` +
        `moved ${after(movedAt)}\n`,
    );
    // The copy on member1 outlives the agent: nobody but the agent deletes in its member.
    expect(await peer.memberCopy('member1', APP)).toBeDefined();

    await peer.startAgent('member1');
    await eventually(
      'member1 Ready again',
      async () => (await peer.readyStatus('member1')) === 'True',
      60_000,
    );
    await eventually(
      'the NoExecute taint removed',
      async () => !(await peer.tainted('member1', NOT_READY_NO_EXECUTE)),
      60_000,
    );
    await eventually(
      "member1's copy and its Work gone",
      async () =>
        (await peer.memberCopy('member1', APP)) === undefined &&
        (await peer.worksIn('member1', APP)).length === 0,
      90_000,
    );
    expect(await peer.memberCopy('member2', APP)).toEqual({ replicas: 2, available: 2 });
  });
});
