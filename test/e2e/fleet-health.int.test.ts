/**
 * Cluster health in the hands of operators and of the control plane, with real agents on three
 * members and the control plane as a process (fleet guard at 50%):
 * - Remedy: an operator marks member1's DNS broken with the agent's CLI (`condition set`); a
 *   Remedy matching `ServiceDomainNameResolutionReady=False` gives the Cluster
 *   `remedyActions: [TrafficControl]` and the MultiClusterIngress whose backend Service runs on
 *   member1 and member2 stops sending traffic to member1. The running agent's own status writes
 *   keep the hand-set condition; `agent status` shows it with the action; setting it back to
 *   True clears both.
 * - Toleration: a workload tolerating `cluster.karmada.io/not-ready:NoExecute` for 20 s stays on a
 *   cluster whose agent died until 20 s after the taint's `timeAdded`, then leaves; one without
 *   the toleration leaves at once.
 * - Fleet guard: the agents of two of three members die; both Clusters go Unknown and are
 *   tainted, but nothing is evicted and an Event on the binding says why. One member comes back:
 *   after the guard's calm period (one of three is below the 40% resume threshold) the workload
 *   leaves the member still down.
 */
import { isDeepStrictEqual } from 'node:util';
import { CoreV1Api, type V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  annotations,
  findCondition,
  multiClusterIngressKind,
  remedyKind,
  type GracefulEvictionTask,
  type MultiClusterIngress,
  type PropagationPolicy,
  type Remedy,
} from '@kf/api';
import { ResourceClient, isNotFound } from '@kf/kube';
import { DEFAULT_TAINT_POLICY_NAME, startFailoverFederation, type FailoverFederation } from '@kf/testing';
import {
  NAMESPACE,
  TAINTS,
  agentCli,
  binding,
  clusterTaint,
  controlPlaneMetric,
  demoDeployment,
  eventsAbout,
  holdsFor,
  holdsUntil,
  placement,
  policyFor,
  propagate,
  runsAvailable,
  timeMs,
  toleratingUnreadyFor,
  until,
} from './support.ts';

const MEMBERS = ['member1', 'member2', 'member3'];
const GUARD = { pauseAt: 0.5, resumeBelow: 0.4, resumeAfterSeconds: 10 };

let fed: FailoverFederation;

