/**
 * The control plane's command line: `run`, with karmada-controller-manager's flag names and
 * defaults for the cluster controller, the taint manager and graceful eviction, plus our own
 * switches (`--failover`, the fleet guard and eviction burst). Every flag also reads an environment
 * variable named after it (`--cluster-monitor-period` → `KF_CLUSTER_MONITOR_PERIOD`); a flag beats
 * the environment, which beats the default.
 */
import { Command, InvalidArgumentError } from 'commander';
import { purgeModes } from '@kf/api';
import { DEFAULT_EVENT_PACE, type EventPace } from '@kf/kube';
import {
  addLeaderElectionTimingFlags,
  addServingFlags,
  boolFlag,
  checkLeaderElectionTimings,
  collectProblems,
  durationFlag,
  flag,
  leaderElectionTimingsOf,
  parseBool,
  parsePositiveInt,
  parseRatio,
  servingConfigOf,
  type LeaderElectionTimingOptions,
  type LeaderElectionTimings,
  type ServingConfig,
  type ServingOptions,
} from '@kf/runtime';
import {
  addMemberHostFlags,
  memberHostConfigOf,
  type MemberHostConfig,
  type MemberHostOptions,
} from '@kf/member';
import {
  DEFAULT_CLUSTER_MONITOR_GRACE_PERIOD_MS,
  DEFAULT_CLUSTER_STARTUP_GRACE_PERIOD_MS,
} from './controllers/cluster-health/heartbeat.ts';
import { DEFAULT_FAIL_BACK_MAX_IN_FLIGHT } from './controllers/fail-back/controller.ts';
import { DEFAULT_FENCE_RELEASE_MARGIN_MS } from './controllers/fence-release/plan.ts';
import { DEFAULT_FLEET_GUARD, type FleetGuardConfig } from './controllers/fleet-guard/disruption.ts';
import { DEFAULT_EVICTION_PACING, type EvictionPacing } from './controllers/fleet-guard/pacing.ts';
import { DEFAULT_GRACEFUL_EVICTION_TIMEOUT_MS } from './controllers/graceful-eviction/assessment.ts';
import {
  DEFAULT_NO_EXECUTE_TAINT_EVICTION_PURGE_MODE,
  type TaintEvictionPurgeMode,
} from './controllers/taint-manager/purge-mode.ts';
import type { ExplainConfig } from './workload/explain/run.ts';

export const CONTROLPLANE_VERSION = '0.1.0';

/**
 * Keys waiting in the controllers' queues, all together, from which the process counts as busy
 * and its Events slow to `--event-busy-qps`: a steady fleet's heartbeats and status reports queue
 * a few keys at a time; a mass failover queues one or more per binding it moves.
 */
export const BUSY_QUEUED_KEYS = 50;

export interface LeaderElectionConfig extends LeaderElectionTimings {
  readonly enabled: boolean;
  readonly namespace: string;
  /** Name of the election Lease. */
  readonly name: string;
}

export interface ControlPlaneConfig extends ServingConfig, MemberHostConfig {
  /** Kubeconfig of the Karmada control plane; empty: `$KUBECONFIG`, `~/.kube/config` or in-cluster. */
  readonly kubeconfig: string;
  readonly clusterMonitorPeriodMs: number;
  readonly clusterMonitorGracePeriodMs: number;
  readonly clusterStartupGracePeriodMs: number;
  readonly gracefulEvictionTimeoutMs: number;
  /** Whether the taint manager runs (upstream: also needs the Failover gate). */
  readonly enableTaintManager: boolean;
  /** Whether the taint manager actually evicts (upstream default false). */
  readonly enableNoExecuteTaintEviction: boolean;
  readonly noExecuteTaintEvictionPurgeMode: TaintEvictionPurgeMode;
  readonly evictionPacing: EvictionPacing;
  /** `--event-qps`, `--event-burst`, `--event-busy-qps`: how fast Events are written. */
  readonly eventPace: EventPace;
  /** `--idle-heap-compaction`: give the heap's empty pages back once a busy spell is over. */
  readonly idleHeapCompaction: boolean;
  readonly fleetGuard: FleetGuardConfig;
  /** Fail-backs under way at once, fleet-wide (`--fail-back-max-in-flight`). */
  readonly failBackMaxInFlight: number;
  /** `--fence-release-margin`: added to fence timeout + Lease duration before a fenced Work is released. */
  readonly fenceReleaseMarginMs: number;
  /** Resolved feature gates (known gates only), `--failover` applied. */
  readonly featureGates: Readonly<Record<FeatureGate, boolean>>;
  /** `--controllers` entries as given (`*`, `name`, `-name`); resolved against known names at start. */
  readonly controllers: readonly string[];
  readonly leaderElection: LeaderElectionConfig;
}

