/**
 * Fail-back with real agents and the control plane as a process. A Deployment whose policy prefers
 * member1 (cluster affinity term `primary`) and falls back to member2 (`backup`), opted into
 * fail-back with a 10 s window, moves to member2 when member1's agent dies and the binding records
 * where it ran. When member1 is back, the binding stays on member2 until member1 has been steady for
 * the whole window; a NoSchedule taint put on member1 and taken off part-way (a flap) restarts the
 * window. Then it goes back, and member2's copy stays until member1's is available: sampled every
 * 100 ms, the workload is never without an available copy.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotations, type Cluster, type Taint } from '@kf/api';
import { isConflict } from '@kf/kube';
import { startFailoverFederation, type FailoverFederation } from '@kf/testing';
import {
  PRIMARY_THEN_BACKUP,
  binding,
  controlPlaneMetric,
  demoDeployment,
  eventsAbout,
  memberCopy,
  placement,
  policyFor,
  propagate,
  until,
} from './support.ts';

const WINDOW_SECONDS = 10;
const FLAP_TAINT: Taint = { key: 'example.com/flap', effect: 'NoSchedule' };

let fed: FailoverFederation;

beforeAll(async () => {
  fed = await startFailoverFederation({ members: 2, nodes: 1 });
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

const placedAs = async (expected: Record<string, number>): Promise<boolean> =>
  isDeepStrictEqual(await placement(fed, 'web'), expected);

interface Available {
  readonly member1: number;
  readonly member2: number;
}

/** Replicas available on each member (0 without a copy). */
async function available(): Promise<Available> {
  const [m1, m2] = await Promise.all([memberCopy(fed, 'member1', 'web'), memberCopy(fed, 'member2', 'web')]);
  return { member1: m1?.available ?? 0, member2: m2?.available ?? 0 };
}

/** Read-modify-write of a Cluster's taints, retried on conflicts with the taint controllers. */
async function editTaints(cluster: string, edit: (taints: readonly Taint[]) => Taint[]): Promise<void> {
  for (;;) {
    const c: Cluster = await fed.clusters.get(cluster);
    try {
      await fed.clusters.replace({ ...c, spec: { ...c.spec, taints: edit(c.spec.taints ?? []) } });
      return;
    } catch (err: unknown) {
      if (!isConflict(err)) throw err;
    }
  }
}

const steady = async (cluster: string): Promise<boolean> => {
  const c = await fed.clusters.get(cluster);
  const ready = c.status?.conditions?.find((x) => x.type === 'Ready')?.status;
  return ready === 'True' && (c.spec.taints ?? []).length === 0;
};

describe('fail-back', () => {
  it('moves to member2 when member1 fails, recording where it ran', async () => {
    const policy = policyFor('web', PRIMARY_THEN_BACKUP);
    await propagate(
      fed,
      {
        ...policy,
        metadata: {
          ...policy.metadata,
          annotations: { [annotations.failBackAfterSeconds]: String(WINDOW_SECONDS) },
        },
      },
      demoDeployment('web', 1),
    );
    await until('web placed on member1', () => placedAs({ member1: 1 }));
    await until('web available on member1', async () => (await available()).member1 === 1);
    await fed.killAgent('member1');
    await until('web moved to member2', () => placedAs({ member2: 1 }), 120_000);
    await until(
      "member1's eviction done",
      async () => ((await binding(fed, 'web'))?.spec.gracefulEvictionTasks ?? []).length === 0,
      90_000,
    );
    const b = await binding(fed, 'web');
    expect(b?.metadata.annotations?.[annotations.failBackAfterSeconds]).toBe(String(WINDOW_SECONDS));
    const record = JSON.parse(
      b?.metadata.annotations?.[annotations.placementBeforeFailover] ?? '{}',
    ) as unknown;
    expect(record).toMatchObject({ clusters: [{ name: 'member1', replicas: 1 }] });
  });

  it('goes back only a whole window after a flap, and keeps a copy available throughout', async () => {
    await fed.startAgent('member1');
    const steadyAtMs = await until('member1 steady', () => steady('member1'), 90_000, 100);

    // Sample both members every 100 ms from here until member2's copy is gone.
    const samples: { atMs: number; available: Available }[] = [];
    const stop = new AbortController();
    const sampler = (async () => {
      while (!stop.signal.aborted) {
        const at = Date.now();
        samples.push({ atMs: at, available: await available().catch(() => ({ member1: -1, member2: -1 })) });
        await new Promise((r) => setTimeout(r, Math.max(0, at + 100 - Date.now())));
      }
    })();

    // A flap part-way through the window.
    await new Promise((r) => setTimeout(r, Math.max(0, steadyAtMs + 4_000 - Date.now())));
    await editTaints('member1', (ts) => [...ts, FLAP_TAINT]);
    await new Promise((r) => setTimeout(r, 1_000));
    await editTaints('member1', (ts) => ts.filter((t) => t.key !== FLAP_TAINT.key));
    const flapEndedAtMs = Date.now();

    const backAtMs = await until('web placed on member1 again', () => placedAs({ member1: 1 }), 60_000, 100);
    await until(
      'member2 copy gone',
      async () => (await memberCopy(fed, 'member2', 'web')) === undefined,
      90_000,
    );
    stop.abort();
    await sampler;

    // Not before a whole window from the flap's end (the window restarted), and not long after.
    expect(backAtMs - flapEndedAtMs).toBeGreaterThanOrEqual(WINDOW_SECONDS * 1000 - 500);
    expect(backAtMs - flapEndedAtMs).toBeLessThan(WINDOW_SECONDS * 1000 + 15_000);
    // The new copy was available before the old one went: never a moment without one.
    const uncovered = samples.filter((s) => s.available.member1 < 1 && s.available.member2 < 1);
    expect(uncovered).toEqual([]);
    expect(samples.length).toBeGreaterThan(100);
    process.stdout.write(
      `fail-back: member1 steady +0 ms, flap ended +${String(flapEndedAtMs - steadyAtMs)} ms, ` +
        `placed on member1 again +${String(backAtMs - steadyAtMs)} ms (window ${String(WINDOW_SECONDS)} s); ` +
        `${String(samples.length)} samples, none without an available copy\n`,
    );
    expect((await available()).member1).toBe(1);

    const b = await binding(fed, 'web');
    expect(b?.metadata.annotations?.[annotations.placementBeforeFailover]).toBeUndefined();
    expect(b?.spec.gracefulEvictionTasks ?? []).toEqual([]);
    await until(
      'a FailBackStarted Event',
      async () => (await eventsAbout(fed, 'web-deployment', 'FailBackStarted')).length === 1,
    );
    expect(await controlPlaneMetric(fed, 'karmada_failover_fail_backs_total{result="Started"}')).toBe(1);
  });
});
