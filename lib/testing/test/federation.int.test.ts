import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ApiextensionsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFederation, type LocalCluster } from '../src/index.ts';
import { demoDeployment, rollOut } from '../src/rollout.ts';

const execFileAsync = promisify(execFile);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function pidsOf(runDir: string): Promise<number[]> {
  const text = await readFile(join(runDir, 'pids'), 'utf8');
  return text
    .split('\n')
    .map((l) => Number(l.split(' ')[0]))
    .filter((n) => Number.isInteger(n) && n > 0);
}

describe('local federation', () => {
  let fed: Awaited<ReturnType<typeof startFederation>>;

  beforeAll(async () => {
    fed = await startFederation({ members: 2, member: { nodes: 2 } });
  });

  afterAll(async () => {
    await fed.destroy();
  });

  it('lists Ready KWOK nodes on a member through kubectl', async () => {
    const member = fed.member('member1');
    const { stdout } = await execFileAsync(
      member.kubectlPath,
      member.kubectlArgs(
        'get',
        'nodes',
        '--no-headers',
        '-o',
        'custom-columns=NAME:.metadata.name,READY:.status.conditions[?(@.type=="Ready")].status',
      ),
    );
    const rows = stdout
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/));
    expect(rows).toEqual([
      ['member1-node-0', 'True'],
      ['member1-node-1', 'True'],
    ]);
  });

  it('rolls a Deployment out on a member until readyReplicas equals replicas', async () => {
    const d = await rollOut(fed.member('member2').kubeConfig(), demoDeployment('web', 3));
    expect(d.status?.readyReplicas).toBe(3);
    expect(d.status?.availableReplicas).toBe(3);
  });

  it('has every CRD of deploy/crds Established on the control plane', async () => {
    const api = fed.controlPlane.kubeConfig().makeApiClient(ApiextensionsV1Api);
    const crds = (await api.listCustomResourceDefinition()).items.filter((c) =>
      c.spec.group.endsWith('karmada.io'),
    );
    expect(crds.length).toBeGreaterThanOrEqual(9);
    for (const crd of crds) {
      const established = crd.status?.conditions?.find((c) => c.type === 'Established');
      expect(established?.status, crd.metadata?.name).toBe('True');
    }
  });

  it('stops a member and starts it again with its data kept', async () => {
    const member: LocalCluster = fed.member('member2');
    const core = (): CoreV1Api => member.kubeConfig().makeApiClient(CoreV1Api);
    await core().createNamespace({ body: { metadata: { name: 'survives-restart' } } });
    await member.stop();
    expect(member.isRunning()).toBe(false);
    await expect(core().listNamespace()).rejects.toThrow();
    await member.start();
    const ns = await core().readNamespace({ name: 'survives-restart' });
    expect(ns.metadata?.name).toBe('survives-restart');
  });

  it('leaves no process running after stop', async () => {
    const pids = await pidsOf(fed.runDir);
    expect(pids.length).toBeGreaterThanOrEqual(1 + 2 + 2 * 5);
    await fed.stop();
    expect(pids.filter(isAlive)).toEqual([]);
  });
});