/** Karmada feature gates accepted by `--feature-gates`, with upstream's defaults. */
export const FEATURE_GATE_DEFAULTS = {
  Failover: false,
  GracefulEviction: true,
  PropagateDeps: true,
  CustomizedClusterResourceModeling: true,
  PolicyPreemption: false,
  MultiClusterService: false,
  ResourceQuotaEstimate: false,
  StatefulFailoverInjection: false,
  PriorityBasedScheduling: false,
  ControllerPriorityQueue: false,
  FederatedQuotaEnforcement: false,
  MultiplePodTemplatesScheduling: false,
} as const satisfies Record<string, boolean>;
export type FeatureGate = keyof typeof FEATURE_GATE_DEFAULTS;

/** Defaults of karmada-controller-manager, and ours for what upstream lacks. */
export const DEFAULTS = {
  clusterMonitorPeriodMs: 5_000,
  clusterMonitorGracePeriodMs: DEFAULT_CLUSTER_MONITOR_GRACE_PERIOD_MS,
  clusterStartupGracePeriodMs: DEFAULT_CLUSTER_STARTUP_GRACE_PERIOD_MS,
  /** Deprecated upstream in v1.14 and removed in v1.15; accepted and ignored. */
  failoverEvictionTimeoutMs: 5 * 60_000,
  gracefulEvictionTimeoutMs: DEFAULT_GRACEFUL_EVICTION_TIMEOUT_MS,
  fenceReleaseMarginMs: DEFAULT_FENCE_RELEASE_MARGIN_MS,
  leaderElectNamespace: 'karmada-system',
  leaderElectName: 'karmada-failover-controlplane',
  metricsBindAddress: ':8080',
  healthProbeBindAddress: ':10357',
} as const;

/** A non-negative decimal number (`0.5`, `50`). */
export function parseRate(text: string): number {
  const value = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isFinite(value)) throw new InvalidArgumentError(`"${text}" is not a non-negative number`);
  return value;
}

/** `Failover=true,GracefulEviction=false` → explicit gate values; unknown gates are refused. */
export function parseFeatureGates(text: string): Partial<Record<FeatureGate, boolean>> {
  const gates: Partial<Record<FeatureGate, boolean>> = {};
  for (const entry of list(text)) {
    const [name = '', value, ...rest] = entry.split('=');
    if (!isFeatureGate(name)) {
      throw new InvalidArgumentError(
        `unknown feature gate "${name}" (known: ${Object.keys(FEATURE_GATE_DEFAULTS).join(', ')})`,
      );
    }
    if (value === undefined || rest.length > 0) {
      throw new InvalidArgumentError(`feature gate "${entry}" must look like ${name}=true`);
    }
    gates[name] = parseBool(value);
  }
  return gates;
}

function isFeatureGate(name: string): name is FeatureGate {
  return Object.hasOwn(FEATURE_GATE_DEFAULTS, name);
}

const CONTROLLER_ENTRY = /^-?(?:\*|[a-z0-9]+(?:-[a-z0-9]+)*)$/;

