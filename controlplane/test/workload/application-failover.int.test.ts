/**
 * Application failover and state preservation against a real control plane: the workload
 * pipeline, application-failover and graceful-eviction run in-process; the tests write Work status
 * as the agent would (healthy, then unhealthy) and watch the workload move.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotations, parseTime, type PropagationPolicy, type ResourceBinding } from '@kf/api';
import { retryOnConflict } from '@kf/kube';
import { parseEvictionHistory } from '../../src/scheduler/eviction-history-annotation.ts';
import type { Explanation } from '../../src/workload/explain/explain.ts';
import { workNameFor } from '../../src/names.ts';
import {
  createReadyCluster,
  deployment,
  releaseDeletedWorks,
  reportWork,
  startHarness,
  type Harness,
} from './harness.ts';

const POLL = { timeout: 60_000, interval: 200 };
const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const run = promisify(execFile);
const TOLERATION_SECONDS = 5;
const BLOCK_PREDECESSOR_SECONDS = 30;
const JOB_LABEL = 'failover.example.com/job-id';
let h: Harness;

beforeAll(async () => {
  h = await startHarness(['member1', 'member2'], {
    failover: { gracefulEvictionTimeoutMs: 600_000 },
    statefulFailoverInjection: true,
  });
  await createReadyCluster(h, 'member1');
  await createReadyCluster(h, 'member2');
});

afterAll(async () => {
  await (h as Harness | undefined)?.stop();
});

/** One copy on member1 or member2 (member1 first: equal scores go to the smaller name). */
function singleClusterPolicy(
  name: string,
  failover: PropagationPolicy['spec']['failover'],
): PropagationPolicy {
  return {
    metadata: { name, namespace: 'default' },
    spec: {
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name }],
      placement: {
        clusterAffinity: { clusterNames: ['member1', 'member2'] },
        spreadConstraints: [{ spreadByField: 'cluster', minGroups: 1, maxGroups: 1 }],
        replicaScheduling: { replicaSchedulingType: 'Duplicated' },
      },
      // Application failover requires it (admission): dependencies move with the workload.
      propagateDeps: true,
      ...(failover === undefined ? {} : { failover }),
    },
  };
}

const binding = (name: string): Promise<ResourceBinding> => h.bindings.get(`default/${name}-deployment`);
const placedOn = async (name: string): Promise<string[]> =>
  ((await binding(name)).spec.clusters ?? []).map((c) => c.name);
const healthOn = async (name: string, cluster: string): Promise<string | undefined> =>
  (await binding(name)).status?.aggregatedStatus?.find((i) => i.clusterName === cluster)?.health;

/** Reports the Deployment healthy on `cluster`, and waits until the binding says so. */
async function runHealthy(
  name: string,
  cluster: string,
  status: Record<string, unknown> = {},
): Promise<void> {
  const work = { cluster, name: workNameFor('Deployment', name, 'default'), deployment: name };
  await expect
    .poll(async () => (await h.works.find(`karmada-es-${cluster}/${work.name}`)) !== undefined, POLL)
    .toBe(true);
  await reportWork(h, work, { health: 'Healthy', status: { replicas: 1, ...status } });
  await expect.poll(() => healthOn(name, cluster), POLL).toBe('Healthy');
}

/** Waits until application failover has recorded the Deployment as seen Healthy on `cluster`. */
async function seenHealthy(name: string, cluster: string): Promise<void> {
  const recorded = async (): Promise<string[]> =>
    (
      (await binding(name)).metadata.annotations?.['failover.karmada-failover.io/healthy-clusters'] ?? ''
    ).split(',');
  await expect.poll(recorded, POLL).toContain(cluster);
}

/** Reports the Deployment unhealthy on `cluster`; returns when the report was written. */
async function breakOn(name: string, cluster: string, status: Record<string, unknown> = {}): Promise<number> {
  const work = { cluster, name: workNameFor('Deployment', name, 'default'), deployment: name };
  const atMs = Date.now();
  await reportWork(h, work, { health: 'Unhealthy', status: { replicas: 1, ...status } });
  return atMs;
}