beforeAll(async () => {
  fed = await startFailoverFederation({
    members: 3,
    nodes: 1,
    controlPlaneFlags: [
      `--fleet-guard-pause-threshold=${GUARD.pauseAt}`,
      `--fleet-guard-resume-threshold=${GUARD.resumeBelow}`,
      `--fleet-guard-resume-after=${GUARD.resumeAfterSeconds}s`,
    ],
  });
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

async function placedOn(name: string): Promise<string[]> {
  return Object.keys((await placement(fed, name)) ?? {}).sort();
}

async function evictionTasks(name: string): Promise<readonly GracefulEvictionTask[]> {
  return (await binding(fed, name))?.spec.gracefulEvictionTasks ?? [];
}

async function serviceExists(member: string, name: string): Promise<boolean> {
  const core = fed.member(member).kubeConfig().makeApiClient(CoreV1Api);
  try {
    await core.readNamespacedService({ name, namespace: NAMESPACE });
    return true;
  } catch (err: unknown) {
    if (isNotFound(err) || (err as { code?: number }).code === 404) return false;
    throw err;
  }
}

describe('Remedy set through the agent CLI', () => {
  const DNS = 'ServiceDomainNameResolutionReady';
  let remedies: ResourceClient<Remedy>;
  let ingresses: ResourceClient<MultiClusterIngress>;

  const ingress = async (): Promise<MultiClusterIngress> => ingresses.get(`${NAMESPACE}/web`);
  const dnsCondition = async () => findCondition((await fed.clusters.get('member1')).status?.conditions, DNS);
  const allocatedPods = async (member: string): Promise<string> =>
    String((await fed.clusters.get(member)).status?.resourceSummary?.allocated?.['pods'] ?? 0);

  beforeAll(() => {
    const kc = fed.controlPlaneKubeConfig();
    remedies = new ResourceClient<Remedy>(kc, remedyKind);
    ingresses = new ResourceClient<MultiClusterIngress>(kc, multiClusterIngressKind);
  });

  it('a Service propagated to member1 and member2 backs a MultiClusterIngress', async () => {
    await remedies.create({
      metadata: { name: 'dns-failure' },
      spec: {
        decisionMatches: [
          { clusterConditionMatch: { conditionType: DNS, operator: 'Equal', conditionStatus: 'False' } },
        ],
        actions: ['TrafficControl'],
      },
    });
    const policy: PropagationPolicy = {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'web-propagation', namespace: NAMESPACE },
      spec: {
        resourceSelectors: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          { apiVersion: 'v1', kind: 'Service', name: 'web' },
        ],
        placement: {
          clusterAffinity: { clusterNames: ['member1', 'member2'] },
          replicaScheduling: { replicaSchedulingType: 'Duplicated' },
        },
      },
    };
    const service: V1Service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: NAMESPACE },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 80 }] },
    };
    await propagate(fed, policy, demoDeployment('web', 1));
    await fed.controlPlaneKubeConfig().makeApiClient(CoreV1Api).createNamespacedService({
      namespace: NAMESPACE,
      body: service,
    });
    for (const member of ['member1', 'member2']) {
      await until(`web available on ${member}`, () => runsAvailable(fed, member, 'web', 1));
      await until(`Service web on ${member}`, () => serviceExists(member, 'web'));
    }

    await ingresses.create({
      metadata: { name: 'web', namespace: NAMESPACE },
      spec: {
        rules: [
          {
            host: 'web.example.com',
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: 'web', port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    });
    await until('ingress knows where web runs', async () => {
      const locations = (await ingress()).status?.serviceLocations;
      return isDeepStrictEqual(locations, [{ name: 'web', clusters: ['member1', 'member2'] }]);
    });
    expect((await ingress()).status?.trafficBlockClusters).toBeUndefined();
    expect((await fed.clusters.get('member1')).status?.remedyActions).toBeUndefined();
  });

  it('condition set False → TrafficControl → member1 blocked; the agent keeps the condition', async () => {
    const agentPid = fed.agent('member1').pid;
    // The agent's resource summary counts the pods on member1: it is how its writes are seen below.
    await until('member1 summary counts its one pod', async () => (await allocatedPods('member1')) === '1');

    const out = await agentCli(fed, [
      'condition',
      'set',
      '--cluster=member1',
      `--type=${DNS}`,
      '--status=False',
      '--reason=ServiceDomainNameResolutionFailed',
      '--message=kubernetes.default.svc.cluster.local does not resolve on 3 of 3 nodes',
    ]);
    expect(out.trim()).toBe(`cluster/member1 condition ${DNS}=False set`);
    await until(
      'member1 remedyActions',
      async () =>
        JSON.stringify((await fed.clusters.get('member1')).status?.remedyActions) ===
        JSON.stringify(['TrafficControl']),
      30_000,
    );
    await until(
      'ingress blocks member1',
      async () =>
        JSON.stringify((await ingress()).status?.trafficBlockClusters) === JSON.stringify(['member1']),
      30_000,
    );
    expect((await fed.clusters.get('member2')).status?.remedyActions).toBeUndefined();
    const changed = await eventsAbout(fed, 'member1', 'RemedyActionsChanged');
    expect(changed.map((e) => e.message).join('\n')).toContain('TrafficControl');

    // A second pod on member1 changes its summary: the agent must write its status while the
    // hand-set condition is there, and that write must keep it.
    await fed.apps.patchNamespacedDeployment({
      name: 'web',
      namespace: NAMESPACE,
      body: [{ op: 'replace', path: '/spec/replicas', value: 2 }],
    });
    await until(
      'the agent reports two pods on member1',
      async () => (await allocatedPods('member1')) === '2',
    );
    await holdsFor(3_000, 'hand-set condition kept across status syncs', async () => {
      const c = await dnsCondition();
      return c?.status === 'False' && c.reason === 'ServiceDomainNameResolutionFailed';
    });
    expect(await fed.readyStatus('member1')).toBe('True');
    expect((await fed.clusters.get('member1')).status?.remedyActions).toEqual(['TrafficControl']);
    expect((await ingress()).status?.trafficBlockClusters).toEqual(['member1']);

    const status = await agentCli(fed, ['status', '--cluster=member1']);
    expect(status).toMatch(new RegExp(`^\\s+${DNS}\\s+False\\s+ServiceDomainNameResolutionFailed\\s`, 'm'));
    expect(status).toMatch(/^\s+Ready\s+True\s/m);
    expect(status).toMatch(/^Remedy actions:\n\s+TrafficControl$/m);

    expect(fed.agent('member1').isRunning()).toBe(true);
    expect(fed.agent('member1').pid).toBe(agentPid);
  });

  it('condition set True → remedy action and traffic block cleared', async () => {
    const out = await agentCli(fed, [
      'condition',
      'set',
      '--cluster=member1',
      `--type=${DNS}`,
      '--status=True',
      '--reason=ServiceDomainNameResolutionReady',
    ]);
    expect(out.trim()).toBe(`cluster/member1 condition ${DNS}=True set`);
    await until(
      'member1 remedyActions cleared',
      async () => (await fed.clusters.get('member1')).status?.remedyActions === undefined,
      30_000,
    );
    await until(
      'ingress unblocked',
      async () => (await ingress()).status?.trafficBlockClusters === undefined,
      30_000,
    );
    const status = await agentCli(fed, ['status', '--cluster=member1']);
    expect(status).toMatch(new RegExp(`^\\s+${DNS}\\s+True\\s`, 'm'));
    expect(status).toMatch(/^Remedy actions:\n\s+<none>$/m);

    expect((await agentCli(fed, ['condition', 'clear', '--cluster=member1', `--type=${DNS}`])).trim()).toBe(
      `cluster/member1 condition ${DNS} cleared`,
    );
    expect(await dnsCondition()).toBeUndefined();
  });
});