/** `--controllers` entries: `*`, or kebab-case names, optionally prefixed with `-`. */
export function parseControllers(text: string): string[] {
  const entries = list(text);
  const bad = entries.filter((e) => !CONTROLLER_ENTRY.test(e) || e === '-*');
  if (bad.length > 0) {
    throw new InvalidArgumentError(`controller names are kebab-case (x, -x or *), got ${bad.join(', ')}`);
  }
  return entries;
}

/**
 * Whether a controller runs for a `--controllers` list: the first entry naming it (`name` enables,
 * `-name` disables) wins; otherwise `*` enables it; otherwise it is off.
 */
export function isControllerEnabled(entries: readonly string[], name: string): boolean {
  const first = entries.find((e) => e === name || e === `-${name}`);
  if (first !== undefined) return first === name;
  return entries.includes('*');
}

function list(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Raw commander values of `run`, before validation. */
export interface RunOptions extends LeaderElectionTimingOptions, ServingOptions, MemberHostOptions {
  kubeconfig: string;
  clusterMonitorPeriod: number;
  clusterMonitorGracePeriod: number;
  clusterStartupGracePeriod: number;
  failoverEvictionTimeout: number;
  gracefulEvictionTimeout: number;
  resourceEvictionRate: number;
  resourceEvictionBurst: number;
  eventQps: number;
  eventBurst: number;
  eventBusyQps: number;
  idleHeapCompaction: boolean;
  failBackMaxInFlight: number;
  fenceReleaseMargin: number;
  enableTaintManager: boolean;
  enableNoExecuteTaintEviction: boolean;
  /** commander names `--no-…` flags after the rest of the name. */
  executeTaintEvictionPurgeMode: string;
  featureGates: string;
  failover: boolean;
  fleetGuardPauseThreshold: number;
  fleetGuardResumeThreshold: number;
  fleetGuardMinClusters: number;
  fleetGuardResumeAfter: number;
  controllers: string;
  leaderElect: boolean;
  leaderElectResourceNamespace: string;
  leaderElectResourceName: string;
}

/**
 * `--failover` turns on what cluster failover needs: the Failover gate, the taint manager
 * and NoExecute eviction. It only changes defaults: an explicit upstream flag or gate still wins.
 */
function resolveGates(
  explicit: Partial<Record<FeatureGate, boolean>>,
  failover: boolean,
): Record<FeatureGate, boolean> {
  return { ...FEATURE_GATE_DEFAULTS, ...(failover ? { Failover: true } : {}), ...explicit };
}

/** Validates `run`'s flags, reporting every problem at once (ConfigError). */
export function toRunConfig(
  o: RunOptions,
  explicitlySet: (name: keyof RunOptions) => boolean,
): ControlPlaneConfig {
  return collectProblems<ControlPlaneConfig>((p) => {
    const gates = resolveGates(p.parse('--feature-gates', o.featureGates, parseFeatureGates, {}), o.failover);
    const eviction =
      o.failover && !explicitlySet('enableNoExecuteTaintEviction') ? true : o.enableNoExecuteTaintEviction;
    const taintManager = o.failover && !explicitlySet('enableTaintManager') ? true : o.enableTaintManager;
    const purgeMode = o.executeTaintEvictionPurgeMode;
    p.check(
      !eviction || purgeMode === purgeModes.gracefully || purgeMode === purgeModes.directly,
      `--no-execute-taint-eviction-purge-mode must be Gracefully or Directly, got "${purgeMode}"`,
    );
    p.check(o.clusterMonitorPeriod > 0, '--cluster-monitor-period must be greater than 0');
    p.check(o.resourceEvictionBurst >= 1, '--resource-eviction-burst must be at least 1');
    p.check(
      o.fleetGuardResumeThreshold <= o.fleetGuardPauseThreshold,
      '--fleet-guard-resume-threshold must not exceed --fleet-guard-pause-threshold',
    );
    const timings = leaderElectionTimingsOf(o);
    if (o.leaderElect) checkLeaderElectionTimings(p, timings);
    return {
      kubeconfig: o.kubeconfig,
      clusterMonitorPeriodMs: o.clusterMonitorPeriod,
      clusterMonitorGracePeriodMs: o.clusterMonitorGracePeriod,
      clusterStartupGracePeriodMs: o.clusterStartupGracePeriod,
      gracefulEvictionTimeoutMs: o.gracefulEvictionTimeout,
      enableTaintManager: taintManager,
      enableNoExecuteTaintEviction: eviction,
      noExecuteTaintEvictionPurgeMode:
        purgeMode === purgeModes.directly
          ? purgeModes.directly
          : DEFAULT_NO_EXECUTE_TAINT_EVICTION_PURGE_MODE,
      evictionPacing: { ratePerSecond: o.resourceEvictionRate, burst: o.resourceEvictionBurst },
      eventPace: { ratePerSecond: o.eventQps, burst: o.eventBurst, busyRatePerSecond: o.eventBusyQps },
      idleHeapCompaction: o.idleHeapCompaction,
      failBackMaxInFlight: o.failBackMaxInFlight,
      fenceReleaseMarginMs: o.fenceReleaseMargin,
      fleetGuard: {
        pauseAtUnhealthyShare: o.fleetGuardPauseThreshold,
        resumeBelowUnhealthyShare: o.fleetGuardResumeThreshold,
        minFleetSize: o.fleetGuardMinClusters,
        resumeAfterMs: o.fleetGuardResumeAfter,
      },
      featureGates: gates,
      controllers: p.parse('--controllers', o.controllers, parseControllers, []),
      leaderElection: {
        enabled: o.leaderElect,
        namespace: o.leaderElectResourceNamespace,
        name: o.leaderElectResourceName,
        ...timings,
      },
      ...memberHostConfigOf(p, o),
      ...servingConfigOf(p, o),
    };
  });
}

function healthFlags(cmd: Command): Command {
  return cmd
    .addOption(
      durationFlag(
        '--cluster-monitor-period <duration>',
        'upper bound of how late a silent Pull cluster is marked Ready=Unknown after its grace period',
        DEFAULTS.clusterMonitorPeriodMs,
      ),
    )
    .addOption(
      durationFlag(
        '--cluster-monitor-grace-period <duration>',
        'silence tolerated from a cluster that has posted status before Ready turns Unknown',
        DEFAULTS.clusterMonitorGracePeriodMs,
      ),
    )
    .addOption(
      durationFlag(
        '--cluster-startup-grace-period <duration>',
        'silence tolerated from a cluster that never posted status',
        DEFAULTS.clusterStartupGracePeriodMs,
      ),
    )
    .addOption(
      durationFlag(
        '--failover-eviction-timeout <duration>',
        'deprecated upstream (removed in Karmada v1.15); accepted and ignored — NoExecute taints come from ClusterTaintPolicies',
        DEFAULTS.failoverEvictionTimeoutMs,
      ),
    )
    .addOption(
      durationFlag(
        '--graceful-eviction-timeout <duration>',
        'how long a graceful eviction task may keep the old copy of a workload',
        DEFAULTS.gracefulEvictionTimeoutMs,
      ),
    );
}

function evictionFlags(cmd: Command): Command {
  return cmd
    .addOption(
      flag('--resource-eviction-rate <per-second>', 'evictions per second once the burst is spent')
        .argParser(parseRate)
        .default(DEFAULT_EVICTION_PACING.ratePerSecond),
    )
    .addOption(
      flag('--resource-eviction-burst <n>', 'evictions allowed at once after a quiet period')
        .argParser(parsePositiveInt)
        .default(DEFAULT_EVICTION_PACING.burst),
    )
    .addOption(
      flag(
        '--event-qps <per-second>',
        "Events written per second once the burst is spent, so that a mass failover's Events wait instead of slowing its writes (0: no pace)",
      )
        .argParser(parseRate)
        .default(DEFAULT_EVENT_PACE.ratePerSecond),
    )
    .addOption(
      flag('--event-burst <n>', 'Events written at once after a quiet period')
        .argParser(parsePositiveInt)
        .default(DEFAULT_EVENT_PACE.burst),
    )
    .addOption(
      flag(
        '--event-busy-qps <per-second>',
        `Events written per second, with no burst, while the controllers' queues hold ${String(BUSY_QUEUED_KEYS)} keys or more (a mass failover under way), so that the writes moving workloads go first (0: the same pace as when idle)`,
      )
        .argParser(parseRate)
        .default(DEFAULT_EVENT_PACE.busyRatePerSecond ?? 0),
    )
    .addOption(
      boolFlag(
        '--idle-heap-compaction',
        'compact the heap and return its empty pages once the process is mostly idle and holds a third more than it uses (at most every 5 minutes; a pause of a few milliseconds per MiB of live objects)',
        true,
      ),
    )
    .addOption(
      flag(
        '--fail-back-max-in-flight <n>',
        'fail-backs under way at once, fleet-wide (bindings whose policy opts in with the fail-back-after-seconds annotation)',
      )
        .argParser(parsePositiveInt)
        .default(DEFAULT_FAIL_BACK_MAX_IN_FLIGHT),
    )
    .addOption(
      durationFlag(
        '--fence-release-margin <duration>',
        "how much longer than its fence timeout + the Lease duration a cluster's Lease must be silent before a Work with a fence timeout is released without its agent; cover the workload's termination grace period",
        DEFAULTS.fenceReleaseMarginMs,
      ),
    )
    .addOption(
      boolFlag('--enable-taint-manager', 'run the NoExecute taint manager (needs gate Failover)', true),
    )
    .addOption(
      boolFlag(
        '--enable-no-execute-taint-eviction',
        'let the taint manager evict bindings from clusters with untolerated NoExecute taints',
        false,
      ),
    )
    .addOption(
      flag(
        '--no-execute-taint-eviction-purge-mode <mode>',
        'purge mode of taint evictions for bindings without spec.failover.cluster: Gracefully or Directly',
      ).default(DEFAULT_NO_EXECUTE_TAINT_EVICTION_PURGE_MODE),
    )
    .addOption(
      flag('--feature-gates <gates>', 'comma-separated Gate=bool pairs, e.g. Failover=true').default(''),
    )
    .addOption(
      boolFlag(
        '--failover',
        'turn on cluster failover: gate Failover, --enable-taint-manager and --enable-no-execute-taint-eviction (explicit flags still win)',
        false,
      ),
    )
    .addOption(
      flag('--fleet-guard-pause-threshold <ratio>', 'share of not-ready clusters at which evictions pause')
        .argParser(parseRatio)
        .default(DEFAULT_FLEET_GUARD.pauseAtUnhealthyShare),
    )
    .addOption(
      flag(
        '--fleet-guard-resume-threshold <ratio>',
        'share of not-ready clusters below which evictions resume',
      )
        .argParser(parseRatio)
        .default(DEFAULT_FLEET_GUARD.resumeBelowUnhealthyShare),
    )
    .addOption(
      flag('--fleet-guard-min-clusters <n>', 'smaller fleets pause only when every cluster is not ready')
        .argParser(parsePositiveInt)
        .default(DEFAULT_FLEET_GUARD.minFleetSize),
    )
    .addOption(
      durationFlag(
        '--fleet-guard-resume-after <duration>',
        'how long the fleet must stay below the resume threshold before evictions resume',
        DEFAULT_FLEET_GUARD.resumeAfterMs,
      ),
    );
}

function processFlags(cmd: Command): Command {
  cmd
    .addOption(
      flag(
        '--controllers <list>',
        'controllers to run: * for all, name to enable, -name to disable (kebab-case names)',
      ).default('*'),
    )
    .addOption(boolFlag('--leader-elect', 'elect a leader among replicas with a Lease', true))
    .addOption(
      flag('--leader-elect-resource-namespace <ns>', 'namespace of the election Lease').default(
        DEFAULTS.leaderElectNamespace,
      ),
    )
    .addOption(
      flag('--leader-elect-resource-name <name>', 'name of the election Lease').default(
        DEFAULTS.leaderElectName,
      ),
    );
  return addServingFlags(addLeaderElectionTimingFlags(cmd), {
    metricsBindAddress: DEFAULTS.metricsBindAddress,
    healthProbeBindAddress: DEFAULTS.healthProbeBindAddress,
  });
}

/** Raw commander values of `explain`, before validation. */
export interface ExplainOptions {
  kubeconfig: string;
  output: string;
  featureGates: string;
  failover: boolean;
  enableTaintManager: boolean;
  enableNoExecuteTaintEviction: boolean;
  executeTaintEvictionPurgeMode: string;
  gracefulEvictionTimeout: number;
}

/** Object names: DNS subdomains (RFC 1123) of at most 253 characters, as the API server requires. */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** Namespaces: DNS labels of at most 63 characters. */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** What is wrong with `explain`'s `<binding>` argument, or undefined when it can name a binding. */
export function bindingTargetProblem(target: string): string | undefined {
  const usage =
    'namespace/name of a ResourceBinding or name of a ClusterResourceBinding (or of its template)';
  if (target.trim() === '') return `<binding> is empty: give the ${usage}`;
  const parts = target.split('/');
  const [first = '', second] = parts;
  if (parts.length > 2) return `<binding> "${target}" has more than one "/": give the ${usage}`;
  if (second !== undefined && !NAMESPACE_NAME.test(first)) {
    return `<binding> "${target}": "${first}" is not a namespace name (a DNS label)`;
  }
  const name = second ?? first;
  if (name.length > 253 || !OBJECT_NAME.test(name)) {
    return `<binding> "${target}": "${name}" is not an object name (lower-case letters, digits, "-" and ".")`;
  }
  return undefined;
}

/**
 * Validates `explain`'s flags. They are `run`'s flags of the same names (and read the same
 * environment variables), so that the verdicts match the running control plane's settings.
 */
export function toExplainConfig(
  target: string,
  o: ExplainOptions,
  explicitlySet: (name: keyof ExplainOptions) => boolean,
): ExplainConfig {
  return collectProblems<ExplainConfig>((p) => {
    const gates = resolveGates(p.parse('--feature-gates', o.featureGates, parseFeatureGates, {}), o.failover);
    const purgeMode = o.executeTaintEvictionPurgeMode;
    p.check(
      purgeMode === purgeModes.gracefully || purgeMode === purgeModes.directly,
      `--no-execute-taint-eviction-purge-mode must be Gracefully or Directly, got "${purgeMode}"`,
    );
    p.check(o.output === 'text' || o.output === 'json', `--output must be text or json, got "${o.output}"`);
    const targetProblem = bindingTargetProblem(target);
    if (targetProblem !== undefined) p.add(targetProblem);
    return {
      kubeconfig: o.kubeconfig,
      target,
      output: o.output === 'json' ? 'json' : 'text',
      settings: {
        failoverGate: gates.Failover,
        gracefulEvictionGate: gates.GracefulEviction,
        statefulFailoverInjectionGate: gates.StatefulFailoverInjection,
        enableTaintManager: o.failover && !explicitlySet('enableTaintManager') ? true : o.enableTaintManager,
        enableNoExecuteTaintEviction:
          o.failover && !explicitlySet('enableNoExecuteTaintEviction')
            ? true
            : o.enableNoExecuteTaintEviction,
        noExecuteTaintEvictionPurgeMode:
          purgeMode === purgeModes.directly
            ? purgeModes.directly
            : DEFAULT_NO_EXECUTE_TAINT_EVICTION_PURGE_MODE,
        gracefulEvictionTimeoutMs: o.gracefulEvictionTimeout,
      },
    };
  });
}

/** `explain <binding>`: where a binding runs and why (see workload/explain). */
export function buildExplainCommand(explain: (config: ExplainConfig) => Promise<void>): Command {
  const cmd = new Command('explain')
    .description(
      'Explains a ResourceBinding (namespace/name) or ClusterResourceBinding (name): where it runs, why ' +
        'other clusters are rejected, eviction tasks and history, and what cluster and application ' +
        'failover would do. Failover flags take the values of the running control plane (same flags and ' +
        'environment variables as run).',
    )
    .argument(
      '<binding>',
      'namespace/name of a ResourceBinding or name of a ClusterResourceBinding (or of its template)',
    )
    .addOption(
      flag('--kubeconfig <path>', 'kubeconfig of the Karmada control plane').default(
        '',
        '$KUBECONFIG, ~/.kube/config or in-cluster',
      ),
    )
    .addOption(flag('-o, --output <format>', 'text or json').default('text'))
    .addOption(
      flag('--feature-gates <gates>', "the control plane's feature gates, e.g. Failover=true").default(''),
    )
    .addOption(boolFlag('--failover', 'the control plane runs with --failover', false))
    .addOption(boolFlag('--enable-taint-manager', 'the control plane runs the taint manager', true))
    .addOption(
      boolFlag('--enable-no-execute-taint-eviction', 'the control plane evicts on NoExecute taints', false),
    )
    .addOption(
      flag(
        '--no-execute-taint-eviction-purge-mode <mode>',
        "the control plane's taint eviction purge mode",
      ).default(DEFAULT_NO_EXECUTE_TAINT_EVICTION_PURGE_MODE),
    )
    .addOption(
      durationFlag(
        '--graceful-eviction-timeout <duration>',
        "the control plane's graceful eviction timeout",
        DEFAULTS.gracefulEvictionTimeoutMs,
      ),
    );
  cmd.action(async (target: string, opts: ExplainOptions) => {
    const explicit = (name: keyof ExplainOptions): boolean => {
      const source = cmd.getOptionValueSource(name);
      return source === 'cli' || source === 'env';
    };
    await explain(toExplainConfig(target, opts, explicit));
  });
  cmd.exitOverride();
  return cmd;
}

/** The whole `controlplane` program; tests call `exitOverride()` and `parseAsync(argv, { from: 'user' })`. */
export function buildControlPlaneCommand(
  run: (config: ControlPlaneConfig) => Promise<void>,
  explain?: (config: ExplainConfig) => Promise<void>,
): Command {
  const cmd = new Command('run').description(
    'Runs the control-plane controllers: cluster health, taints, taint-based eviction, graceful ' +
      'eviction, remedies, the workload pipeline, application failover, and the status, heartbeat ' +
      'and Works of Push clusters.',
  );
  cmd.addOption(
    flag('--kubeconfig <path>', 'kubeconfig of the Karmada control plane').default(
      '',
      '$KUBECONFIG, ~/.kube/config or in-cluster',
    ),
  );
  processFlags(addMemberHostFlags(evictionFlags(healthFlags(cmd)), 'each Push cluster')).action(
    async (opts: RunOptions) => {
      const explicit = (name: keyof RunOptions): boolean => {
        const source = cmd.getOptionValueSource(name);
        return source === 'cli' || source === 'env';
      };
      await run(toRunConfig(opts, explicit));
    },
  );
  const program = new Command('controlplane')
    .description('karmada-failover control plane: cluster failover for Karmada.')
    .version(CONTROLPLANE_VERSION)
    .showHelpAfterError()
    .addCommand(cmd);
  if (explain !== undefined) program.addCommand(buildExplainCommand(explain));
  program.exitOverride();
  cmd.exitOverride();
  return program;
}
