/**
 * The agent's command line: `run` (the member agent, karmada-agent's flags and defaults) and the
 * operator commands `condition set`, `condition clear` and `status` against the control plane.
 * Every flag also reads an environment variable named after it (`--cluster-name` →
 * `KF_CLUSTER_NAME`); a flag beats the environment, which beats the default.
 */
import { Command, InvalidArgumentError, type Option } from 'commander';
import { clusterNameProblem, type ConditionStatus } from '@kf/api';
import {
  addLeaderElectionTimingFlags,
  addServingFlags,
  boolFlag,
  checkLeaderElectionTimings,
  ConfigError,
  collectProblems,
  flag,
  leaderElectionTimingsOf,
  servingConfigOf,
  type LeaderElectionTimingOptions,
  type LeaderElectionTimings,
  type ServingConfig,
  type ServingOptions,
} from '@kf/runtime';
import { AGENT_CONTROLLERS, enabledControllers, type AgentControllerName } from './controllers/enabled.ts';
import {
  addMemberHostFlags,
  memberHostConfigOf,
  type MemberHostConfig,
  type MemberHostOptions,
  type ReportedSecrets,
} from '@kf/member';
import {
  DEFAULT_REPORT_SECRETS,
  REPORT_SECRETS_VALUES,
  parseReportSecrets,
} from './registration/report-secrets.ts';

export const AGENT_VERSION = '0.1.0';

export interface LeaderElectionConfig extends LeaderElectionTimings {
  readonly enabled: boolean;
  /** Namespace of the election Lease in the control plane; its name is `karmada-agent-<cluster>`. */
  readonly namespace: string;
}

/** Control-plane connection shared by every command. */
export interface KarmadaConnection {
  /** Empty: `$KUBECONFIG`, else `~/.kube/config`, else the pod's service account. */
  readonly karmadaKubeconfig: string;
  readonly karmadaContext: string;
}

export interface RunConfig extends KarmadaConnection, ServingConfig, MemberHostConfig {
  readonly clusterName: string;
  /** Member kubeconfig; empty: `$KUBECONFIG`, else the pod's service account, else `~/.kube/config`. */
  readonly kubeconfig: string;
  readonly clusterNamespace: string;
  /** Member namespace of the self-fence record (ConfigMap karmada-agent-fence). */
  readonly fenceRecordNamespace: string;
  readonly clusterApiEndpoint: string;
  readonly proxyServerAddress: string;
  readonly clusterProvider: string;
  readonly clusterRegion: string;
  readonly clusterZones: readonly string[];
  /** `--report-secrets`: the credential secrets created at registration. */
  readonly reportSecrets: ReportedSecrets;
  readonly controllers: readonly AgentControllerName[];
  readonly leaderElection: LeaderElectionConfig;
}

export interface ConditionSetConfig extends KarmadaConnection {
  readonly cluster: string;
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
}

export interface ConditionClearConfig extends KarmadaConnection {
  readonly cluster: string;
  readonly type: string;
}

export interface StatusConfig extends KarmadaConnection {
  readonly cluster: string;
}

/** What each command does once its flags are valid. */
export interface AgentCommands {
  run(config: RunConfig): Promise<void>;
  conditionSet(config: ConditionSetConfig): Promise<void>;
  conditionClear(config: ConditionClearConfig): Promise<void>;
  status(config: StatusConfig): Promise<void>;
}

/** Defaults: karmada-agent's, for every flag the two share. */
export const DEFAULTS = {
  clusterNamespace: 'karmada-cluster',
  fenceRecordNamespace: 'karmada-system',
  leaderElectNamespace: 'karmada-system',
  metricsBindAddress: ':8080',
  healthProbeBindAddress: ':10357',
} as const;

