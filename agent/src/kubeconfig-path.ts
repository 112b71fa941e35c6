/** Which kubeconfig the agent loads for each cluster, with karmada-agent's resolution order. */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface PathEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  readonly exists: (path: string) => boolean;
}

const processEnvironment = (): PathEnvironment => ({ env: process.env, home: homedir(), exists: existsSync });

/** First path of a `$KUBECONFIG` list. */
function fromEnv(env: PathEnvironment['env']): string | undefined {
  const first = env.KUBECONFIG?.split(':').find((p) => p !== '');
  return first === undefined || first === '' ? undefined : first;
}

function inCluster(env: PathEnvironment['env']): boolean {
  return (env.KUBERNETES_SERVICE_HOST ?? '') !== '' && (env.KUBERNETES_SERVICE_PORT ?? '') !== '';
}

/**
 * Control plane: the flag, else `$KUBECONFIG`, else `~/.kube/config` if it exists, else the pod's
 * service account (undefined). Throws when none applies.
 */
export function karmadaKubeconfigPath(
  flag: string,
  e: PathEnvironment = processEnvironment(),
): string | undefined {
  if (flag !== '') return flag;
  const candidate = fromEnv(e.env) ?? join(e.home, '.kube', 'config');
  if (e.exists(candidate)) return candidate;
  if (inCluster(e.env)) return undefined;
  throw new Error(`no control-plane kubeconfig: ${candidate} does not exist and not running in a cluster`);
}

/**
 * Member: the flag, else `$KUBECONFIG`, else the pod's service account (undefined), else
 * `~/.kube/config` (controller-runtime's order). Throws when none applies.
 */
export function memberKubeconfigPath(
  flag: string,
  e: PathEnvironment = processEnvironment(),
): string | undefined {
  if (flag !== '') return flag;
  const env = fromEnv(e.env);
  if (env !== undefined) return env;
  if (inCluster(e.env)) return undefined;
  const home = join(e.home, '.kube', 'config');
  if (e.exists(home)) return home;
  throw new Error('no member kubeconfig: pass --kubeconfig, set $KUBECONFIG or run in a cluster');
}
