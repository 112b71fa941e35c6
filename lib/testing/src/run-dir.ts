import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './binaries.ts';

/** A fresh run folder under .run/ in the repository (git-ignored). */
export async function newRunDir(prefix = 'federation'): Promise<string> {
  const root = join(REPO_ROOT, '.run');
  await mkdir(root, { recursive: true });
  return mkdtemp(join(root, `${prefix}-`));
}

/** Deletes a run folder (etcd data, logs, certificates) unless KF_KEEP_RUNS=1 asks to keep them. */
export async function removeRunDir(dir: string): Promise<void> {
  if (process.env.KF_KEEP_RUNS === '1') return;
  await rm(dir, { recursive: true, force: true });
}
