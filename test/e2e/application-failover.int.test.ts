/**
 * Application failover with real member agents: the health that drives it is what each member's
 * agent reads from the member's own Deployment, rolled out by its kube-controller-manager and
 * kube-scheduler onto KWOK nodes. A member goes bad the way a real one does: its nodes get a
 * NoExecute taint, kube-controller-manager evicts the pods, their replacements stay Pending, and
 * the Deployment has no available replica left.
 * - The workload moves to the other member after `tolerationSeconds` of Unhealthy, not before,
 *   and runs Available there; `Gracefully` keeps the old copy until then.
 * - The member it left stays closed to it for `blockPredecessorSeconds` (the binding's eviction
 *   history), even once repaired, and is chosen again when the block ends.
 * - With state preservation, the new copy carries a label whose value was read from the old
 *   copy's reflected status, as long as the eviction task lasts.
 * - The ConfigMap the workload's pods mount (`propagateDeps`) moves with it, and stays with the old
 *   copy for as long as `Gracefully` keeps that copy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V1Taint } from '@kubernetes/client-node';
import {
  annotations,
  type ApplicationFailoverBehavior,
  type EvictionHistoryEntry,
  type Placement,
  type PropagationPolicy,
  type ResourceBinding,
} from '@kf/api';
import { parseEvictionHistory } from '../../controlplane/src/scheduler/eviction-history-annotation.ts';
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
  seenHealthyOn,
  taintMemberNodes,
  timeMs,
  untaintMemberNodes,
  until,
  untilChange,
  workHealth,
  createConfigMap,
  memberHasConfigMap,
  mountingConfigMap,
} from './support.ts';

const TOLERATION_SECONDS = 10;
/** Long enough to cover the move to member2 and its failure there on a loaded machine. */
const BLOCK_PREDECESSOR_SECONDS = 60;
const GRACE_PERIOD_SECONDS = 30;
const BROKEN: V1Taint = { key: 'example.com/node-broken', value: 'true', effect: 'NoExecute' };
const REPLICAS_LABEL = 'failover.example.com/replicas-before';
/** The ConfigMap web's pods mount. */
const WEB_CONFIG = 'web-config';

/** One copy, on member1 or member2 (which one first depends on scores and free capacity). */
const ONE_CLUSTER: Placement = {
  clusterAffinity: { clusterNames: ['member1', 'member2'] },
  spreadConstraints: [{ spreadByField: 'cluster', minGroups: 1, maxGroups: 1 }],
  replicaScheduling: { replicaSchedulingType: 'Duplicated' },
};

let fed: FailoverFederation;

