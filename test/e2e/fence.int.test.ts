/**
 * The self-fence with real agents, behind a partition of the agent's link to the control plane
 * (the member itself stays healthy and reachable from here):
 * - `purgeMode: Directly` with a fence timeout of 8 s: the agent of the member cut off deletes the
 *   copy itself about 8 s after its last Lease renewal, even though it was restarted in the middle
 *   of the partition (the new process knows only the fence record it left in the member); the
 *   control plane releases the old Work once the Lease has been silent for 8 s + the Lease duration
 *   + the margin, and the workload starts on the other member. Both members are polled every 100 ms
 *   throughout: at no moment do both run a pod of it. When the link comes back, nothing starts
 *   again on the member it left.
 * - A partition longer than the fence timeout but tolerated (no eviction): the copy is fenced;
 *   when the link comes back, the agent says so on the Work (`Fenced=True`), the binding controller
 *   makes the Work afresh, and the copy runs there again.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotations, type PropagationPolicy, type Toleration } from '@kf/api';
import { startFailoverFederation, type FailoverFederation } from '@kf/testing';
import {
  NAMESPACE,
  agentMetric,
  controlPlaneMetric,
  demoDeployment,
  eventsAbout,
  holdsFor,
  memberCopy,
  placement,
  policyFor,
  propagate,
  runsAvailable,
  toleratingUnreadyFor,
  until,
  worksOf,
} from './support.ts';

const FENCE_SECONDS = 8;
const MARGIN_SECONDS = 2;
/** The harness's agents: Lease of 4 s renewed every second. */
const LEASE_SECONDS = 4;
const RENEW_MS = 1_000;

let fed: FailoverFederation;

beforeAll(async () => {
  fed = await startFailoverFederation({
    members: 3,
    nodes: 1,
    controlPlaneFlags: [`--fence-release-margin=${String(MARGIN_SECONDS)}s`],
  });
}, 240_000);

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

function fencedPolicy(
  name: string,
  clusters: readonly string[],
  tolerations: Toleration[] = [],
): PropagationPolicy {
  const p = policyFor(
    name,
    {
      clusterAffinity: { clusterNames: [...clusters] },
      spreadConstraints: [{ spreadByField: 'cluster', minGroups: 1, maxGroups: 1 }],
      replicaScheduling: { replicaSchedulingType: 'Duplicated' },
      ...(tolerations.length === 0 ? {} : { clusterTolerations: tolerations }),
    },
    { failover: { cluster: { purgeMode: 'Directly' } } },
  );
  return {
    ...p,
    metadata: { ...p.metadata, annotations: { [annotations.fenceAfterSeconds]: String(FENCE_SECONDS) } },
  };
}

/** Pods of the Deployment `app` on `member` that are not being deleted. */
async function runningPods(member: string, app: string): Promise<number> {
  const core = fed.member(member).kubeConfig().makeApiClient(CoreV1Api);
  const pods = await core.listNamespacedPod({ namespace: NAMESPACE, labelSelector: `app=${app}` });
  return pods.items.filter((p) => p.metadata?.deletionTimestamp === undefined).length;
}

interface Sample {
  readonly atMs: number;
  readonly pods: Readonly<Record<string, number>>;
}

/**
 * Polls the pods of `app` on `members` every 100 ms until stopped; stopping takes one sample more,
 * so that what the caller saw before stopping is in the samples (a poll of the caller's own may
 * fall between two of these).
 */
