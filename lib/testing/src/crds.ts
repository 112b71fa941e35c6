import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './binaries.ts';
import type { LocalCluster } from './cluster.ts';

const execFileAsync = promisify(execFile);

export const CRD_DIR = join(REPO_ROOT, 'deploy', 'crds');

/** Applies every CRD in deploy/crds with kubectl (server-side) and waits until all are Established. */
export async function installCrds(cluster: LocalCluster, dir = CRD_DIR): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml') || f.endsWith('.yml')).sort();
  if (files.length === 0) return [];
  const kubectl = (...args: string[]): Promise<{ stdout: string }> =>
    execFileAsync(cluster.kubectlPath, cluster.kubectlArgs(...args), { maxBuffer: 16 * 1024 * 1024 });
  await kubectl('apply', '--server-side', '--force-conflicts', ...files.flatMap((f) => ['-f', join(dir, f)]));
  const { stdout } = await kubectl(
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    ...files.flatMap((f) => ['-f', join(dir, f)]),
  );
  return stdout.split('\n').filter((l) => l.trim() !== '');
}
