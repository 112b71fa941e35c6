/**
 * `join` and `unjoin` as the CLI runs them: load the kubeconfigs (a problem with either is one
 * line and exit 2), do the work, print the outcome on stdout. Logs stay silent: what the operator
 * needs is printed, and nothing secret is ever logged anyway.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfigs } from '@kf/kube';
import { ConfigError, createLogger } from '@kf/runtime';
import { kubeconfigPath } from '../app.ts';
import { readRulesFile, type JoinConfig, type UnjoinConfig } from './join-command.ts';
import { joinCluster } from './join.ts';
import { unjoinCluster } from './unjoin.ts';

const quiet = () => createLogger({ component: 'controlplane', level: 'silent' });

/**
 * The control plane's kubeconfig and, when one is given, the member's: loaded together, so that a
 * problem with either is told in the same breath.
 */
function loadBoth(config: {
  readonly kubeconfig: string;
  readonly clusterKubeconfig: string;
  readonly clusterContext: string;
}): { readonly controlPlane: KubeConfig; readonly member?: KubeConfig } {
  const controlPlane = {
    label: 'control plane',
    options: () => ({ path: kubeconfigPath(config.kubeconfig) }),
  };
  if (config.clusterKubeconfig === '') return loadKubeConfigs({ controlPlane });
  const member = {
    label: 'member',
    options: { path: config.clusterKubeconfig, context: config.clusterContext },
  };
  return loadKubeConfigs({ controlPlane, member });
}

export async function runJoin(config: JoinConfig): Promise<void> {
  const { controlPlane, member } = loadBoth(config);
  // The command's checks made the member kubeconfig a requirement.
  if (member === undefined) throw new ConfigError(['--cluster-kubeconfig is required']);
  const extraRules = await readRulesFile(config.rulesFile);
  const outcome = await joinCluster(
    { name: config.name, extraRules, tokenWaitMs: config.tokenWaitMs },
    { controlPlane, member, log: quiet(), signal: AbortSignal.timeout(config.tokenWaitMs + 60_000) },
  );
  process.stdout.write(`cluster ${config.name} joined in Push mode (${outcome.kind})\n`);
}

export async function runUnjoin(config: UnjoinConfig): Promise<void> {
  const { controlPlane, member } = loadBoth(config);
  const removed = await unjoinCluster(
    { name: config.name, waitMs: config.waitMs },
    {
      controlPlane,
      ...(member === undefined ? {} : { member }),
      log: quiet(),
      signal: AbortSignal.timeout(config.waitMs + 60_000),
    },
  );
  process.stdout.write(removed.map((line) => `${line}\n`).join(''));
}