describe('NoExecute taint tolerated for 20 s', () => {
  const TOLERATION_SECONDS = 20;

  it('stays until 20 s after the taint was added, then leaves; without the toleration it leaves at once', async () => {
    const tolerations = toleratingUnreadyFor(TOLERATION_SECONDS);
    const onMember3And1 = {
      clusterAffinity: { clusterNames: ['member1', 'member3'] },
      replicaScheduling: { replicaSchedulingType: 'Duplicated' as const },
    };
    await propagate(
      fed,
      policyFor('patient', { ...onMember3And1, clusterTolerations: tolerations }),
      demoDeployment('patient', 1),
    );
    await propagate(fed, policyFor('hasty', onMember3And1), demoDeployment('hasty', 1));
    for (const name of ['patient', 'hasty']) {
      await until(
        `${name} on member1 and member3`,
        async () => (await placedOn(name)).join() === 'member1,member3',
      );
      await until(`${name} available on member3`, () => runsAvailable(fed, 'member3', name, 1));
    }

    await fed.killAgent('member3');
    const { monitorGraceSeconds: grace, monitorPeriodSeconds: period, taintHoldSeconds: hold } = fed.timing;
    await until(
      'not-ready:NoExecute on member3',
      async () => (await clusterTaint(fed, 'member3', TAINTS.notReadyExecute)) !== undefined,
      (grace + period + hold) * 1000 + 30_000,
      100,
    );
    const addedMs = timeMs((await clusterTaint(fed, 'member3', TAINTS.notReadyExecute))?.timeAdded);
    const deadlineMs = addedMs + TOLERATION_SECONDS * 1000;

    // The control leaves at once...
    const hastyGoneMs = await until(
      'hasty evicted from member3',
      async () => (await placedOn('hasty')).join() === 'member1',
      30_000,
      100,
    );
    expect(hastyGoneMs - addedMs).toBeLessThan(15_000);
    // ...the tolerating one not before its toleration ran out, even though it is checked right
    // up to the deadline.
    const lastSeenMs = await holdsUntil(deadlineMs, 'patient on member3', async () =>
      (await placedOn('patient')).includes('member3'),
    );
    expect(lastSeenMs).toBeGreaterThan(deadlineMs - 2_000);
    const patientGoneMs = await until(
      'patient evicted from member3',
      async () => (await placedOn('patient')).join() === 'member1',
      45_000,
      100,
    );
    expect(patientGoneMs).toBeGreaterThanOrEqual(deadlineMs);
    expect(patientGoneMs - deadlineMs).toBeLessThan(20_000);
    await until(
      'EvictionStarted Event on the binding',
      async () => (await eventsAbout(fed, 'patient-deployment', 'EvictionStarted')).length > 0,
      30_000,
    );
    const evicted = await eventsAbout(fed, 'patient-deployment', 'EvictionStarted');
    expect(evicted.map((e) => e.message)).toEqual([
      'Evicting from cluster member3 (purge mode Gracefully): the toleration of its NoExecute taint ran out.',
    ]);
    // The taint stayed the same one all along: the deadline was not measured from a later taint.
    expect(timeMs((await clusterTaint(fed, 'member3', TAINTS.notReadyExecute))?.timeAdded)).toBe(addedMs);

    await fed.startAgent('member3');
    await fed.waitForHealthyClusters(90_000);
  });
});