/** Works of the Deployment, as `{ cluster: labels of its manifest }`. */
async function workLabels(name: string): Promise<Record<string, Record<string, string>>> {
  const { items } = await h.works.list();
  const out: Record<string, Record<string, string>> = {};
  for (const w of items) {
    if (w.metadata.annotations?.['resourcebinding.karmada.io/name'] !== `${name}-deployment`) continue;
    const m = w.spec.workload?.manifests?.[0] as
      { metadata?: { labels?: Record<string, string> } } | undefined;
    out[(w.metadata.namespace ?? '').replace('karmada-es-', '')] = m?.metadata?.labels ?? {};
  }
  return out;
}

/** The job id label of each Work's manifest (`-` when absent). */
async function jobLabels(name: string): Promise<Record<string, string>> {
  const labels = await workLabels(name);
  return Object.fromEntries(Object.entries(labels).map(([c, l]) => [c, l[JOB_LABEL] ?? '-']));
}

describe('application failover', () => {
  let evictedFromMember1AtMs = 0;

  it('moves the workload after tolerationSeconds of unhealthiness, not before, and records the eviction', async () => {
    await h.policies.create(
      singleClusterPolicy('web', {
        application: {
          decisionConditions: { tolerationSeconds: TOLERATION_SECONDS },
          purgeMode: 'Gracefully',
          gracePeriodSeconds: 2,
          blockPredecessorSeconds: BLOCK_PREDECESSOR_SECONDS,
        },
      }),
    );
    await h.deployments.create(deployment('web', 1));
    await expect.poll(() => placedOn('web'), POLL).toEqual(['member1']);
    await runHealthy('web', 'member1');
    await seenHealthy('web', 'member1');

    const brokenAtMs = await breakOn('web', 'member1');
    await expect.poll(() => placedOn('web'), POLL).not.toContain('member1');
    // The timer starts when the controller sees the report, never before it was written.
    expect(Date.now() - brokenAtMs).toBeGreaterThanOrEqual(TOLERATION_SECONDS * 1000);

    const b = await binding('web');
    expect(b.spec.gracefulEvictionTasks).toMatchObject([
      {
        fromCluster: 'member1',
        purgeMode: 'Gracefully',
        gracePeriodSeconds: 2,
        replicas: 1,
        reason: 'ApplicationFailure',
        producer: 'resource-binding-application-failover-controller',
      },
    ]);
    // Recorded in the annotation Karmada's CRDs keep, not in spec.evictionHistory.
    const history = parseEvictionHistory(b.metadata.annotations?.[annotations.evictionHistory]);
    expect(history).toMatchObject([{ clusterName: 'member1', reason: 'ApplicationFailure' }]);
    expect(b.spec.evictionHistory).toBeUndefined();
    evictedFromMember1AtMs = parseTime(history[0]?.creationTimestamp) ?? 0;
    await expect.poll(() => placedOn('web'), POLL).toEqual(['member2']);
    // Gracefully: the old copy stays while the task lasts, and past its 2 s grace period while the
    // new copy has not reported Healthy: a timeout never removes the only copy.
    await expect
      .poll(async () => Object.keys(await workLabels('web')).sort(), POLL)
      .toEqual(['member1', 'member2']);
    const lastCopyKept = async (): Promise<string | undefined> =>
      (await binding('web')).status?.conditions?.find((c) => c.type === 'LastCopyKept')?.status;
    await expect.poll(lastCopyKept, POLL).toBe('True');
    expect(Object.keys(await workLabels('web')).sort()).toEqual(['member1', 'member2']);
    await runHealthy('web', 'member2');
    await expect.poll(async () => (await binding('web')).spec.gracefulEvictionTasks ?? [], POLL).toEqual([]);
    await expect.poll(lastCopyKept, POLL).toBeUndefined();
    await expect
      .poll(async () => {
        await releaseDeletedWorks(h, 'web-deployment');
        return Object.keys(await workLabels('web'));
      }, POLL)
      .toEqual(['member2']);
  });

  it('keeps the workload off the cluster it left for blockPredecessorSeconds', async () => {
    await runHealthy('web', 'member2');
    await seenHealthy('web', 'member2');
    await breakOn('web', 'member2');
    await expect.poll(() => placedOn('web'), POLL).toEqual([]);
    // member1 has no eviction task any more: only the eviction history keeps it out.
    const tasks = (await binding('web')).spec.gracefulEvictionTasks ?? [];
    expect(tasks.map((t) => t.fromCluster)).not.toContain('member1');
    const scheduled = async (): Promise<string> => {
      const c = (await binding('web')).status?.conditions?.find((x) => x.type === 'Scheduled');
      return `${c?.status ?? ''}: ${c?.message ?? ''}`;
    };
    await expect.poll(scheduled, POLL).toMatch(/^False: .*blockPredecessorSeconds/);

    await expect.poll(() => placedOn('web'), { ...POLL, timeout: 90_000 }).toEqual(['member1']);
    expect(Date.now()).toBeGreaterThanOrEqual(evictedFromMember1AtMs + BLOCK_PREDECESSOR_SECONDS * 1000);
    // member2's copy, the last one, stays until member1's is healthy.
    expect((await binding('web')).spec.gracefulEvictionTasks?.map((t) => t.fromCluster)).toEqual(['member2']);
    await runHealthy('web', 'member1');
    await expect.poll(async () => (await binding('web')).spec.gracefulEvictionTasks ?? [], POLL).toEqual([]);
  });
});

