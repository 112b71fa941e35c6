/**
 * The project's control plane beside a real Karmada (v1.18.2) on one Karmada API server, in the
 * mode docs/comparison.md documents: Karmada keeps its workload pipeline (detector, scheduler,
 * binding and status controllers) and turns off the controllers that judge and act on cluster
 * health; the project runs only those. One member's agent is killed: the project marks the cluster
 * Unknown, taints it and evicts, Karmada's scheduler places the replicas on the other member, and
 * nothing is acted on by both sides (Karmada's controller-manager never writes the Cluster, and the
 * eviction is one task written once).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORE_EVENT_RESOURCE, ResourceClient, type CoreEvent } from '@kf/kube';
import {
  DEFAULT_FAILOVER_TIMING,
  REPO_ROOT,
  applyDefaultTaintPolicy,
  controlPlaneFlags,
  eventually,
  runControlPlane,
  KarmadaFederation,
  NOT_READY_NO_EXECUTE,
  type ManagedProcess,
} from '@kf/testing';

/** Karmada's controllers that the project replaces (its taint manager stays off, as by default). */
const KARMADA_CONTROLLERS_BESIDE =
  '--controllers=*,-cluster,-clustertaintpolicy,-gracefulEviction,-applicationFailover,-remedy,-workloadRebalancer';
/** The project's controllers that Karmada already runs. */
const PROJECT_CONTROLLERS_BESIDE =
  '--controllers=*,-resource-detector,-scheduler,-dependencies-distributor,-binding,-binding-status,-namespace,-cluster-status,-execution,-work-status';

const MEMBERS = ['member1', 'member2'] as const;
const APP = 'beside';

let peer: KarmadaFederation;
let controlPlane: ManagedProcess;

beforeAll(async () => {
  peer = await KarmadaFederation.start({
    members: MEMBERS,
    karmada: {
      controllerManagerFlags: [KARMADA_CONTROLLERS_BESIDE, '--enable-no-execute-taint-eviction=false'],
    },
  });
  const cp = peer.karmada.cluster;
  await applyDefaultTaintPolicy(cp, DEFAULT_FAILOVER_TIMING.taintHoldSeconds);
  await runControlPlane({
    kubeconfig: cp.kubeconfigPath,
    runDir: peer.karmada.runDir,
    flags: [...controlPlaneFlags(DEFAULT_FAILOVER_TIMING), PROJECT_CONTROLLERS_BESIDE],
    onStarted: (p) => {
      controlPlane = p;
    },
  });
});

afterAll(async () => {
  await (controlPlane as ManagedProcess | undefined)?.stop();
  await (peer as KarmadaFederation | undefined)?.destroy();
});

/** Field managers that have written the object (from its managedFields). */
function managers(obj: { metadata: object }): string[] {
  const fields = (obj.metadata as { managedFields?: readonly { manager?: string }[] }).managedFields ?? [];
  return [...new Set(fields.map((f) => f.manager ?? ''))].sort();
}

interface EventRecord {
  readonly component: string;
  readonly object: string;
  readonly reason: string;
  readonly count: number;
}

/** Every Event on Karmada's API server: who emitted it, about what, why, how many times. */
async function events(): Promise<EventRecord[]> {
  const { items } = await new ResourceClient<CoreEvent>(
    peer.karmada.cluster.kubeConfig(),
    CORE_EVENT_RESOURCE,
  ).list();
  return items.map((e) => ({
    component: e.source?.component ?? '',
    object: `${e.involvedObject.kind ?? ''}/${e.involvedObject.name}`,
    reason: e.reason,
    count: e.count ?? 1,
  }));
}

const PROJECT = 'karmada-failover-controlplane';
/** What judging and acting on cluster health says in Events, on either side. */
const FAILOVER_REASON = /Taint|Evict|StatusUnknown|Graceful/;

describe("the project's control plane beside Karmada's", () => {
  it('runs in the mode docs/comparison.md documents', async () => {
    const doc = await readFile(join(REPO_ROOT, 'docs', 'comparison.md'), 'utf8');
    expect(doc).toContain(KARMADA_CONTROLLERS_BESIDE);
    expect(doc).toContain(PROJECT_CONTROLLERS_BESIDE);
  });

  it('one failover: the project judges and evicts, Karmada places, nothing is done twice', async () => {
    for (const m of MEMBERS)
      await eventually(`${m} Ready`, async () => (await peer.readyStatus(m)) === 'True');
    await peer.propagateDivided(APP, MEMBERS, 2);
    for (const m of MEMBERS) {
      await eventually(
        `${m} runs 1 replica`,
        async () => (await peer.memberCopy(m, APP))?.available === 1,
        90_000,
      );
    }

    const killedAt = Date.now();
    await peer.killAgent('member1');
    const unknownAt = await eventually(
      'member1 Unknown',
      async () => (await peer.readyStatus('member1')) === 'Unknown',
    );
    const taintedAt = await eventually('member1 tainted NoExecute', () =>
      peer.tainted('member1', NOT_READY_NO_EXECUTE),
    );
    const movedAt = await eventually(
      'both replicas on member2',
      () => peer.runsAllOn(APP, 'member2', 2),
      120_000,
    );
    await eventually(
      'no eviction task left (member2 healthy)',
      async () => ((await peer.binding(APP))?.spec.gracefulEvictionTasks ?? []).length === 0,
      60_000,
    );
    const after = (t: number) => `+${((t - killedAt) / 1000).toFixed(1)} s`;
    process.stdout.write(
      `beside Karmada, member1's agent killed: Unknown ${after(unknownAt)}, NoExecute ${after(taintedAt)}, ` +
        `moved ${after(movedAt)}\n`,
    );

    const seen = await events();
    // Judging health and acting on it: the project alone.
    const failover = seen.filter((e) => FAILOVER_REASON.test(e.reason));
    expect(failover.length).toBeGreaterThan(0);
    expect([...new Set(failover.map((e) => e.component))]).toEqual([PROJECT]);
    // One eviction of the binding from member1, done once.
    const evictions = seen.filter(
      (e) =>
        e.object === `ResourceBinding/${APP}-deployment` && e.reason === 'EvictWorkloadFromClusterSucceed',
    );
    expect(evictions.reduce((n, e) => n + e.count, 0)).toBe(1);
    // Placing: Karmada's scheduler alone, before and after the eviction.
    const scheduled = seen.filter(
      (e) => e.object === `ResourceBinding/${APP}-deployment` && e.reason === 'ScheduleBindingSucceed',
    );
    expect([...new Set(scheduled.map((e) => e.component))]).toEqual(['default-scheduler']);
    expect(scheduled.reduce((n, e) => n + e.count, 0)).toBeGreaterThanOrEqual(2);
    // Karmada's controller-manager never wrote the Cluster: its health, taints and namespace are the project's.
    expect(
      managers(await peer.clusters.get('member1')).filter((m) => m.startsWith('karmada-controller-manager')),
    ).toEqual([]);
  });
});
