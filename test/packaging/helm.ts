/**
 * Helm and command running shared by the chart tests: the project's own helm build, `helm
 * template` of a chart as an operator would run it, and commands whose failure shows their output.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { scriptOutputFolder } from '@kf/testing';

const exec = promisify(execFile);

export const ROOT = join(import.meta.dirname, '../..');
export const MEMBER_CHART = join(ROOT, 'charts/karmada-failover-member');
export const CONTROLPLANE_CHART = join(ROOT, 'charts/karmada-failover-controlplane');
/** The Kubernetes version the charts are rendered for: the one the tests run. */
export const KUBE_VERSION = '1.36.3';

/** Runs a command; a failure rejects with its output so that the assertion shows why. */
export async function run(cmd: string, args: readonly string[], input?: string): Promise<string> {
  const child = exec(cmd, [...args], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  if (input !== undefined) child.child.stdin?.end(input);
  try {
    const { stdout, stderr } = await child;
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`${cmd} ${args.join(' ')}:\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: error });
  }
}

/** The helm binary scripts/build-helm.sh builds (once; cached like the Kubernetes binaries). */
export async function helmBinary(): Promise<string> {
  const out = await run('bash', [join(ROOT, 'scripts/build-helm.sh')]);
  return join(out.trim().split('\n').at(-1) ?? '', 'helm');
}

/**
 * The folder of the Prometheus Operator's monitoring.coreos.com/v1 CRDs, which
 * scripts/fetch-prometheus-operator-crds.sh generates from the operator's API module (once; cached
 * by version).
 */
export function prometheusOperatorCrdDir(): Promise<string> {
  return scriptOutputFolder('fetch-prometheus-operator-crds.sh');
}

/** `helm template` in karmada-system; a value `@key=path` is set from a file (--set-file), others with --set. */
export function renderChart(helm: string, chart: string, ...values: string[]): Promise<string> {
  return run(helm, [
    'template',
    'kf',
    chart,
    '--namespace',
    'karmada-system',
    '--kube-version',
    KUBE_VERSION,
    ...values.flatMap((v) => (v.startsWith('@') ? ['--set-file', v.slice(1)] : ['--set', v])),
  ]);
}