function watchPods(app: string, members: readonly string[]): { stop: () => Promise<Sample[]> } {
  const samples: Sample[] = [];
  const state = { running: true };
  const sample = async (): Promise<void> => {
    const counts = await Promise.all(members.map((m) => runningPods(m, app).catch(() => -1)));
    samples.push({
      atMs: Date.now(),
      pods: Object.fromEntries(members.map((m, i) => [m, counts[i] ?? -1])),
    });
  };
  const loop = (async () => {
    while (state.running) {
      await sample();
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async () => {
      state.running = false;
      await loop;
      await sample();
      return samples;
    },
  };
}

async function placedOn(name: string): Promise<string[]> {
  return Object.keys((await placement(fed, name)) ?? {}).sort();
}

describe('self-fence with purgeMode Directly', () => {
  it('the cut-off agent deletes its copy at the fence timeout, restart or not; the other member starts it only then', async () => {
    await propagate(fed, fencedPolicy('fenced', ['member1', 'member2']), demoDeployment('fenced', 1));
    await until('fenced placed on one member', async () => (await placedOn('fenced')).length === 1);
    const [from = ''] = await placedOn('fenced');
    const to = from === 'member1' ? 'member2' : 'member1';
    await until(`fenced available on ${from}`, () => runsAvailable(fed, from, 'fenced', 1), 60_000);
    // The agent lists the copy in its fence record before applying it, and says so on the Work.
    const works = await worksOf(fed, 'fenced');
    expect(Object.keys(works)).toEqual([from]);
    await until('FenceArmed=True on the Work', async () => {
      const w = (await fed.works.list({ namespace: `karmada-es-${from}` })).items.find((x) =>
        (x.metadata.name ?? '').startsWith('fenced-'),
      );
      return w?.status?.conditions?.some((c) => c.type === 'FenceArmed' && c.status === 'True') === true;
    });

    const watch = watchPods('fenced', [from, to]);
    const link = fed.links.agentToControlPlane(from);
    link.cut();
    const cutAtMs = Date.now();
    // Restarted in the middle of the partition: the new process has no renewal of its own.
    await new Promise((r) => setTimeout(r, 3_000));
    await fed.restartAgent(from);
    const fencedAtMs = await until(
      `copy fenced on ${from}`,
      async () => (await memberCopy(fed, from, 'fenced')) === undefined,
      30_000,
      100,
    );
    // The last renewal counted was at most one renew interval (and a tick) before the cut.
    expect(fencedAtMs - cutAtMs).toBeGreaterThanOrEqual(FENCE_SECONDS * 1000 - 2 * RENEW_MS);
    expect(fencedAtMs - cutAtMs).toBeLessThan(FENCE_SECONDS * 1000 + 5_000);

    await until(`fenced available on ${to}`, () => runsAvailable(fed, to, 'fenced', 1), 90_000, 100);
    const samples = await watch.stop();
    const both = samples.filter((s) => (s.pods[from] ?? 0) > 0 && (s.pods[to] ?? 0) > 0);
    expect(both.map((s) => s.atMs)).toEqual([]);
    const firstOnTo = samples.find((s) => (s.pods[to] ?? 0) > 0);
    expect(firstOnTo?.atMs).toBeGreaterThanOrEqual(fencedAtMs);
    // Released no earlier than fence + Lease + margin after the cut.
    const silenceMs = (FENCE_SECONDS + LEASE_SECONDS + MARGIN_SECONDS) * 1000;
    expect(firstOnTo?.atMs ?? 0).toBeGreaterThanOrEqual(cutAtMs + silenceMs - RENEW_MS);
    const lastOnFrom = samples.filter((s) => (s.pods[from] ?? 0) > 0).at(-1);
    process.stdout.write(
      `fence ${String(FENCE_SECONDS)} s, Lease ${String(LEASE_SECONDS)} s, margin ${String(MARGIN_SECONDS)} s, agent restarted 3 s into the cut: ` +
        `copy deleted ${String(fencedAtMs - cutAtMs)} ms after the cut, last pod seen on ${from} at +${String((lastOnFrom?.atMs ?? cutAtMs) - cutAtMs)} ms, ` +
        `first pod on ${to} at +${String((firstOnTo?.atMs ?? cutAtMs) - cutAtMs)} ms, ${String(samples.length)} samples, none with both\n`,
    );
    const released = await eventsAbout(fed, 'fenced-deployment', 'FencedWorkReleased');
    expect(released.map((e) => e.message)).toEqual([expect.stringContaining(`the Lease of cluster ${from}`)]);
    expect(
      await controlPlaneMetric(fed, 'karmada_failover_fenced_work_releases_total'),
    ).toBeGreaterThanOrEqual(1);
    expect(await agentMetric(fed, from, 'karmada_failover_agent_fenced_works_total')).toBe(1);

    link.restore();
    await until(`${from} Ready again`, async () => (await fed.readyStatus(from)) === 'True', 60_000);
    // Nothing starts again where it was fenced: the new placement stands, no copy comes back.
    await holdsFor(
      5_000,
      `no copy on ${from}`,
      async () => (await memberCopy(fed, from, 'fenced')) === undefined,
    );
    expect(await placedOn('fenced')).toEqual([to]);
    await fed.waitForHealthyClusters(90_000);
  });

  it('a fenced copy on a cluster that was not evicted runs again once the link is back, from a new Work', async () => {
    await propagate(
      fed,
      fencedPolicy('patient', ['member3'], toleratingUnreadyFor(300)),
      demoDeployment('patient', 1),
    );
    await until('patient available on member3', () => runsAvailable(fed, 'member3', 'patient', 1), 60_000);
    const before = (await fed.works.list({ namespace: 'karmada-es-member3' })).items.find((w) =>
      (w.metadata.name ?? '').startsWith('patient-'),
    );
    expect(before?.metadata.annotations?.[annotations.fenceAfterSeconds]).toBe(String(FENCE_SECONDS));

    const link = fed.links.agentToControlPlane('member3');
    link.cut();
    await until(
      'copy fenced on member3',
      async () => (await memberCopy(fed, 'member3', 'patient')) === undefined,
      30_000,
      100,
    );
    // Still placed there: the taint is tolerated, nothing was evicted.
    expect(await placedOn('patient')).toEqual(['member3']);
    link.restore();
    await until(
      'FencedWorkRecreated Event on the binding',
      async () => (await eventsAbout(fed, 'patient-deployment', 'FencedWorkRecreated')).length > 0,
      60_000,
    );
    await until(
      'patient available on member3 again',
      () => runsAvailable(fed, 'member3', 'patient', 1),
      60_000,
    );
    const after = (await fed.works.list({ namespace: 'karmada-es-member3' })).items.find((w) =>
      (w.metadata.name ?? '').startsWith('patient-'),
    );
    expect(after?.metadata.uid).not.toBe(before?.metadata.uid);
  });
});
