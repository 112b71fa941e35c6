/**
 * The probe as a DaemonSet would run it: three probe processes acting as the pods on the three
 * KWOK nodes of member1, a real dnsmasq as the cluster DNS, and the real control plane holding
 * the Cluster they report on. Thresholds are short so the whole file runs in about a minute.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { clusterKind, type Cluster, type ClusterCondition } from '@kf/api';
import { LEASE_RESOURCE, ResourceClient, type Lease } from '@kf/kube';
import { Dnsmasq, ProbeProcess, startFederation, type LocalFederation } from '@kf/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeCondition } from '../src/health/node-condition.ts';
import { replyTo, startHostileDns, type HostileDns } from './hostile-dns.ts';

const CLUSTER = 'member1';
const NODES = ['member1-node-0', 'member1-node-1', 'member1-node-2'];
const TYPE = 'ServiceDomainNameResolutionReady';
const PERIOD_MS = 500;
const FAIL_AFTER_MS = 3_000;
const RECOVER_AFTER_MS = 3_000;
const STALE_MS = 8_000;
const LEASE_MS = 4_000;
const RETRY_MS = 1_000;
/** Node write, the leader's watch event and its control plane write, plus this test's polling. */
const WRITE_SLACK_MS = 2_000;
const POLL = { timeout: 30_000, interval: 100 } as const;

const COMMON_ARGS = [
  `--coredns-detect-period=${PERIOD_MS}ms`,
  `--coredns-failure-threshold=${FAIL_AFTER_MS}ms`,
  `--coredns-success-threshold=${RECOVER_AFTER_MS}ms`,
  `--coredns-stale-threshold=${STALE_MS}ms`,
  '--dns-timeout=300ms',
  '--dns-attempts=1',
  `--leader-elect-lease-duration=${LEASE_MS}ms`,
  '--leader-elect-renew-deadline=3s',
  `--leader-elect-retry-period=${RETRY_MS}ms`,
];

const POD_RESOLV_CONF =
  'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 127.0.0.1\noptions ndots:5\n';

