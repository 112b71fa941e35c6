/**
 * The Divided walkthrough: Deployment `nginx` (3 replicas) split by static weights member1:1,
 * member2:2 over three members. member1 goes down whole (API server and agent): its replica moves
 * to member2, member1's Work waits for member1 to come back, and when it does its copy is removed
 * and nothing moves back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dividedByStaticWeights, startFailoverFederation, type FailoverFederation } from '@kf/testing';
import {
  binding,
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
  fed = await startFailoverFederation({ members: 3, nodes: 1 });
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

describe('Divided by static weights, member1 fails', () => {
  it('runs 1 replica on member1 and 2 on member2, all available', async () => {
    await propagate(
      fed,
      policyFor('nginx', dividedByStaticWeights({ member1: 1, member2: 2 }), {
        failover: { cluster: { purgeMode: 'Gracefully' } },
      }),
      demoDeployment('nginx', 3),
    );
    await until('nginx placed', async () => {
      const p = await placement(fed, 'nginx');
      return p?.['member1'] === 1 && p['member2'] === 2 && Object.keys(p).length === 2;
    });
    await until('nginx 1/1 on member1', () => runsAvailable(fed, 'member1', 'nginx', 1));
    await until('nginx 2/2 on member2', () => runsAvailable(fed, 'member2', 'nginx', 2));
    expect(await memberCopy(fed, 'member3', 'nginx')).toBeUndefined();
    const works = await worksOf(fed, 'nginx');
    expect(works).toEqual({
      member1: { deleting: false, replicas: 1 },
      member2: { deleting: false, replicas: 2 },
    });
  });

  it('moves member1 replica to member2 while member1 is down; member1 Work stays', async () => {
    await fed.stopMember('member1');
    await until(
      'binding places member2:3',
      async () => JSON.stringify(await placement(fed, 'nginx')) === JSON.stringify({ member2: 3 }),
      120_000,
    );
    await until('nginx 3/3 on member2', () => runsAvailable(fed, 'member2', 'nginx', 3), 60_000);
    // Once member2 is healthy the eviction task goes and member1's Work is deleted, but its
    // finalizer stays: nobody can remove the copy on member1 while member1 is down.
    await until(
      'eviction task done',
      async () => ((await binding(fed, 'nginx'))?.spec.gracefulEvictionTasks ?? []).length === 0,
      60_000,
    );
    await until(
      'member1 Work deleting',
      async () => (await worksOf(fed, 'nginx'))['member1']?.deleting === true,
      30_000,
    );
    await holdsFor(
      3000,
      'member1 Work kept',
      async () => (await worksOf(fed, 'nginx'))['member1'] !== undefined,
    );
    expect(await memberCopy(fed, 'member3', 'nginx')).toBeUndefined();
  });

  it('removes member1 copy when member1 returns, and does not move back', async () => {
    await fed.startMember('member1');
    await returnedWithoutFailBack(fed, 'member1', 'nginx', { member2: 3 });
  });
});
