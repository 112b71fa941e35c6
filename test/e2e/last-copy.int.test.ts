/**
 * The last copy of a workload survives its graceful eviction, with real agents and the control plane
 * as a process. One outage of member1's agent, longer than grace + hold (NoExecute taint, eviction
 * tasks) and than the graceful eviction timeout (30 s here), then the agent returns; three
 * Deployments meanwhile:
 *
 * - `solo`, Duplicated on member1 only: evicted at the taint, its task times out during the outage
 *   and keeps the copy (condition `LastCopyKept`, a Warning Event, `explain` says so);
 * - `late`, the same, but tolerating the NoExecute taint for 25 s: its task is younger than the
 *   timeout when member1 returns;
 * - `pair`, member1 first, member2 as a backup: it moves to member2, and member1's copy goes once
 *   member2's is healthy, as before.
 *
 * When member1 is back, `solo` and `late` are placed there again within one monitor period + the
 * taint hold, with the same Work, the same Deployment and the same pod: nothing deleted, nothing
 * made again. `pair` stays on member2 and member1's old copy is removed.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCondition, type Placement, type Work } from '@kf/api';
import { CONTROLPLANE_MAIN, startFailoverFederation, type FailoverFederation } from '@kf/testing';
import {
  NAMESPACE,
  PRIMARY_THEN_BACKUP,
  TAINTS,
  binding,
  bindingName,
  clusterTaint,
  demoDeployment,
  eventsAbout,
  holdsFor,
  memberCopy,
  placement,
  policyFor,
  propagate,
  runsAvailable,
  timeMs,
  toleratingUnreadyFor,
  until,
} from './support.ts';

const TIMEOUT_SECONDS = 30;
/** late is evicted this long after the taint: its task is still young when member1 returns. */
const LATE_TOLERATION_SECONDS = 25;
const run = promisify(execFile);

const onlyMember1: Placement = {
  clusterAffinity: { clusterNames: ['member1'] },
  replicaScheduling: { replicaSchedulingType: 'Duplicated' },
};
let fed: FailoverFederation;

