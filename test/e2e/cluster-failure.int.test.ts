/**
 * A member's agent dies: with real agents and the control plane as processes, the Cluster goes
 * Ready=Unknown once the heartbeat has been silent for the monitor grace period (at most one
 * monitor period later), gets the unreachable NoSchedule taint at once, the default policy's
 * NoExecute taint after its hold time, and the bindings on it are moved; the agent comes back and
 * the taints go. A member API server that goes down while its agent runs is reported Ready=False
 * and tainted not-ready, and untainted once it is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCondition } from '@kf/api';
import { parseMicroTime } from '@kf/kube';
import { startFailoverFederation, type FailoverFederation } from '@kf/testing';
import {
  TAINTS,
  clusterTaint,
  demoDeployment,
  memberCopy,
  placement,
  policyFor,
  propagate,
  runsAvailable,
  timeMs,
  until,
  worksOf,
} from './support.ts';

let fed: FailoverFederation;

beforeAll(async () => {
  fed = await startFailoverFederation({ members: 2, nodes: 1 });
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

describe('member failures', () => {
  it('an agent dies: Cluster Unknown, tainted, bindings evicted, untainted when the agent returns', async () => {
    const { monitorGraceSeconds: grace, monitorPeriodSeconds: period, taintHoldSeconds: hold } = fed.timing;
    await propagate(
      fed,
      policyFor('web', {
        clusterAffinity: { clusterNames: ['member1', 'member2'] },
        replicaScheduling: { replicaSchedulingType: 'Duplicated' },
      }),
      demoDeployment('web', 1),
    );
    await until('web placed on both members', async () => {
      const p = await placement(fed, 'web');
      return p?.['member1'] === 1 && p['member2'] === 1;
    });
    await until('web available on member1', () => runsAvailable(fed, 'member1', 'web', 1));

    await fed.killAgent('member1');
    // A renewal in flight when the agent died has landed by now.
    await new Promise((r) => setTimeout(r, 300));
    const lease = await fed.leases.get('karmada-cluster/member1');
    const lastRenewMs = parseMicroTime(lease.spec?.renewTime ?? '') ?? Number.NaN;

    const seenUnknownMs = await until(
      'member1 Ready=Unknown',
      async () => (await fed.readyStatus('member1')) === 'Unknown',
      (grace + period) * 1000 + 30_000,
      100,
    );
    const cluster = await fed.clusters.get('member1');
    const ready = findCondition(cluster.status?.conditions, 'Ready');
    expect(ready?.reason).toBe('ClusterStatusUnknown');
    const unknownAtMs = timeMs(ready?.lastTransitionTime);
    // Not before the grace period (the condition's time has whole seconds: up to 1 s earlier)...
    expect(seenUnknownMs).toBeGreaterThanOrEqual(lastRenewMs + grace * 1000);
    expect(unknownAtMs).toBeGreaterThan(lastRenewMs + grace * 1000 - 1000);
    // ...and no later than one monitor period after it.
    expect(unknownAtMs).toBeLessThanOrEqual(lastRenewMs + (grace + period) * 1000);

    // NoSchedule at once (same or next second), NoExecute after the policy's hold time.
    await until(
      'unreachable:NoSchedule',
      async () => (await clusterTaint(fed, 'member1', TAINTS.unreachable)) !== undefined,
      20_000,
    );
    const noSchedule = await clusterTaint(fed, 'member1', TAINTS.unreachable);
    expect(timeMs(noSchedule?.timeAdded) - unknownAtMs).toBeLessThanOrEqual(2000);
    await until(
      'not-ready:NoExecute',
      async () => (await clusterTaint(fed, 'member1', TAINTS.notReadyExecute)) !== undefined,
      hold * 1000 + 30_000,
    );
    const noExecute = await clusterTaint(fed, 'member1', TAINTS.notReadyExecute);
    expect(timeMs(noExecute?.timeAdded) - unknownAtMs).toBeGreaterThanOrEqual(hold * 1000 - 1000);

    // The binding leaves member1 (a graceful eviction task keeps its copy for now).
    await until('web evicted from member1', async () => {
      const p = await placement(fed, 'web');
      return p !== undefined && !('member1' in p) && p['member2'] === 1;
    });
    // Its copy there stays: the Work (kept by the eviction task, then deleted) waits for the agent.
    expect((await worksOf(fed, 'web'))['member1']).toBeDefined();
    expect(await memberCopy(fed, 'member1', 'web')).toBeDefined();

    await fed.startAgent('member1');
    await until('member1 Ready=True', async () => (await fed.readyStatus('member1')) === 'True', 60_000);
    await until(
      'member1 taints removed',
      async () => ((await fed.clusters.get('member1')).spec.taints ?? []).length === 0,
      30_000,
    );
  });

  it('a member API server goes down while its agent runs: Ready=False, not-ready taints, restored after', async () => {
    await fed.killMemberApiServer('member2');
    // The agent keeps its heartbeat and reports the member unreachable once its failure threshold passed.
    await until('member2 Ready=False', async () => (await fed.readyStatus('member2')) === 'False', 60_000);
    const cluster = await fed.clusters.get('member2');
    expect(findCondition(cluster.status?.conditions, 'Ready')?.reason).toBe('ClusterNotReachable');
    await until(
      'not-ready NoSchedule and NoExecute on member2',
      async () =>
        (await clusterTaint(fed, 'member2', TAINTS.notReadySchedule)) !== undefined &&
        (await clusterTaint(fed, 'member2', TAINTS.notReadyExecute)) !== undefined,
      30_000,
    );
    await until(
      'web evicted from member2',
      async () => !('member2' in ((await placement(fed, 'web')) ?? {})),
    );

    await fed.startMemberApiServer('member2');
    await until('member2 Ready=True', async () => (await fed.readyStatus('member2')) === 'True', 60_000);
    await until(
      'member2 taints removed',
      async () => ((await fed.clusters.get('member2')).spec.taints ?? []).length === 0,
      30_000,
    );
  });
});
