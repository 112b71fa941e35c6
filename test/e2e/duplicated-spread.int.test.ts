/**
 * Duplicated placements after a failure, on three members:
 * - with spread constraints (exactly two clusters), the workload keeps its healthy cluster and
 *   takes the one allowed cluster left;
 * - with purge mode `Directly`, the old copy is removed before the new one is created: polling
 *   every member throughout the move never finds two copies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFailoverFederation, type FailoverFederation } from '@kf/testing';
import {
  NAMESPACE,
  binding,
  demoDeployment,
  memberCopy,
  placement,
  policyFor,
  propagate,
  runsAvailable,
  until,
  worksOf,
} from './support.ts';

const MEMBERS = ['member1', 'member2', 'member3'];

let fed: FailoverFederation;

beforeAll(async () => {
  fed = await startFailoverFederation({ members: 3, nodes: 1 });
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

async function placedOn(name: string): Promise<string[]> {
  return Object.keys((await placement(fed, name)) ?? {}).sort();
}

describe('Duplicated with spread constraints (minGroups = maxGroups = 2)', () => {
  it('keeps the healthy cluster and adds the remaining allowed one', async () => {
    await propagate(
      fed,
      policyFor('nginx', {
        clusterAffinity: { clusterNames: MEMBERS },
        spreadConstraints: [{ spreadByField: 'cluster', maxGroups: 2, minGroups: 2 }],
        replicaScheduling: { replicaSchedulingType: 'Duplicated' },
      }),
      demoDeployment('nginx', 2),
    );
    await until('nginx on two clusters', async () => (await placedOn('nginx')).length === 2);
    const [failed = '', kept = ''] = await placedOn('nginx');
    const spare = MEMBERS.find((m) => m !== failed && m !== kept) ?? '';
    await until(`nginx available on ${kept}`, () => runsAvailable(fed, kept, 'nginx', 2));
    const keptCopy = await memberCopy(fed, kept, 'nginx');

    await fed.killAgent(failed);
    await until(
      `nginx moved from ${failed} to ${spare}`,
      async () => JSON.stringify(await placedOn('nginx')) === JSON.stringify([kept, spare].sort()),
      120_000,
    );
    await until(`nginx available on ${spare}`, () => runsAvailable(fed, spare, 'nginx', 2), 60_000);
    // The healthy cluster's copy was never replaced.
    expect((await memberCopy(fed, kept, 'nginx'))?.uid).toBe(keptCopy?.uid);

    await fed.startAgent(failed);
    await fed.waitForHealthyClusters();
    await until(
      `nginx gone from ${failed}`,
      async () => (await memberCopy(fed, failed, 'nginx')) === undefined,
      60_000,
    );
    expect(await placedOn('nginx')).toEqual([kept, spare].sort());

    await fed.apps.deleteNamespacedDeployment({ name: 'nginx', namespace: NAMESPACE });
    await until('nginx removed from every member', async () => {
      const copies = await Promise.all(MEMBERS.map((m) => memberCopy(fed, m, 'nginx')));
      return copies.every((c) => c === undefined);
    });
  });
});

describe('purge mode Directly', () => {
  it('never runs the old and the new copy at once', async () => {
    await propagate(
      fed,
      policyFor(
        'solo',
        {
          clusterAffinity: { clusterNames: MEMBERS },
          spreadConstraints: [{ spreadByField: 'cluster', maxGroups: 1, minGroups: 1 }],
          replicaScheduling: { replicaSchedulingType: 'Duplicated' },
        },
        { failover: { cluster: { purgeMode: 'Directly' } } },
      ),
      demoDeployment('solo', 1),
    );
    await until('solo on one cluster', async () => (await placedOn('solo')).length === 1);
    const [from = ''] = await placedOn('solo');
    await until(`solo available on ${from}`, () => runsAvailable(fed, from, 'solo', 1));

    // Sample every member's copy throughout the move.
    const samples: string[][] = [];
    const sampling = new AbortController();
    const sampler = (async () => {
      while (!sampling.signal.aborted) {
        const present = await Promise.all(
          MEMBERS.map(async (m) => ((await memberCopy(fed, m, 'solo')) ? m : '')),
        );
        samples.push(present.filter((m) => m !== ''));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      await fed.killAgent(from);
      // The binding leaves the failed cluster at once; its Work is deleted at once too, but the
      // new cluster's Work waits until that one is gone, which needs the agent back.
      await until(
        `solo evicted from ${from}`,
        async () => {
          const b = await binding(fed, 'solo');
          return (b?.spec.gracefulEvictionTasks ?? []).some(
            (t) => t.fromCluster === from && t.purgeMode === 'Directly',
          );
        },
        120_000,
      );
      await until(
        `Work on ${from} deleting`,
        async () => (await worksOf(fed, 'solo'))[from]?.deleting === true,
        30_000,
      );
      const works = await worksOf(fed, 'solo');
      expect(Object.keys(works)).toEqual([from]);
      await fed.startAgent(from);
      await until(
        'solo moved',
        async () => {
          const [to] = await placedOn('solo');
          return to !== undefined && to !== from && (await runsAvailable(fed, to, 'solo', 1));
        },
        120_000,
      );
      expect(await memberCopy(fed, from, 'solo')).toBeUndefined();
    } finally {
      sampling.abort();
      await sampler;
    }
    expect(samples.length).toBeGreaterThan(10);
    expect(samples.filter((s) => s.length > 1)).toEqual([]);
    // The move did happen while sampling: first the old copy alone, last the new one alone.
    expect(samples[0]).toEqual([from]);
    expect(samples.at(-1)).toHaveLength(1);
    expect(samples.at(-1)).not.toEqual([from]);
  });
});