beforeAll(async () => {
  fed = await startFailoverFederation({
    members: 2,
    nodes: 1,
    controlPlaneFlags: [`--graceful-eviction-timeout=${String(TIMEOUT_SECONDS)}s`],
  });
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

/** What must not change across the outage: the Work, the member's Deployment and its pod. */
interface Identity {
  readonly work: string;
  readonly deployment: string;
  readonly pods: readonly string[];
}

async function member1Work(name: string): Promise<Work | undefined> {
  const { items } = await fed.works.list({ namespace: 'karmada-es-member1' });
  return items.find(
    (w) => w.metadata.annotations?.['resourcebinding.karmada.io/name'] === `${name}-deployment`,
  );
}

async function identityOnMember1(name: string): Promise<Identity> {
  const core = fed.member('member1').kubeConfig().makeApiClient(CoreV1Api);
  const pods = await core.listNamespacedPod({ namespace: NAMESPACE, labelSelector: `app=${name}` });
  return {
    work: (await member1Work(name))?.metadata.uid ?? '',
    deployment: (await memberCopy(fed, 'member1', name))?.uid ?? '',
    pods: pods.items.map((p) => p.metadata?.uid ?? '').sort(),
  };
}

/** Ready (status, reason, since) and taints of a cluster, for a failure message. */
async function clusterState(name: string): Promise<string> {
  const c = await fed.clusters.get(name);
  const ready = findCondition(c.status, 'Ready');
  const taints = (c.spec.taints ?? []).map((t) => `${t.key}:${t.effect}`).join(', ');
  return `Ready=${ready?.status ?? 'absent'} (${ready?.reason ?? ''} since ${ready?.lastTransitionTime ?? '?'}), taints [${taints}]`;
}

const tasksFrom = async (name: string): Promise<string[]> =>
  ((await binding(fed, name))?.spec.gracefulEvictionTasks ?? []).map((t) => t.fromCluster);

const placedOn = async (name: string, expected: Record<string, number>): Promise<boolean> =>
  JSON.stringify(await placement(fed, name)) === JSON.stringify(expected);

describe('one outage of member1, longer than the graceful eviction timeout', () => {
  const before = new Map<string, Identity>();
  let lateTaskCreatedAtMs = 0;

  it('keeps the copies of workloads that have nowhere else to go; moves the one that has', async () => {
    const { monitorGraceSeconds: grace, taintHoldSeconds: hold } = fed.timing;
    await Promise.all([
      propagate(fed, policyFor('solo', onlyMember1), demoDeployment('solo', 1)),
      propagate(
        fed,
        policyFor('late', {
          ...onlyMember1,
          clusterTolerations: toleratingUnreadyFor(LATE_TOLERATION_SECONDS),
        }),
        demoDeployment('late', 1),
      ),
      propagate(fed, policyFor('pair', PRIMARY_THEN_BACKUP), demoDeployment('pair', 1)),
    ]);
    for (const name of ['solo', 'late', 'pair']) {
      await until(`${name} available on member1`, () => runsAvailable(fed, 'member1', name, 1), 120_000);
    }
    for (const name of ['solo', 'late']) {
      await until(`${name}'s pod listed`, async () => (await identityOnMember1(name)).pods.length === 1);
      before.set(name, await identityOnMember1(name));
    }

    await fed.killAgent('member1');
    await until(
      'member1 tainted not-ready:NoExecute',
      async () => {
        if ((await clusterTaint(fed, 'member1', TAINTS.notReadyExecute)) !== undefined) return true;
        throw new Error(`not yet; member1 is ${await clusterState('member1')}`); // named on timeout
      },
      (grace + hold) * 1000 + 30_000,
    );
    await until('solo evicted (task from member1)', async () =>
      (await tasksFrom('solo')).includes('member1'),
    );
    await until('pair moved to member2', () => placedOn('pair', { member2: 1 }), 60_000);
    await until(
      "pair's task ended: member2's copy is healthy",
      async () => (await tasksFrom('pair')).length === 0,
    );
    expect((await member1Work('pair'))?.metadata.deletionTimestamp).toBeDefined();

    await until(
      'late evicted after its toleration',
      async () => (await tasksFrom('late')).includes('member1'),
      (LATE_TOLERATION_SECONDS + 30) * 1000,
    );
    const lateTask = (await binding(fed, 'late'))?.spec.gracefulEvictionTasks?.[0];
    lateTaskCreatedAtMs = timeMs(lateTask?.creationTimestamp);

    // solo's task times out: its copy stays, and the binding says so.
    const kept = await until(
      'solo LastCopyKept',
      async () =>
        findCondition((await binding(fed, 'solo'))?.status?.conditions, 'LastCopyKept')?.status === 'True',
      (TIMEOUT_SECONDS + 30) * 1000,
    );
    const soloTask = (await binding(fed, 'solo'))?.spec.gracefulEvictionTasks?.[0];
    expect(kept).toBeGreaterThanOrEqual(timeMs(soloTask?.creationTimestamp) + TIMEOUT_SECONDS * 1000);
    expect(await tasksFrom('solo')).toEqual(['member1']);
    expect((await member1Work('solo'))?.metadata.uid).toBe(before.get('solo')?.work);
    expect((await member1Work('solo'))?.metadata.deletionTimestamp).toBeUndefined();
    const { stdout } = await run(
      process.execPath,
      [
        CONTROLPLANE_MAIN,
        'explain',
        bindingName('solo'),
        '-o',
        'json',
        `--kubeconfig=${fed.federation.controlPlane.kubeconfigPath}`,
        '--failover',
        `--graceful-eviction-timeout=${String(TIMEOUT_SECONDS)}s`,
      ],
      { env: { ...process.env, KUBECONFIG: '' }, timeout: 60_000 },
    );
    const explained = JSON.parse(stdout) as { tasks: { fromCluster: string; lastCopyKept: boolean }[] };
    expect(explained.tasks).toMatchObject([{ fromCluster: 'member1', lastCopyKept: true }]);
  });

  it('places them on member1 again when it returns, keeping the same Work, Deployment and pod', async () => {
    const { monitorPeriodSeconds: period, taintHoldSeconds: hold } = fed.timing;
    const startedAtMs = Date.now();
    await fed.startAgent('member1');
    await until('member1 Ready=True', async () => (await fed.readyStatus('member1')) === 'True', 60_000, 100);
    const ready = findCondition((await fed.clusters.get('member1')).status?.conditions, 'Ready');
    const readyAtMs = timeMs(ready?.lastTransitionTime);
    const back = await Promise.all(
      ['solo', 'late'].map((name) =>
        until(`${name} placed on member1`, () => placedOn(name, { member1: 1 }), 30_000, 100),
      ),
    );
    process.stdout.write(
      `last copy: agent started ${String(lateTaskCreatedAtMs + TIMEOUT_SECONDS * 1000 - startedAtMs)} ms ` +
        `before late's task would time out; member1 Ready=True ${String(readyAtMs - startedAtMs)} ms after; ` +
        `solo placed there again +${String((back[0] ?? 0) - readyAtMs)} ms, late ` +
        `+${String((back[1] ?? 0) - readyAtMs)} ms after Ready (whole-second transition time)\n`,
    );
    for (const atMs of back) {
      // Ready's transition time has whole seconds: up to 1 s before the real one.
      expect(atMs - readyAtMs).toBeLessThanOrEqual((period + hold) * 1000 + 1000);
    }
    // late came back before its task could time out: the eviction ended by the cause ending.
    expect(back[1]).toBeLessThan(lateTaskCreatedAtMs + TIMEOUT_SECONDS * 1000);

    for (const name of ['solo', 'late']) {
      await until(`${name}'s task gone`, async () => (await tasksFrom(name)).length === 0);
      await until(`${name} available on member1`, () => runsAvailable(fed, 'member1', name, 1), 60_000);
      expect(await identityOnMember1(name)).toEqual(before.get(name));
      const cancelled = (): Promise<unknown[]> => eventsAbout(fed, `${name}-deployment`, 'EvictionCancelled');
      await until(`an EvictionCancelled Event for ${name}`, async () => (await cancelled()).length > 0);
      expect(await cancelled()).toHaveLength(1);
    }
    await until(
      "solo's LastCopyKept condition cleared",
      async () =>
        findCondition((await binding(fed, 'solo'))?.status?.conditions, 'LastCopyKept') === undefined,
    );
    await until(
      'a LastCopyKept Event for solo',
      async () => (await eventsAbout(fed, 'solo-deployment', 'LastCopyKept')).length > 0,
    );
    expect(await eventsAbout(fed, 'late-deployment', 'LastCopyKept')).toEqual([]);
    // Still the same once everything has settled.
    await holdsFor(3_000, 'the copies on member1 unchanged', async () => {
      const [solo, late] = await Promise.all([identityOnMember1('solo'), identityOnMember1('late')]);
      return (
        JSON.stringify(solo) === JSON.stringify(before.get('solo')) &&
        JSON.stringify(late) === JSON.stringify(before.get('late'))
      );
    });
  });

  it('leaves the workload that moved on member2 and removes its old copy from member1', async () => {
    await until(
      "pair's old copy gone from member1",
      async () => (await memberCopy(fed, 'member1', 'pair')) === undefined,
      60_000,
    );
    await holdsFor(3_000, 'pair stays on member2', () => placedOn('pair', { member2: 1 }));
    expect(await runsAvailable(fed, 'member2', 'pair', 1)).toBe(true);
  });
});
