/**
 * The `join` and `unjoin` commands of the control plane's CLI: flags to a checked configuration
 * (every problem at once, exit 2), then the work of join.ts / unjoin.ts. Every flag also reads its
 * environment variable (`--cluster-kubeconfig` → `KF_CLUSTER_KUBECONFIG`).
 */
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { loadYaml } from '@kubernetes/client-node';
import { clusterNameProblem, type PolicyRule } from '@kf/api';
import { collectProblems, ConfigError, durationFlag, flag } from '@kf/runtime';

export interface JoinConfig {
  readonly name: string;
  /** The control plane's kubeconfig flag ('' = $KUBECONFIG, ~/.kube/config or in-cluster). */
  readonly kubeconfig: string;
  readonly clusterKubeconfig: string;
  readonly clusterContext: string;
  /** A YAML file of extra rules ('' = none). */
  readonly rulesFile: string;
  readonly tokenWaitMs: number;
}

export interface UnjoinConfig {
  readonly name: string;
  readonly kubeconfig: string;
  /** '' leaves the member as it is. */
  readonly clusterKubeconfig: string;
  readonly clusterContext: string;
  readonly waitMs: number;
}

interface CommonOptions {
  kubeconfig: string;
  clusterKubeconfig: string;
  clusterContext: string;
}

const controlPlaneKubeconfig = () =>
  flag('--kubeconfig <path>', 'kubeconfig of the Karmada control plane').default(
    '',
    '$KUBECONFIG, ~/.kube/config or in-cluster',
  );

/** `join <name>`: registers a member in Push mode (see join.ts). */
export function buildJoinCommand(join: (config: JoinConfig) => Promise<void>): Command {
  const cmd = new Command('join')
    .description(
      'Joins a member cluster in Push mode, as karmadactl join does: a ServiceAccount with the ' +
        'member-access rules and its token in the member, the credential Secret and a Cluster with ' +
        'syncMode Push in the control plane. Joining again refreshes the endpoint and the token.',
    )
    .argument('<name>', 'the Cluster name (a DNS label of at most 48 characters)')
    .addOption(controlPlaneKubeconfig())
    .addOption(flag('--cluster-kubeconfig <path>', 'kubeconfig of the member cluster (required)').default(''))
    .addOption(
      flag('--cluster-context <name>', 'context of --cluster-kubeconfig (default: its current one)').default(
        '',
      ),
    )
    .addOption(
      flag(
        '--rules <file>',
        'YAML list of RBAC rules for kinds the Works may carry beyond the defaults (no wildcard, bind, escalate or impersonate)',
      ).default(''),
    )
    .addOption(
      durationFlag('--token-wait <duration>', "how long to wait for the member's token controller", 30_000),
    );
  cmd.action(async (name: string, o: CommonOptions & { rules: string; tokenWait: number }) => {
    await join(
      collectProblems((p) => {
        const problem = clusterNameProblem(name);
        if (problem !== undefined) p.add(`cluster name ${problem}`);
        p.check(o.clusterKubeconfig !== '', '--cluster-kubeconfig is required');
        return {
          name,
          kubeconfig: o.kubeconfig,
          clusterKubeconfig: o.clusterKubeconfig,
          clusterContext: o.clusterContext,
          rulesFile: o.rules,
          tokenWaitMs: o.tokenWait,
        };
      }),
    );
  });
  cmd.exitOverride();
  return cmd;
}

/** `unjoin <name>`: removes a Push cluster (see unjoin.ts). */
export function buildUnjoinCommand(unjoin: (config: UnjoinConfig) => Promise<void>): Command {
  const cmd = new Command('unjoin')
    .description(
      'Removes a Push cluster: deletes the Cluster and waits until the control plane has removed its ' +
        'execution namespace, then its credential Secret, then (given --cluster-kubeconfig) what join ' +
        'made in the member.',
    )
    .argument('<name>', 'the Cluster name')
    .addOption(controlPlaneKubeconfig())
    .addOption(
      flag('--cluster-kubeconfig <path>', 'kubeconfig of the member cluster, to clean it too').default(''),
    )
    .addOption(flag('--cluster-context <name>', 'context of --cluster-kubeconfig').default(''))
    .addOption(durationFlag('--wait <duration>', 'how long to wait for the Cluster to go', 120_000));
  cmd.action(async (name: string, o: CommonOptions & { wait: number }) => {
    await unjoin(
      collectProblems((p) => {
        const problem = clusterNameProblem(name);
        if (problem !== undefined) p.add(`cluster name ${problem}`);
        p.check(
          o.clusterContext === '' || o.clusterKubeconfig !== '',
          '--cluster-context needs --cluster-kubeconfig',
        );
        return {
          name,
          kubeconfig: o.kubeconfig,
          clusterKubeconfig: o.clusterKubeconfig,
          clusterContext: o.clusterContext,
          waitMs: o.wait,
        };
      }),
    );
  });
  cmd.exitOverride();
  return cmd;
}

/** The extra rules of `--rules`: a YAML (or JSON) list of RBAC rules; '' is none. */
export async function readRulesFile(path: string): Promise<PolicyRule[]> {
  if (path === '') return [];
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err: unknown) {
    throw new ConfigError([`--rules ${path}: ${err instanceof Error ? err.message : String(err)}`]);
  }
  let parsed: unknown;
  try {
    parsed = loadYaml(text);
  } catch (err: unknown) {
    const first = (err instanceof Error ? err.message : String(err)).split('\n', 1)[0] ?? '';
    throw new ConfigError([`--rules ${path}: not YAML: ${first}`]);
  }
  if (!Array.isArray(parsed) || !parsed.every(isRuleShape)) {
    throw new ConfigError([
      `--rules ${path}: must be a list of rules, each with apiGroups, resources and verbs (lists of strings)`,
    ]);
  }
  return parsed;
}

function isRuleShape(value: unknown): value is PolicyRule {
  if (typeof value !== 'object' || value === null) return false;
  const rule = value as Record<string, unknown>;
  const strings = (v: unknown): boolean => Array.isArray(v) && v.every((s) => typeof s === 'string');
  return strings(rule.apiGroups) && strings(rule.resources) && strings(rule.verbs);
}