describe('fleet guard at 50%', () => {
  // Both agents die together, yet each Cluster goes Unknown at its own last lease renewal plus the
  // grace period (up to a renewal period apart), and the policy's hold counts from a condition
  // time with whole seconds. A longer hold makes sure the guard counts both clusters before the
  // first NoExecute taint lands; with one of three down it would rightly let the eviction through.
  const HOLD_SECONDS = 6;

  beforeAll(async () => {
    await fed.taintPolicies.mergePatch(DEFAULT_TAINT_POLICY_NAME, {
      metadata: { annotations: { [annotations.addAfterSeconds]: String(HOLD_SECONDS) } },
    });
  });

  afterAll(async () => {
    await fed.taintPolicies.mergePatch(DEFAULT_TAINT_POLICY_NAME, {
      metadata: { annotations: { [annotations.addAfterSeconds]: String(fed.timing.taintHoldSeconds) } },
    });
  });

  it('2 of 3 agents dead: both Clusters Unknown and tainted, nothing evicted, an Event says why', async () => {
    await propagate(
      fed,
      policyFor(
        'guarded',
        {
          clusterAffinity: { clusterNames: MEMBERS },
          replicaScheduling: { replicaSchedulingType: 'Duplicated' },
        },
        { failover: { cluster: { purgeMode: 'Gracefully' } } },
      ),
      demoDeployment('guarded', 1),
    );
    await until('guarded on every member', async () => (await placedOn('guarded')).join() === MEMBERS.join());
    expect(await controlPlaneMetric(fed, 'karmada_failover_fleet_guard_paused')).toBe(0);

    await Promise.all([fed.killAgent('member1'), fed.killAgent('member2')]);
    await until(
      'member1 and member2 Ready=Unknown',
      async () =>
        (await fed.readyStatus('member1')) === 'Unknown' && (await fed.readyStatus('member2')) === 'Unknown',
      60_000,
    );
    await until(
      'NoExecute on member1 and member2',
      async () =>
        (await clusterTaint(fed, 'member1', TAINTS.notReadyExecute)) !== undefined &&
        (await clusterTaint(fed, 'member2', TAINTS.notReadyExecute)) !== undefined,
      30_000,
    );
    expect(await clusterTaint(fed, 'member3', TAINTS.notReadyExecute)).toBeUndefined();

    await until(
      'EvictionPaused Event on the binding',
      async () => (await eventsAbout(fed, 'guarded-deployment', 'EvictionPaused')).length > 0,
      30_000,
    );
    const [paused] = await eventsAbout(fed, 'guarded-deployment', 'EvictionPaused');
    expect(paused?.type).toBe('Warning');
    expect(paused?.involvedObject).toMatchObject({ kind: 'ResourceBinding', namespace: NAMESPACE });
    expect(paused?.message).toContain('Evictions paused: 2 of 3 clusters (66.6%) are not ready');
    expect(paused?.message).toContain('at or above the 50% threshold');
    expect(paused?.message).toContain('(not ready: member1, member2)');
    expect(paused?.message).toContain(
      `Evictions resume once fewer than 40% are not ready for ${GUARD.resumeAfterSeconds}s.`,
    );
    expect(await controlPlaneMetric(fed, 'karmada_failover_fleet_guard_paused')).toBe(1);
    // Held, not late: the binding stays whole for several eviction retries.
    await holdsFor(5_000, 'guarded on every member, no eviction task', async () => {
      return (
        (await placedOn('guarded')).join() === MEMBERS.join() && (await evictionTasks('guarded')).length === 0
      );
    });
  });

  it('one member back: evictions resume for the member still down after the calm period', async () => {
    await fed.startAgent('member1');
    await until('member1 Ready=True', async () => (await fed.readyStatus('member1')) === 'True', 60_000);
    const ready = findCondition((await fed.clusters.get('member1')).status?.conditions, 'Ready');
    // The guard starts its calm period no earlier than member1 turned Ready.
    const resumeNotBeforeMs = timeMs(ready?.lastTransitionTime) + GUARD.resumeAfterSeconds * 1000;
    await holdsUntil(resumeNotBeforeMs, 'guarded still on member2', async () =>
      (await placedOn('guarded')).includes('member2'),
    );
    const evictedMs = await until(
      'guarded evicted from member2',
      async () => (await placedOn('guarded')).join() === 'member1,member3',
      45_000,
      100,
    );
    expect(evictedMs - resumeNotBeforeMs).toBeLessThan(25_000);
    expect(await controlPlaneMetric(fed, 'karmada_failover_fleet_guard_paused')).toBe(0);
    await until(
      'EvictionStarted Event on the binding',
      async () => (await eventsAbout(fed, 'guarded-deployment', 'EvictionStarted')).length > 0,
      30_000,
    );
    const started = await eventsAbout(fed, 'guarded-deployment', 'EvictionStarted');
    expect(started.map((e) => e.message)).toEqual([expect.stringContaining('Evicting from cluster member2')]);
    expect(await fed.readyStatus('member2')).toBe('Unknown');
  });
});
