/**
 * `join` and `unjoin` as the CLI runs them: load both kubeconfigs (a problem with either is one
 * line and exit 2), do the work, print the outcome on stdout. Logs stay silent: what the operator
 * needs is printed, and nothing secret is ever logged anyway.
 */
import { loadKubeConfigs } from '@kf/kube';
import { createLogger } from '@kf/runtime';
import { kubeconfigPath } from '../app.ts';
import type { JoinConfig, UnjoinConfig } from './join-command.ts';
import { readRulesFile } from './join-command.ts';
import { joinCluster } from './join.ts';
import { unjoinCluster } from './unjoin.ts';

const quiet = () => createLogger({ component: 'controlplane', level: 'silent' });

export async function runJoin(config: JoinConfig): Promise<void> {
  const kcs = loadKubeConfigs({
    controlPlane: { label: 'control plane', options: () => ({ path: kubeconfigPath(config.kubeconfig) }) },
    member: { label: 'member', options: { path: config.clusterKubeconfig, context: config.clusterContext } },
  });
  const extraRules = await readRulesFile(config.rulesFile);
  const outcome = await joinCluster(
    { name: config.name, extraRules, tokenWaitMs: config.tokenWaitMs },
    { ...kcs, log: quiet(), signal: AbortSignal.timeout(config.tokenWaitMs + 60_000) },
  );
  process.stdout.write(`cluster ${config.name} joined in Push mode (${outcome.kind})\n`);
}

export async function runUnjoin(config: UnjoinConfig): Promise<void> {
  const { controlPlane } = loadKubeConfigs({
    controlPlane: { label: 'control plane', options: () => ({ path: kubeconfigPath(config.kubeconfig) }) },
  });
  const member =
    config.clusterKubeconfig === ''
      ? undefined
      : loadKubeConfigs({
          member: {
            label: 'member',
            options: { path: config.clusterKubeconfig, context: config.clusterContext },
          },
        }).member;
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
