/**
 * `rbac --cluster-name <cluster>`: prints the control-plane RBAC of one member's agent, by name, for
 * an operator to apply with deploy/agent before the agent registers (as `karmadactl register`
 * sets up the RBAC of the agent it registers).
 */
import { Command } from 'commander';
import { ConfigError, flag } from '@kf/runtime';
import { clusterNameProblem } from '@kf/api';

export interface RbacConfig {
  readonly clusterName: string;
  /** The member runs Karmada's karmada-agent rather than this agent. */
  readonly karmadaAgent: boolean;
}

export function buildRbacCommand(rbac: (config: RbacConfig) => void): Command {
  return new Command('rbac')
    .description(
      "Prints the control-plane RBAC of one member's agent, granted by name (YAML for " +
        'kubectl apply -f -); apply it with deploy/agent before the agent registers.',
    )
    .addOption(flag('--cluster-name <name>', 'the member cluster').makeOptionMandatory())
    .addOption(
      flag(
        '--karmada-agent',
        "the member runs Karmada's karmada-agent, which also reads its credential Secrets " +
          '(apply deploy/agent/karmada-agent.yaml too)',
      ).default(false),
    )
    .action((o: { clusterName: string; karmadaAgent: boolean }) => {
      const problem = clusterNameProblem(o.clusterName);
      if (problem !== undefined) throw new ConfigError([`--cluster-name ${problem}`]);
      rbac({ clusterName: o.clusterName, karmadaAgent: o.karmadaAgent });
    });
}