function list(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function karmadaFlags(cmd: Command): Command {
  return cmd
    .addOption(
      flag('--karmada-kubeconfig <path>', 'kubeconfig of the Karmada control plane').default(
        '',
        '$KUBECONFIG, ~/.kube/config or in-cluster',
      ),
    )
    .addOption(
      flag('--karmada-context <name>', 'context in --karmada-kubeconfig (default: current)').default(''),
    );
}

/** Raw commander values of `run`, before validation. */
interface RunOptions extends LeaderElectionTimingOptions, ServingOptions, MemberHostOptions {
  clusterName: string;
  karmadaKubeconfig: string;
  karmadaContext: string;
  kubeconfig: string;
  clusterNamespace: string;
  fenceRecordNamespace: string;
  clusterApiEndpoint: string;
  proxyServerAddress: string;
  clusterProvider: string;
  clusterRegion: string;
  clusterZones: string[];
  reportSecrets: string[];
  controllers: string[];
  leaderElect: boolean;
  leaderElectResourceNamespace: string;
}

/** Validates `run`'s flags, reporting every problem at once (ConfigError). */
export function toRunConfig(o: RunOptions): RunConfig {
  return collectProblems<RunConfig>((p) => {
    const nameProblem = clusterNameProblem(o.clusterName);
    if (nameProblem !== undefined) p.add(`--cluster-name ${nameProblem}`);
    const host = memberHostConfigOf(p, o);
    const timings = leaderElectionTimingsOf(o);
    if (o.leaderElect) checkLeaderElectionTimings(p, timings);
    const reportSecrets = p.parse(
      '--report-secrets',
      o.reportSecrets.join(','),
      (t) => parseReportSecrets(list(t)),
      { credentials: false, impersonator: false },
    );
    const controllers = p.parse(
      '--controllers',
      o.controllers.join(','),
      (t) => enabledControllers(list(t)),
      [],
    );
    return {
      clusterName: o.clusterName,
      karmadaKubeconfig: o.karmadaKubeconfig,
      karmadaContext: o.karmadaContext,
      kubeconfig: o.kubeconfig,
      clusterNamespace: o.clusterNamespace,
      fenceRecordNamespace: o.fenceRecordNamespace,
      clusterApiEndpoint: o.clusterApiEndpoint,
      proxyServerAddress: o.proxyServerAddress,
      clusterProvider: o.clusterProvider,
      clusterRegion: o.clusterRegion,
      clusterZones: o.clusterZones,
      reportSecrets,
      ...host,
      controllers,
      leaderElection: { enabled: o.leaderElect, namespace: o.leaderElectResourceNamespace, ...timings },
      ...servingConfigOf(p, o),
    };
  });
}

function buildRunCommand(run: (config: RunConfig) => Promise<void>): Command {
  const cmd = new Command('run').description(
    'Runs the agent in a member cluster: registers it, reports its health and status, renews its ' +
      'heartbeat Lease and applies its Works.',
  );
  karmadaFlags(cmd)
    .addOption(flag('--cluster-name <name>', 'name of the member cluster this agent serves').default(''))
    .addOption(
      flag('--kubeconfig <path>', 'kubeconfig of the member cluster').default(
        '',
        '$KUBECONFIG or in-cluster',
      ),
    )
    .addOption(
      flag(
        '--cluster-namespace <ns>',
        'namespace of the credential secrets, in the member and in the control plane',
      ).default(DEFAULTS.clusterNamespace),
    )
    .addOption(
      flag(
        '--fence-record-namespace <ns>',
        "member namespace of the self-fence record (ConfigMap karmada-agent-fence): the copies of Works with a fence timeout, and the agent's last Lease renewal",
      ).default(DEFAULTS.fenceRecordNamespace),
    )
    .addOption(
      flag('--cluster-api-endpoint <url>', 'API endpoint of the member, written to spec.apiEndpoint').default(
        '',
      ),
    )
    .addOption(
      flag('--proxy-server-address <url>', 'proxy to reach the member, written to spec.proxyURL').default(''),
    )
    .addOption(flag('--cluster-provider <name>', 'written to spec.provider when set').default(''))
    .addOption(flag('--cluster-region <name>', 'written to spec.region when set').default(''))
    .addOption(
      flag('--cluster-zones <zones>', 'comma-separated, written to spec.zones when set')
        .argParser(list)
        .default([], ''),
    )
    .addOption(
      flag(
        '--report-secrets <list>',
        `comma-separated secrets to create at registration: ${REPORT_SECRETS_VALUES.join(', ')} ` +
          '(KubeCredentials: a member token with every permission and the member CA in Secret <cluster>; ' +
          'KubeImpersonator: the impersonator token in Secret <cluster>-impersonator; both in --cluster-namespace). ' +
          'A pull-mode control plane uses neither; KubeCredentials leaves a token of every permission in a ' +
          'member Secret that the agent itself can read',
      )
        .argParser(list)
        .default([...DEFAULT_REPORT_SECRETS], DEFAULT_REPORT_SECRETS.join(',')),
    )
    .addOption(
      flag(
        '--controllers <list>',
        `controllers to run: * for all, name to enable, -name to disable (${AGENT_CONTROLLERS.join(', ')})`,
      )
        .argParser(list)
        .default(['*'], '*'),
    )
    .addOption(boolFlag('--leader-elect', 'elect a leader among agent replicas with a Lease', true))
    .addOption(
      flag('--leader-elect-resource-namespace <ns>', 'control-plane namespace of the election Lease').default(
        DEFAULTS.leaderElectNamespace,
      ),
    );
  addServingFlags(addLeaderElectionTimingFlags(addMemberHostFlags(cmd, 'the member')), {
    metricsBindAddress: DEFAULTS.metricsBindAddress,
    healthProbeBindAddress: DEFAULTS.healthProbeBindAddress,
  }).action(async (opts: RunOptions) => {
    await run(toRunConfig(opts));
  });
  return cmd;
}

const CONDITION_STATUSES: readonly ConditionStatus[] = ['True', 'False', 'Unknown'];

function parseConditionStatus(text: string): ConditionStatus {
  const s = CONDITION_STATUSES.find((c) => c === text);
  if (s === undefined) throw new InvalidArgumentError(`"${text}" is not one of True, False, Unknown`);
  return s;
}

/**
 * Throws a ConfigError (printed as one line, exit 2) when `--cluster` cannot name a Cluster, before
 * the control plane is contacted.
 */
function checkClusterFlag(cluster: string): void {
  const problem = clusterNameProblem(cluster);
  if (problem !== undefined) throw new ConfigError([`--cluster "${cluster}" ${problem}`]);
}

function clusterFlag(): Option {
  return flag('--cluster <name>', 'the Cluster to act on').makeOptionMandatory();
}

function buildConditionCommand(commands: AgentCommands): Command {
  const set = karmadaFlags(new Command('set'))
    .description('Sets a condition on a Cluster (lastTransitionTime moves only when the status changes).')
    .addOption(clusterFlag())
    .addOption(flag('--type <type>', 'condition type, e.g. Maintenance').makeOptionMandatory())
    .addOption(
      flag('--status <status>', 'True, False or Unknown')
        .argParser(parseConditionStatus)
        .makeOptionMandatory(),
    )
    .addOption(flag('--reason <reason>', 'CamelCase reason').makeOptionMandatory())
    .addOption(flag('--message <message>', 'a sentence for humans').default(''))
    .action(async (o: ConditionSetConfig) => {
      checkClusterFlag(o.cluster);
      await commands.conditionSet(o);
    });
  const clear = karmadaFlags(new Command('clear'))
    .description('Removes a condition from a Cluster.')
    .addOption(clusterFlag())
    .addOption(flag('--type <type>', 'condition type to remove').makeOptionMandatory())
    .action(async (o: ConditionClearConfig) => {
      checkClusterFlag(o.cluster);
      await commands.conditionClear(o);
    });
  return new Command('condition')
    .description('Sets or clears Cluster conditions.')
    .addCommand(set)
    .addCommand(clear);
}

/** The whole `agent` program; tests call `exitOverride()` and `parseAsync(argv, { from: 'user' })`. */
export function buildAgentCommand(commands: AgentCommands): Command {
  const status = karmadaFlags(new Command('status'))
    .description("Prints a Cluster's conditions, taints and remedy actions.")
    .addOption(clusterFlag())
    .action(async (o: StatusConfig) => {
      checkClusterFlag(o.cluster);
      await commands.status(o);
    });
  return new Command('agent')
    .description('karmada-failover member agent: a drop-in for karmada-agent (pull mode).')
    .version(AGENT_VERSION)
    .showHelpAfterError()
    .addCommand(buildRunCommand((config) => commands.run(config)))
    .addCommand(buildConditionCommand(commands))
    .addCommand(status);
}

/**
 * Makes every command of the tree throw instead of exiting (commander sets this per command, and
 * commands added with addCommand do not inherit it), so that `main.ts` owns the exit code.
 */
export function throwInsteadOfExit(cmd: Command): Command {
  cmd.exitOverride();
  for (const sub of cmd.commands) throwInsteadOfExit(sub);
  return cmd;
}