describe('application failover with nowhere to go', () => {
  it('keeps the only copy past the timeout and places the workload back once it is healthy there', async () => {
    await h.policies.create({
      metadata: { name: 'solo', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'solo' }],
        placement: {
          clusterAffinity: { clusterNames: ['member1'] },
          replicaScheduling: { replicaSchedulingType: 'Duplicated' },
        },
        propagateDeps: true,
        // The default blockPredecessorSeconds (600) would keep member1 out: the copy never left.
        failover: {
          application: {
            decisionConditions: { tolerationSeconds: TOLERATION_SECONDS },
            purgeMode: 'Gracefully',
            gracePeriodSeconds: 2,
          },
        },
      },
    });
    await h.deployments.create(deployment('solo', 1));
    await expect.poll(() => placedOn('solo'), POLL).toEqual(['member1']);
    await runHealthy('solo', 'member1');
    await seenHealthy('solo', 'member1');
    const workKey = `karmada-es-member1/${workNameFor('Deployment', 'solo', 'default')}`;
    const uid = (await h.works.get(workKey)).metadata.uid;

    await breakOn('solo', 'member1');
    await expect.poll(() => placedOn('solo'), POLL).toEqual([]);
    const lastCopyKept = async (): Promise<string | undefined> =>
      (await binding('solo')).status?.conditions?.find((c) => c.type === 'LastCopyKept')?.status;
    await expect.poll(lastCopyKept, POLL).toBe('True');
    expect((await binding('solo')).spec.gracefulEvictionTasks?.map((t) => t.fromCluster)).toEqual([
      'member1',
    ]);
    const kept = await h.works.get(workKey);
    expect([kept.metadata.uid, kept.metadata.deletionTimestamp]).toEqual([uid, undefined]);

    await runHealthy('solo', 'member1');
    await expect.poll(() => placedOn('solo'), POLL).toEqual(['member1']);
    await expect.poll(async () => (await binding('solo')).spec.gracefulEvictionTasks ?? [], POLL).toEqual([]);
    await expect.poll(lastCopyKept, POLL).toBeUndefined();
    const after = await h.works.get(workKey);
    expect([after.metadata.uid, after.metadata.deletionTimestamp]).toEqual([uid, undefined]);
  });
});

describe('application failover across a controller restart', () => {
  it('still moves a workload that was healthy, then broke, when the controller restarted', async () => {
    await h.policies.create(
      singleClusterPolicy('api', {
        application: { decisionConditions: { tolerationSeconds: TOLERATION_SECONDS }, purgeMode: 'Directly' },
      }),
    );
    await h.deployments.create(deployment('api', 1));
    await expect.poll(() => placedOn('api'), POLL).toEqual(['member1']);
    await runHealthy('api', 'member1');
    await seenHealthy('api', 'member1');
    await breakOn('api', 'member1');
    await expect.poll(() => healthOn('api', 'member1'), POLL).toBe('Unhealthy');

    // The new controller never sees the workload Healthy itself: only the record on the binding says so.
    await h.restartApplicationFailover();
    await expect.poll(() => placedOn('api'), POLL).toEqual(['member2']);
    expect((await binding('api')).spec.gracefulEvictionTasks?.[0]).toMatchObject({
      fromCluster: 'member1',
      reason: 'ApplicationFailure',
    });
  });
});

