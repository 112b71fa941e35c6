import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalCluster } from './cluster.ts';
import { installCrds } from './crds.ts';
import { createKwokNodes } from './kwok-nodes.ts';
import { newRunDir, removeRunDir } from './run-dir.ts';
import type { Federation, FederationOptions, MemberOptions } from './types.ts';

export const CONTROL_PLANE_NAME = 'karmada';
export const PID_FILE = 'pids';

/** Starts the control plane only: etcd, kube-apiserver and kube-controller-manager, CRDs installed. */
export async function startControlPlane(
  opts: { runDir?: string; installCrds?: boolean } = {},
): Promise<LocalCluster> {
  const runDir = opts.runDir ?? (await newRunDir('controlplane'));
  const cluster = await LocalCluster.create({
    name: CONTROL_PLANE_NAME,
    role: 'control-plane',
    dir: join(runDir, CONTROL_PLANE_NAME),
    pidFile: join(runDir, PID_FILE),
    // A control plane started on its own owns its run folder.
    ...(opts.runDir === undefined ? { ownedDir: runDir } : {}),
  });
  try {
    if (opts.installCrds !== false) await installCrds(cluster);
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** Starts one member cluster with KWOK nodes that are Ready. */
export async function startMember(
  name: string,
  runDir: string,
  opts: MemberOptions = {},
): Promise<LocalCluster> {
  const cluster = await LocalCluster.create({
    name,
    role: 'member',
    dir: join(runDir, name),
    pidFile: join(runDir, PID_FILE),
  });
  try {
    await createKwokNodes(cluster.kubeConfig(), {
      prefix: `${name}-node`,
      count: opts.nodes ?? 2,
      abortIf: () => cluster.exitedProcess(),
      ...(opts.nodeCapacity ? { capacity: opts.nodeCapacity } : {}),
    });
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

export class LocalFederation implements Federation {
  readonly runDir: string;
  readonly controlPlane: LocalCluster;
  readonly members: readonly LocalCluster[];

  private readonly ownsRunDir: boolean;

  constructor(
    runDir: string,
    controlPlane: LocalCluster,
    members: readonly LocalCluster[],
    ownsRunDir: boolean,
  ) {
    this.runDir = runDir;
    this.ownsRunDir = ownsRunDir;
    this.controlPlane = controlPlane;
    this.members = members;
  }

  member(name: string): LocalCluster {
    const found = this.members.find((m) => m.name === name);
    if (found === undefined) throw new Error(`no member named ${name}`);
    return found;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.members, this.controlPlane].map((c) => c.stop()));
  }

  async destroy(): Promise<void> {
    await this.stop();
    if (this.ownsRunDir) await removeRunDir(this.runDir);
  }
}

/**
 * Starts a control plane and N members (member1..memberN). Clusters start one after another:
 * on a 2-core machine parallel API server start-ups only slow each other down.
 */
export async function startFederation(opts: FederationOptions = {}): Promise<LocalFederation> {
  const runDir = opts.runDir ?? (await newRunDir());
  await mkdir(runDir, { recursive: true });
  const started: LocalCluster[] = [];
  try {
    const controlPlane = await startControlPlane({ runDir, installCrds: opts.installCrds !== false });
    started.push(controlPlane);
    const members: LocalCluster[] = [];
    for (let i = 1; i <= (opts.members ?? 2); i++) {
      const member = await startMember(`member${i}`, runDir, opts.member);
      started.push(member);
      members.push(member);
    }
    await writeFile(
      join(runDir, 'federation.json'),
      JSON.stringify(
        {
          controlPlane: {
            name: controlPlane.name,
            server: controlPlane.server,
            kubeconfig: controlPlane.kubeconfigPath,
          },
          members: members.map((m) => ({ name: m.name, server: m.server, kubeconfig: m.kubeconfigPath })),
        },
        null,
        2,
      ),
    );
    return new LocalFederation(runDir, controlPlane, members, opts.runDir === undefined);
  } catch (err) {
    await Promise.all(started.map((c) => c.stop()));
    throw err;
  }
}

/** Kills every process listed in a run folder's pid file (for a tear-down from another process). */
export async function killRun(runDir: string): Promise<number> {
  const text = await readFile(join(runDir, PID_FILE), 'utf8').catch(() => '');
  let killed = 0;
  for (const line of text.split('\n')) {
    const pid = Number(line.split(' ')[0]);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    // A pid may have been reused since: only signal processes that belong to this run.
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.includes(runDir)) continue;
    try {
      process.kill(pid, 'SIGTERM');
      killed++;
    } catch {
      // already gone
    }
  }
  return killed;
}
