import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The repository root (lib/testing/src → ../../..). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export interface KubeBinaries {
  readonly dir: string;
  readonly etcd: string;
  readonly kubeApiserver: string;
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  readonly kubectl: string;
  readonly kwok: string;
}

let cached: Promise<KubeBinaries> | undefined;

/**
 * Locates the Kubernetes binaries, building them first when this machine has none yet
 * (scripts/build-kube.sh is idempotent and prints the folder on its last line).
 * KF_KUBE_BIN_DIR points at a ready folder instead.
 */
export function kubeBinaries(): Promise<KubeBinaries> {
  cached ??= locate();
  return cached;
}

/**
 * Runs one of the project's idempotent set-up scripts (scripts/<name>: builds or fetches into the
 * cache, progress on stderr) and returns the last line it prints: the folder it made ready.
 */
export async function scriptOutputFolder(name: string): Promise<string> {
  const { stdout } = await execFileAsync('bash', [join(REPO_ROOT, 'scripts', name)], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout.trim().split('\n').at(-1) ?? '';
}

async function locate(): Promise<KubeBinaries> {
  const fromEnv = process.env.KF_KUBE_BIN_DIR;
  const dir = fromEnv === undefined || fromEnv === '' ? await scriptOutputFolder('build-kube.sh') : fromEnv;
  return {
    dir,
    etcd: join(dir, 'etcd'),
    kubeApiserver: join(dir, 'kube-apiserver'),
    kubeControllerManager: join(dir, 'kube-controller-manager'),
    kubeScheduler: join(dir, 'kube-scheduler'),
    kubectl: join(dir, 'kubectl'),
    kwok: join(dir, 'kwok'),
  };
}