describe('application failover across a restart in the middle of the unhealthy period', () => {
  const TOLERATION_MS = 10_000;
  /** How late the move may come after its due time: the controller's requeue and the poll. */
  const SLACK_MS = 2_000;

  it('moves the workload tolerationSeconds after the first sighting, not after the new controller’s', async () => {
    await h.policies.create(
      singleClusterPolicy('batch', {
        application: {
          decisionConditions: { tolerationSeconds: TOLERATION_MS / 1000 },
          purgeMode: 'Directly',
        },
      }),
    );
    await h.deployments.create(deployment('batch', 1));
    await expect.poll(() => placedOn('batch'), POLL).toEqual(['member1']);
    await runHealthy('batch', 'member1');
    await seenHealthy('batch', 'member1');
    const brokeAtMs = await breakOn('batch', 'member1');

    // The first sighting is recorded on the binding, on the control plane's clock.
    const recordedSince = async (): Promise<string | undefined> =>
      (await binding('batch')).metadata.annotations?.['failover.karmada-failover.io/unhealthy-since'];
    await expect.poll(recordedSince, POLL).toMatch(/^\{"member1":"/);
    const firstSeenMs =
      parseTime((JSON.parse((await recordedSince()) ?? '{}') as Record<string, string>)['member1']) ?? 0;
    expect(firstSeenMs).toBeGreaterThanOrEqual(brokeAtMs);
    expect(firstSeenMs - brokeAtMs).toBeLessThan(5_000);

    // Half-way through, the controller restarts (as a new leader would take over): its memory is empty.
    await new Promise((r) => setTimeout(r, firstSeenMs + TOLERATION_MS / 2 - Date.now()));
    await h.restartApplicationFailover();
    const restartedAtMs = Date.now();
    expect(await placedOn('batch')).toEqual(['member1']);

    await expect
      .poll(() => placedOn('batch'), { timeout: 2 * TOLERATION_MS + 30_000, interval: 100 })
      .toEqual(['member2']);
    const movedSeenAtMs = Date.now();
    process.stdout.write(
      `application failover across a restart: moved ${String(movedSeenAtMs - firstSeenMs)} ms after the first sighting ` +
        `(tolerationSeconds ${String(TOLERATION_MS / 1000)}), restart at +${String(restartedAtMs - firstSeenMs)} ms\n`,
    );
    // Not before tolerationSeconds from the first sighting, and not tolerationSeconds from the restart.
    expect(movedSeenAtMs).toBeGreaterThanOrEqual(firstSeenMs + TOLERATION_MS);
    expect(movedSeenAtMs).toBeLessThanOrEqual(firstSeenMs + TOLERATION_MS + SLACK_MS);
    expect(movedSeenAtMs).toBeLessThan(restartedAtMs + TOLERATION_MS);
    // The eviction takes the record of the cluster it left with it.
    expect(await recordedSince()).toBeUndefined();
  });
});

describe('explain', () => {
  /** The control plane's CLI, as an operator runs it against this API server. */
  const explainCli = (...args: string[]): Promise<{ stdout: string; stderr: string }> =>
    run(process.execPath, [MAIN, 'explain', ...args, '--kubeconfig', h.cp.kubeconfigPath], {
      env: { ...process.env, KF_FEATURE_GATES: 'Failover=true' },
    });

  it('prints where the binding runs, why the other cluster is out, and the failover verdicts', async () => {
    const { stdout } = await explainCli('default/web');
    expect(stdout).toContain('ResourceBinding default/web-deployment (Deployment default/web, 1 replica(s))');
    expect(stdout).toMatch(/Runs on:\n +CLUSTER +REPLICAS +HEALTH +APPLIED\n +member1 +1 /);
    expect(stdout).toMatch(/Eviction history:\n +CLUSTER .*\n +member1 .*\n +member2 /);
    expect(stdout).toContain('Cluster failover: inactive: --enable-no-execute-taint-eviction=false');
    expect(stdout).toContain('Application failover: active');
    expect(stdout).toContain('  tolerationSeconds 5');
    expect(stdout).toMatch(/Recent events:\n[\s\S]*EvictionStarted +1 +Evicting from cluster member2/);

    const json = JSON.parse((await explainCli('default/web-deployment', '-o', 'json')).stdout) as Explanation;
    expect(json.placed.map((p) => p.cluster)).toEqual(['member1']);
    // member2 stays out exactly as long as its eviction blocks it.
    const member2 = json.clusters.find((c) => c.cluster === 'member2');
    const blocked = json.history.find((e) => e.cluster === 'member2')?.active;
    expect(member2).toMatchObject(
      blocked === true ? { verdict: 'rejected', plugin: 'EvictionHistory' } : { verdict: 'fits' },
    );
  });

  it('exits 2 for a binding that does not exist', async () => {
    const err = await explainCli('default/nothing').catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no ResourceBinding default/nothing') as unknown,
    });
  });
});

