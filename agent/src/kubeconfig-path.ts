/** Which kubeconfig the agent loads for each cluster, with karmada-agent's resolution order. */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfigError, kubeconfigEnvPaths, type NeededKubeConfig } from '@kf/kube';

export interface PathEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  readonly exists: (path: string) => boolean;
}

/**
 * A kubeconfig file (a flag, `~/.kube/config`), every file of a `$KUBECONFIG` list (merged when
 * loaded, as client-go does), or undefined for the pod's service account.
 */
export type KubeconfigSource = string | readonly string[] | undefined;

const processEnvironment = (): PathEnvironment => ({ env: process.env, home: homedir(), exists: existsSync });

function inCluster(env: PathEnvironment['env']): boolean {
  return (env.KUBERNETES_SERVICE_HOST ?? '') !== '' && (env.KUBERNETES_SERVICE_PORT ?? '') !== '';
}

/**
 * Control plane: the flag, else `$KUBECONFIG` when one of its files exists, else `~/.kube/config`
 * if it exists, else the pod's service account (undefined). Throws a KubeConfigError when none
 * applies.
 */
export function karmadaKubeconfigPath(
  flag: string,
  e: PathEnvironment = processEnvironment(),
): KubeconfigSource {
  if (flag !== '') return flag;
  const fromEnv = kubeconfigEnvPaths(e.env.KUBECONFIG);
  if (fromEnv.some((p) => e.exists(p))) return fromEnv;
  const home = join(e.home, '.kube', 'config');
  if (fromEnv.length === 0 && e.exists(home)) return home;
  if (inCluster(e.env)) return undefined;
  const tried = fromEnv.length === 0 ? home : `none of $KUBECONFIG ${fromEnv.join(':')}`;
  throw new KubeConfigError(`no control-plane kubeconfig: ${tried} exists and not running in a cluster`);
}

/**
 * Member: the flag, else `$KUBECONFIG`, else the pod's service account (undefined), else
 * `~/.kube/config` (controller-runtime's order). Throws a KubeConfigError when none applies.
 */
export function memberKubeconfigPath(
  flag: string,
  e: PathEnvironment = processEnvironment(),
): KubeconfigSource {
  if (flag !== '') return flag;
  const fromEnv = kubeconfigEnvPaths(e.env.KUBECONFIG);
  if (fromEnv.length > 0) return fromEnv;
  if (inCluster(e.env)) return undefined;
  const home = join(e.home, '.kube', 'config');
  if (e.exists(home)) return home;
  throw new KubeConfigError('no member kubeconfig: pass --kubeconfig, set $KUBECONFIG or run in a cluster');
}

/** The control-plane kubeconfig the agent's commands need: `--karmada-kubeconfig` and `--karmada-context`. */
export function karmadaKubeConfigNeeded(flag: string, context: string | undefined): NeededKubeConfig {
  return { label: 'control plane', options: () => ({ path: karmadaKubeconfigPath(flag), context }) };
}
