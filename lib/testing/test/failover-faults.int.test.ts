/**
 * Faults on a running failover federation: every process reaches its API servers through its own
 * proxied link, breaking one link shows in the member's Cluster as the product reports it, the
 * fault socket drives the same faults from another process, and the whole control plane can be
 * lost and brought back.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCondition } from '@kf/api';
import { leaseRenewedAtMs } from '@kf/kube';
import {
  FaultControlServer,
  MemberDns,
  eventually,
  faultSocketPath,
  listLinks,
  sendFaultCommand,
  startFailoverFederation,
  type FailoverFederation,
} from '../src/index.ts';

let fed: FailoverFederation;

beforeAll(async () => {
  fed = await startFailoverFederation({ members: 1, nodes: 1 });
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

async function readyCondition(): Promise<{ status?: string; reason?: string }> {
  const cluster = await fed.clusters.get('member1');
  return findCondition(cluster.status?.conditions, 'Ready') ?? {};
}

const untilReady = (status: string, timeoutMs = 60_000): Promise<number> =>
  eventually(`member1 Ready=${status}`, async () => (await readyCondition()).status === status, timeoutMs);

describe('failover federation links', () => {
  it('hands every process a kubeconfig that names its own proxy', async () => {
    expect(fed.links.names()).toEqual(['agent-member:member1', 'agent:member1', 'controlplane']);
    const args = (p: { spec: { args: readonly string[] } }, flag: string): string =>
      p.spec.args.find((a) => a.startsWith(`${flag}=`))?.slice(flag.length + 1) ?? '';
    const serverOf = async (kubeconfig: string): Promise<string> =>
      /server: (\S+)/.exec(await readFile(kubeconfig, 'utf8'))?.[1] ?? '';

    const agent = fed.agent('member1');
    expect(await serverOf(args(agent, '--karmada-kubeconfig'))).toBe(
      fed.links.agentToControlPlane('member1').url,
    );
    expect(await serverOf(args(agent, '--kubeconfig'))).toBe(fed.links.agentToMember('member1').url);
    expect(await serverOf(args(fed.controlPlaneProcess, '--kubeconfig'))).toBe(fed.links.controlPlane.url);
    expect(fed.links.controlPlane.target).toBe(fed.federation.controlPlane.server);
    expect(fed.links.agentToMember('member1').target).toBe(fed.member('member1').server);
    expect(args(agent, '--karmada-kubeconfig').startsWith(join(fed.runDir, 'links'))).toBe(true);
    // Each process really talks over its link.
    for (const name of fed.links.names()) expect(fed.links.get(name).accepted, name).toBeGreaterThan(0);
  });

  it("routes a member's DNS probes over a link of their own", async () => {
    const dns = await MemberDns.start(fed);
    try {
      const link = fed.links.probesToControlPlane('member1');
      expect(link.target).toBe(fed.federation.controlPlane.server);
      await eventually('a probe connected over probe:member1', () => Promise.resolve(link.accepted > 0));
    } finally {
      await dns.destroy();
    }
  });

  it("cutting an agent's link to the control plane silences its heartbeat until restored", async () => {
    fed.links.agentToControlPlane('member1').cut();
    await untilReady(
      'Unknown',
      (fed.timing.monitorGraceSeconds + fed.timing.monitorPeriodSeconds) * 1000 + 30_000,
    );
    expect((await readyCondition()).reason).toBe('ClusterStatusUnknown');
    fed.links.agentToControlPlane('member1').restore();
    await untilReady('True');
  });

  it("blackholing an agent's link to its member makes the member unreachable until restored", async () => {
    fed.links.agentToMember('member1').blackhole();
    await untilReady('False');
    expect((await readyCondition()).reason).toBe('ClusterNotReachable');
    fed.links.agentToMember('member1').restore();
    await untilReady('True');
    await fed.waitForHealthyClusters();
  });

  it('drives the same faults through the fault socket, undoing a timed one by itself', async () => {
    const socket = faultSocketPath(fed.runDir);
    const control = await FaultControlServer.start(socket, fed);
    try {
      await sendFaultCommand(socket, { op: 'delay', link: 'controlplane', delayMs: 50 });
      await sendFaultCommand(socket, { op: 'cut', link: 'agent:member1', forMs: 1_500 });
      const states = await listLinks(socket);
      expect(states.find((l) => l.name === 'agent:member1')).toMatchObject({ mode: 'cut' });
      expect(states.find((l) => l.name === 'controlplane')).toMatchObject({ mode: 'delay', delayMs: 50 });
      await expect(sendFaultCommand(socket, { op: 'cut', link: 'agent:member9' })).rejects.toThrow(
        'no link named agent:member9',
      );
      await eventually('agent:member1 restored', () =>
        Promise.resolve(fed.links.agentToControlPlane('member1').mode === 'forward'),
      );
      await sendFaultCommand(socket, { op: 'restore' });
      expect(fed.links.controlPlane.mode).toBe('forward');
    } finally {
      await control.close();
    }
    await fed.waitForHealthyClusters();
  });

  it('loses the whole control plane, restarts an agent meanwhile, and comes back healthy', async () => {
    await fed.killControlPlane();
    expect(fed.controlPlaneProcess.isRunning()).toBe(false);
    expect(fed.federation.controlPlane.isRunning()).toBe(false);
    await expect(fed.clusters.list()).rejects.toThrow();
    await fed.restartAgent('member1');
    expect(fed.agent('member1').isRunning()).toBe(true);
    // The agent may register in the moment a fresh kube-apiserver still answers 403 to everyone
    // but system:masters (its RBAC caches not yet synced): registration retries those.
    await fed.resumeControlPlane();
    expect(fed.controlPlaneProcess.isRunning()).toBe(true);
    const resumedAtMs = Date.now();
    // The restarted agent found the control plane again: it renews its Lease.
    await eventually('member1 Lease renewed after the outage', async () => {
      return (leaseRenewedAtMs(await fed.leases.get('karmada-cluster/member1')) ?? 0) > resumedAtMs;
    });
    await fed.waitForHealthyClusters();
    expect(fed.agent('member1').isRunning()).toBe(true);
  });
});