describe('state preservation', () => {
  const rules = [{ aliasLabelName: JOB_LABEL, jsonPath: '{ .jobStatus.jobID }' }];

  it('labels the new copy with the job id of the old one after an application failover (Directly)', async () => {
    await h.policies.create(
      singleClusterPolicy('flink', {
        application: {
          decisionConditions: { tolerationSeconds: 1 },
          purgeMode: 'Directly',
          statePreservation: { rules },
        },
      }),
    );
    await h.deployments.create(deployment('flink', 1));
    await expect.poll(() => placedOn('flink'), POLL).toEqual(['member1']);
    await runHealthy('flink', 'member1', { jobStatus: { jobID: 'job-42' } });
    await seenHealthy('flink', 'member1');
    await breakOn('flink', 'member1', { jobStatus: { jobID: 'job-42' } });

    await expect
      .poll(async () => (await binding('flink')).spec.gracefulEvictionTasks?.[0], POLL)
      .toMatchObject({
        fromCluster: 'member1',
        purgeMode: 'Directly',
        preservedLabelState: { [JOB_LABEL]: 'job-42' },
        clustersBeforeFailover: ['member1'],
      });
    await expect
      .poll(async () => {
        await releaseDeletedWorks(h, 'flink-deployment');
        return jobLabels('flink');
      }, POLL)
      .toEqual({ member2: 'job-42' });
    expect((await workLabels('flink'))['member2']?.['app']).toBe('flink');
  });

  it('labels the new copy after a cluster failover, capturing the state before the old Work goes', async () => {
    await h.policies.create(
      singleClusterPolicy('etl', { cluster: { purgeMode: 'Directly', statePreservation: { rules } } }),
    );
    await h.deployments.create(deployment('etl', 1));
    await expect.poll(() => placedOn('etl'), POLL).toEqual(['member1']);
    await runHealthy('etl', 'member1', { jobStatus: { jobID: 'etl-7' } });

    // What the taint manager writes for an untolerated NoExecute taint with purgeMode Directly.
    await retryOnConflict(async () => {
      const b = await binding('etl');
      await h.bindings.mergePatch('default/etl-deployment', {
        metadata: { resourceVersion: b.metadata.resourceVersion },
        spec: {
          clusters: [],
          gracefulEvictionTasks: [
            {
              fromCluster: 'member1',
              purgeMode: 'Directly',
              reason: 'TaintUntolerated',
              producer: 'TaintManager',
            },
          ],
        },
      });
    });
    await expect
      .poll(async () => (await binding('etl')).spec.gracefulEvictionTasks?.[0]?.preservedLabelState, POLL)
      .toEqual({ [JOB_LABEL]: 'etl-7' });
    await expect
      .poll(async () => {
        await releaseDeletedWorks(h, 'etl-deployment');
        return jobLabels('etl');
      }, POLL)
      .toEqual({ member2: 'etl-7' });
  });
});