describe('DNS probe DaemonSet on a member cluster', () => {
  let fed: LocalFederation;
  let dns: Dnsmasq;
  let hostile: HostileDns;
  let dir: string;
  let resolvConf: string;
  let probes: ProbeProcess[] = [];
  /** Undo steps of beforeAll, run in reverse even when it failed half-way. */
  const cleanups: (() => Promise<unknown>)[] = [];
  let clusters: ResourceClient<Cluster>;
  let leases: ResourceClient<Lease>;
  let core: CoreV1Api;

  const startProbe = (node: string, port = dns.port, args: readonly string[] = []): Promise<ProbeProcess> =>
    ProbeProcess.start({
      node,
      clusterName: CLUSTER,
      memberKubeconfig: fed.member(CLUSTER).kubeconfigPath,
      karmadaKubeconfig: fed.controlPlane.kubeconfigPath,
      resolvConf,
      nameserverPort: port,
      logDir: dir,
      args: [...COMMON_ARGS, ...args],
    });

  const clusterCondition = async (): Promise<ClusterCondition | undefined> =>
    (await clusters.find(CLUSTER))?.status?.conditions?.find((c) => c.type === TYPE);

  /** Our condition on each Node (client-node gives Dates; compare times as ISO strings). */
  const nodeConditions = async (): Promise<Record<string, NodeCondition | undefined>> => {
    const list = await core.listNode();
    return Object.fromEntries(
      list.items.map((n) => {
        const c = n.status?.conditions?.find((x) => x.type === TYPE);
        const json: NodeCondition | undefined =
          c === undefined
            ? undefined
            : {
                type: c.type,
                status: c.status,
                reason: c.reason ?? '',
                message: c.message ?? '',
                lastTransitionTime: c.lastTransitionTime?.toISOString() ?? '',
              };
        return [n.metadata?.name ?? '', json];
      }),
    );
  };

  const leaseHolder = async (): Promise<string> =>
    (await leases.find('kube-system/cluster-problem-detector-coredns-detector'))?.spec?.holderIdentity ?? '';

  const sumOver = async (name: string, labels: string): Promise<number[]> =>
    Promise.all(probes.map((p) => p.metric(name, labels)));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kf-probe-'));
    cleanups.push(() =>
      process.env.KF_KEEP_RUNS === '1' ? Promise.resolve() : rm(dir, { recursive: true, force: true }),
    );
    resolvConf = join(dir, 'resolv.conf');
    await writeFile(resolvConf, POD_RESOLV_CONF);
    dns = await Dnsmasq.start();
    cleanups.push(() => dns.destroy());
    hostile = await startHostileDns();
    cleanups.push(() => hostile.close());
    fed = await startFederation({ members: 1, member: { nodes: 3 } });
    cleanups.push(() => fed.destroy());
    cleanups.push(() => Promise.all(probes.map((p) => p.stop())));
    clusters = new ResourceClient<Cluster>(fed.controlPlane.kubeConfig(), clusterKind);
    leases = new ResourceClient<Lease>(fed.member(CLUSTER).kubeConfig(), LEASE_RESOURCE);
    core = fed.member(CLUSTER).kubeConfig().makeApiClient(CoreV1Api);
    // Started before the Cluster exists: the leader must log that and carry on.
    probes = await Promise.all(NODES.map((n) => startProbe(n)));
  });

  afterAll(async () => {
    for (const undo of cleanups.reverse()) await undo();
  });

  it('records every node verdict and waits for the Cluster, then reports True on it', async () => {
    await expect
      .poll(async () => Object.values(await nodeConditions()).map((c) => c?.status), POLL)
      .toEqual(['True', 'True', 'True']);
    await expect
      .poll(
        async () => (await sumOver('karmada_failover_leader_election_is_leader', '')).reduce((a, b) => a + b),
        POLL,
      )
      .toBe(1);
    expect(await clusters.find(CLUSTER)).toBeUndefined();
    expect(await Promise.all(probes.map((p) => p.status('/readyz')))).toEqual([200, 200, 200]);

    await clusters.create({
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: CLUSTER },
      spec: { syncMode: 'Pull' },
    });
    const ready: ClusterCondition = {
      type: 'Ready',
      status: 'True',
      reason: 'ClusterReady',
      message: 'cluster is healthy and ready to accept workloads',
      lastTransitionTime: '2026-01-02T03:04:05Z',
    };
    await clusters.patchStatus(CLUSTER, { status: { conditions: [ready] } });

    await expect.poll(clusterCondition, POLL).toMatchObject({
      status: 'True',
      reason: 'ServiceDomainNameResolutionReady',
      message: 'service domain name resolution is ready',
    });
    // Only our condition was touched.
    expect((await clusters.get(CLUSTER)).status?.conditions?.[0]).toEqual(ready);
    expect(probes.every((p) => p.isRunning())).toBe(true);
  });

  it('flips nothing for a failure shorter than the failure threshold', async () => {
    const cluster = await clusterCondition();
    const nodes = await nodeConditions();
    const failuresBefore = await sumOver(
      'karmada_failover_probe_lookup_duration_seconds_count',
      'result="network_error"',
    );
    const stoppedAt = Date.now();
    await dns.stop();
    try {
      // Every pod has seen the outage...
      await expect
        .poll(
          async () =>
            (
              await sumOver('karmada_failover_probe_lookup_duration_seconds_count', 'result="network_error"')
            ).every((n, i) => n > (failuresBefore[i] ?? 0)),
          POLL,
        )
        .toBe(true);
    } finally {
      await dns.start();
    }
    expect(Date.now() - stoppedAt).toBeLessThan(FAIL_AFTER_MS); // the premise of this test
    // ...and after the threshold plus a period has passed since it began, nothing moved.
    const successes = await sumOver(
      'karmada_failover_probe_lookup_duration_seconds_count',
      'result="success"',
    );
    await expect
      .poll(
        async () =>
          Date.now() - stoppedAt > FAIL_AFTER_MS + 2 * PERIOD_MS &&
          (await sumOver('karmada_failover_probe_lookup_duration_seconds_count', 'result="success"')).every(
            (n, i) => n > (successes[i] ?? 0),
          ),
        POLL,
      )
      .toBe(true);
    expect(await clusterCondition()).toEqual(cluster);
    const after = await nodeConditions();
    for (const node of NODES) {
      expect(after[node]?.status).toBe('True');
      expect(after[node]?.lastTransitionTime).toBe(nodes[node]?.lastTransitionTime);
    }
  });

  it('a SIGKILLed leader is replaced within the lease duration and reporting goes on', async () => {
    const holder = await leaseHolder();
    const leader = probes.findIndex((p) => holder.startsWith(`${p.node}_`));
    expect(leader).toBeGreaterThanOrEqual(0);
    const killedAt = Date.now();
    await probes[leader]?.kill();
    await expect
      .poll(async () => {
        const h = await leaseHolder();
        return h !== '' && h !== holder;
      }, POLL)
      .toBe(true);
    // A follower sees the last renewal within one jittered retry after it happened, waits one lease
    // duration from that sighting and takes over at its next try: at most lease + 2 retries.
    expect(Date.now() - killedAt).toBeLessThanOrEqual(LEASE_MS + 2 * RETRY_MS * 1.2 + 1_000);
    const newHolder = await leaseHolder();
    const successor = probes.findIndex((p) => newHolder.startsWith(`${p.node}_`));
    expect(successor).toBeGreaterThanOrEqual(0);
    expect(successor).not.toBe(leader);
    await expect
      .poll(() => probes[successor]?.metric('karmada_failover_leader_election_is_leader'), POLL)
      .toBe(1);
    // The DaemonSet restarts the pod on its node.
    probes[leader] = await startProbe(NODES[leader] ?? '');

    // The new leader reports a change.
    await dns.stop();
    await expect.poll(async () => (await clusterCondition())?.status, POLL).toBe('False');
    await dns.start();
    await expect.poll(async () => (await clusterCondition())?.status, POLL).toBe('True');
    await expect
      .poll(async () => Object.values(await nodeConditions()).map((c) => c?.status), POLL)
      .toEqual(['True', 'True', 'True']);
  });

  it('turns False no sooner than the failure threshold and no later than threshold + period + write', async () => {
    const stoppedAt = Date.now();
    await dns.stop();
    await expect.poll(async () => (await clusterCondition())?.status, POLL).toBe('False');
    const tookMs = Date.now() - stoppedAt;
    expect(tookMs).toBeGreaterThanOrEqual(FAIL_AFTER_MS);
    expect(tookMs).toBeLessThanOrEqual(FAIL_AFTER_MS + PERIOD_MS + WRITE_SLACK_MS);
    expect(await clusterCondition()).toMatchObject({
      reason: 'ServiceDomainNameResolutionFailed',
      message: 'service domain name resolution is unready',
    });
    const nodes = await nodeConditions();
    expect(nodes[NODES[0] ?? '']).toMatchObject({
      status: 'False',
      reason: 'ServiceDomainNameResolutionFailed',
    });
    expect(nodes[NODES[0] ?? '']?.message).toContain('connection refused');
  });

  it('turns True again no sooner than the success threshold after DNS is back', async () => {
    const startedAt = Date.now();
    await dns.start();
    const answeringAt = Date.now();
    await expect.poll(async () => (await clusterCondition())?.status, POLL).toBe('True');
    const now = Date.now();
    expect(now - startedAt).toBeGreaterThanOrEqual(RECOVER_AFTER_MS);
    expect(now - answeringAt).toBeLessThanOrEqual(RECOVER_AFTER_MS + PERIOD_MS + WRITE_SLACK_MS);
    // One True node is enough for the cluster; the others follow within a round.
    await expect
      .poll(async () => Object.values(await nodeConditions()).map((c) => c?.status), POLL)
      .toEqual(['True', 'True', 'True']);
  });

  it('in quorum mode reports 2 of 3 failing nodes, and keeps reporting with one Unknown', async () => {
    await Promise.all(probes.map((p) => p.stop()));
    // Nodes 0 and 1 ask a server that answers garbage; node 2 asks dnsmasq.
    hostile.udp = (q) => [{ bytes: replyTo(q).subarray(0, 20) }];
    const quorum = ['--aggregation=quorum', '--failure-quorum=0.5'];
    probes = await Promise.all(NODES.map((n, i) => startProbe(n, i < 2 ? hostile.port : dns.port, quorum)));
    await expect
      .poll(async () => Object.values(await nodeConditions()).map((c) => c?.status), POLL)
      .toEqual(['False', 'False', 'True']);
    await expect.poll(clusterCondition, POLL).toMatchObject({
      status: 'False',
      reason: 'ServiceDomainNameResolutionFailed',
      message: 'service domain name resolution is unready: 2 of 3 nodes failed',
    });
    expect(probes.every((p) => p.isRunning())).toBe(true);
    expect(await Promise.all(probes.map((p) => p.status('/healthz')))).toEqual([200, 200, 200]);
    expect((await nodeConditions())[NODES[0] ?? '']?.message).toContain('bad answer');

    // Node 2's pod dies for good: its verdict goes stale, the rest still count.
    await probes[2]?.kill();
    await expect.poll(clusterCondition, POLL).toMatchObject({
      status: 'False',
      message: 'service domain name resolution is unready: 2 of 2 nodes failed; 1 node unknown',
    });
  });
});