beforeAll(async () => {
  fed = await startFailoverFederation({
    members: 2,
    nodes: 1,
    // Application failover itself needs no switch; capturing and injecting state needs this gate.
    controlPlaneFlags: ['--feature-gates=StatefulFailoverInjection=true'],
  });
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

async function placedOn(name: string): Promise<string[]> {
  return Object.keys((await placement(fed, name)) ?? {}).sort();
}

function failoverPolicy(name: string, application: ApplicationFailoverBehavior): PropagationPolicy {
  // Upstream's admission wants propagateDeps with application failover.
  return policyFor(name, ONE_CLUSTER, { propagateDeps: true, failover: { application } });
}

/** The member the workload was placed on first, and the other one. */
async function firstPlacement(name: string): Promise<{ from: string; to: string }> {
  await until(`${name} placed on one member`, async () => (await placedOn(name)).length === 1);
  const [from = ''] = await placedOn(name);
  return { from, to: from === 'member1' ? 'member2' : 'member1' };
}

/** Runs the Deployment on `member` until application failover has seen it Healthy there. */
async function healthyOn(name: string, member: string, replicas: number): Promise<void> {
  await until(`${name} placed on ${member}`, async () => (await placedOn(name)).join() === member);
  await until(`${name} available on ${member}`, () => runsAvailable(fed, member, name, replicas), 60_000);
  await until(`${name} Healthy in its Work on ${member}`, async () => {
    return (await workHealth(fed, name, member)) === 'Healthy';
  });
  // Only a workload seen Healthy on a cluster is failed over from it.
  await until(`${name} recorded as seen Healthy on ${member}`, async () =>
    (await seenHealthyOn(fed, name)).includes(member),
  );
}

/** The binding's eviction history, kept in the annotation Karmada's CRDs keep. */
function historyOf(b: ResourceBinding | undefined): EvictionHistoryEntry[] {
  return parseEvictionHistory(b?.metadata.annotations?.[annotations.evictionHistory]);
}

/** When the binding recorded the eviction of `name` from `member` (rounded up to the second). */
async function evictedAtMs(name: string, member: string): Promise<number> {
  const entry = historyOf(await binding(fed, name)).find((e) => e.clusterName === member);
  return timeMs(entry?.creationTimestamp);
}

describe('application failover on real members', () => {
  // Where web runs first and where it goes; the first block ends at evictedFromAtMs + block.
  let from = '';
  let to = '';
  let evictedFromAtMs = 0;

  it('moves the workload after tolerationSeconds of Unhealthy on its member, not before', async () => {
    await createConfigMap(fed, WEB_CONFIG);
    await propagate(
      fed,
      failoverPolicy('web', {
        decisionConditions: { tolerationSeconds: TOLERATION_SECONDS },
        purgeMode: 'Gracefully',
        gracePeriodSeconds: GRACE_PERIOD_SECONDS,
        blockPredecessorSeconds: BLOCK_PREDECESSOR_SECONDS,
      }),
      mountingConfigMap(demoDeployment('web', 2), WEB_CONFIG),
    );
    ({ from, to } = await firstPlacement('web'));
    await healthyOn('web', from, 2);
    // propagateDeps: the ConfigMap its pods mount is there with it.
    await until(`${WEB_CONFIG} on ${from}`, () => memberHasConfigMap(fed, from, WEB_CONFIG));

    // Healthy until the taint (healthyOn just saw it): on an idle machine the agent may report
    // Unhealthy before the first look.
    const taintedAtMs = Date.now();
    await taintMemberNodes(fed, from, BROKEN);
    const broke = await untilChange(
      `web Unhealthy in its Work on ${from}`,
      async () => (await workHealth(fed, 'web', from)) === 'Unhealthy',
      { timeoutMs: 60_000, knownNotYetAtMs: taintedAtMs },
    );
    // The member really lost the pods: the agent reports what its Deployment says.
    expect((await memberCopy(fed, from, 'web'))?.available).toBe(0);

    const moved = await untilChange(
      `web evicted from ${from}`,
      async () => !(await placedOn('web')).includes(from),
      { timeoutMs: (TOLERATION_SECONDS + 60) * 1000 },
    );
    // Not before tolerationSeconds from the moment the Work said Unhealthy...
    expect(moved.heldAtMs - broke.notYetAtMs).toBeGreaterThanOrEqual(TOLERATION_SECONDS * 1000);
    evictedFromAtMs = await evictedAtMs('web', from);
    expect(evictedFromAtMs - broke.notYetAtMs).toBeGreaterThanOrEqual(TOLERATION_SECONDS * 1000);
    // ...and not long after (status aggregation, a loaded machine).
    expect(moved.heldAtMs - broke.heldAtMs).toBeLessThan((TOLERATION_SECONDS + 20) * 1000);

    const b = await binding(fed, 'web');
    expect(b?.spec.gracefulEvictionTasks).toMatchObject([
      {
        fromCluster: from,
        purgeMode: 'Gracefully',
        gracePeriodSeconds: GRACE_PERIOD_SECONDS,
        replicas: 2,
        reason: 'ApplicationFailure',
        producer: 'resource-binding-application-failover-controller',
      },
    ]);
    expect(b?.spec.evictionHistory).toBeUndefined();
    expect(historyOf(b).map((e) => [e.clusterName, e.reason])).toEqual([[from, 'ApplicationFailure']]);
    // Gracefully: the old copy stays while the new one comes up.
    expect(await memberCopy(fed, from, 'web')).toBeDefined();

    await until(`web placed on ${to}`, async () => (await placedOn('web')).join() === to);
    await until(`web available on ${to}`, () => runsAvailable(fed, to, 'web', 2), 60_000);
    await until(`${WEB_CONFIG} on ${to}`, () => memberHasConfigMap(fed, to, WEB_CONFIG));
    // Healthy there: the task is done and the old copy goes. Until then the old copy, still
    // serving, keeps its ConfigMap (a pod of it that restarts must find it).
    let configLostDuringEviction = false;
    await until(
      `eviction task from ${from} done`,
      async () => {
        const kept = await memberHasConfigMap(fed, from, WEB_CONFIG);
        // Read after the ConfigMap: a task seen now was there when the ConfigMap was looked at.
        if (((await binding(fed, 'web'))?.spec.gracefulEvictionTasks ?? []).length === 0) return true;
        if (!kept) configLostDuringEviction = true;
        return false;
      },
      60_000,
    );
    expect(configLostDuringEviction).toBe(false);
    await until(`web gone from ${from}`, async () => (await memberCopy(fed, from, 'web')) === undefined);
    await until(
      `${WEB_CONFIG} gone from ${from}`,
      async () => !(await memberHasConfigMap(fed, from, WEB_CONFIG)),
    );
  });

  it('keeps the workload off the member it left for blockPredecessorSeconds, then allows it again', async () => {
    await healthyOn('web', to, 2);
    // The first member is repaired: from now on only the eviction history keeps the workload off it.
    await untaintMemberNodes(fed, from, BROKEN.key);
    await taintMemberNodes(fed, to, BROKEN);

    await until(
      `web evicted from ${to}`,
      async () => !(await placedOn('web')).includes(to),
      (TOLERATION_SECONDS + 60) * 1000,
    );
    // The first block still runs, or this test would show nothing.
    const blockEndsAtMs = evictedFromAtMs + BLOCK_PREDECESSOR_SECONDS * 1000;
    expect(Date.now()).toBeLessThan(blockEndsAtMs - 10_000);
    const b = await binding(fed, 'web');
    expect(b?.spec.clusters ?? []).toEqual([]);
    expect(
      historyOf(b)
        .map((e) => e.clusterName)
        .sort(),
    ).toEqual(['member1', 'member2']);
    // The first member has no eviction task: the eviction history alone keeps it out.
    expect((b?.spec.gracefulEvictionTasks ?? []).map((t) => t.fromCluster)).not.toContain(from);
    await until('Scheduled=False for blockPredecessorSeconds', async () => {
      const c = (await binding(fed, 'web'))?.status?.conditions?.find((x) => x.type === 'Scheduled');
      return c?.status === 'False' && /blockPredecessorSeconds/.test(c.message);
    });

    const back = await untilChange(
      `web placed on ${from} again`,
      async () => (await placedOn('web')).join() === from,
      { timeoutMs: BLOCK_PREDECESSOR_SECONDS * 1000 + 60_000, intervalMs: 250 },
    );
    expect(back.heldAtMs).toBeGreaterThanOrEqual(blockEndsAtMs);
    expect(back.heldAtMs - blockEndsAtMs).toBeLessThan(20_000);
    await until(`web available on ${from}`, () => runsAvailable(fed, from, 'web', 2), 60_000);

    await fed.apps.deleteNamespacedDeployment({ name: 'web', namespace: NAMESPACE });
    await until('web removed from every member', async () => {
      const copies = await Promise.all(fed.memberNames.map((m) => memberCopy(fed, m, 'web')));
      return copies.every((c) => c === undefined);
    });
    await untaintMemberNodes(fed, to, BROKEN.key);
  });

  it("labels the new copy with the old copy's replicas (state preservation, purge mode Directly)", async () => {
    await propagate(
      fed,
      failoverPolicy('flink', {
        decisionConditions: { tolerationSeconds: 3 },
        purgeMode: 'Directly',
        statePreservation: { rules: [{ aliasLabelName: REPLICAS_LABEL, jsonPath: '{.replicas}' }] },
      }),
      demoDeployment('flink', 3),
    );
    const { from: old, to: next } = await firstPlacement('flink');
    await healthyOn('flink', old, 3);
    const oldCopy = await fed
      .memberApps(old)
      .readNamespacedDeployment({ name: 'flink', namespace: NAMESPACE });
    expect(oldCopy.status?.replicas).toBe(3);

    // The member it moves to cannot run pods yet: the new copy does not become Healthy there, so
    // the eviction task, and the label it injects, stay until that member is repaired.
    await taintMemberNodes(fed, next, BROKEN);
    await taintMemberNodes(fed, old, BROKEN);
    await until(
      `flink evicted from ${old} with its state`,
      async () => {
        const task = (await binding(fed, 'flink'))?.spec.gracefulEvictionTasks?.[0];
        return task?.fromCluster === old && task.preservedLabelState !== undefined;
      },
      60_000,
    );
    expect((await binding(fed, 'flink'))?.spec.gracefulEvictionTasks).toMatchObject([
      {
        fromCluster: old,
        purgeMode: 'Directly',
        reason: 'ApplicationFailure',
        preservedLabelState: { [REPLICAS_LABEL]: String(oldCopy.status?.replicas) },
        clustersBeforeFailover: [old],
      },
    ]);

    await until(`flink created on ${next}`, async () => (await memberCopy(fed, next, 'flink')) !== undefined);
    const copy = await fed.memberApps(next).readNamespacedDeployment({ name: 'flink', namespace: NAMESPACE });
    expect(copy.metadata?.labels?.[REPLICAS_LABEL]).toBe('3');
    expect(copy.metadata?.labels?.['app']).toBe('flink');
    // Directly: the old copy was gone before the new one was made.
    expect(await memberCopy(fed, old, 'flink')).toBeUndefined();

    // Repaired, the member runs the copy; once it is Healthy the task ends and the label leaves.
    await untaintMemberNodes(fed, next, BROKEN.key);
    await until(`flink available on ${next}`, () => runsAvailable(fed, next, 'flink', 3), 60_000);
    await until(
      `eviction task from ${old} done`,
      async () => ((await binding(fed, 'flink'))?.spec.gracefulEvictionTasks ?? []).length === 0,
      60_000,
    );
    await until(`label removed from the copy on ${next}`, async () => {
      const d = await fed.memberApps(next).readNamespacedDeployment({ name: 'flink', namespace: NAMESPACE });
      return d.metadata?.labels?.[REPLICAS_LABEL] === undefined;
    });
    expect((await memberCopy(fed, next, 'flink'))?.uid).toBe(copy.metadata?.uid);
  });
});
