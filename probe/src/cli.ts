import { Command, InvalidArgumentError, type Option } from 'commander';
import { validateTimings } from '@kf/kube';
import {
  DEFAULT_ENV_PREFIX,
  addLeaderElectionTimingFlags,
  addServingFlags,
  boolFlag,
  collectProblems,
  durationFlag,
  flag,
  parseGoDuration,
  parsePositiveInt,
  parseRatio,
  type BindAddress,
  type LeaderElectionTimings,
  type LogLevel,
  type Problems,
} from '@kf/runtime';
import type { RecordType } from './dns/message.ts';
import { isValidDnsName } from './dns/search-list.ts';
import type { AggregationMode } from './health/aggregate.ts';

export interface LeaderElectionConfig extends LeaderElectionTimings {
  readonly enabled: boolean;
  /** In the member cluster. */
  readonly namespace: string;
  /** The Lease's name: `<--leader-elect-resource-name>-coredns-detector`, as upstream names it. */
  readonly leaseName: string;
}

/** The validated, frozen configuration of one probe process. */
export interface ProbeConfig {
  readonly nodeName: string;
  readonly clusterName: string;
  /** Member kubeconfig; undefined: the pod's service account. */
  readonly kubeconfig?: string;
  readonly karmadaKubeconfig: string;
  readonly karmadaContext?: string;
  readonly names: readonly string[];
  readonly recordType: RecordType;
  readonly resolvConf: string;
  readonly nameserverPort: number;
  readonly dnsTimeoutMs?: number;
  readonly dnsAttempts?: number;
  readonly periodMs: number;
  readonly failAfterMs: number;
  readonly recoverAfterMs: number;
  readonly staleThresholdMs: number;
  readonly aggregation: AggregationMode;
  readonly leaderElection: LeaderElectionConfig;
  /** Undefined: not served. */
  readonly metricsBindAddress?: BindAddress;
  readonly healthProbeBindAddress?: BindAddress;
  readonly logLevel: LogLevel;
}

/** Defaults: those of Karmada's service-name-resolution detector wherever it has the same setting. */
export const DEFAULTS = Object.freeze({
  periodMs: 5_000,
  failAfterMs: 30_000,
  recoverAfterMs: 30_000,
  staleThresholdMs: 60_000,
  names: 'kubernetes.default',
  resolvConf: '/etc/resolv.conf',
  nameserverPort: 53,
  failureQuorum: 0.5,
  resourceName: 'cluster-problem-detector',
  resourceNamespace: 'kube-system',
  metricsBindAddress: ':8080',
  healthProbeBindAddress: ':8081',
});

/** glibc's ceiling on resolv.conf's `timeout` (resolv.conf(5)); a longer try outlasts any verdict. */
const MAX_DNS_TIMEOUT_MS = 30_000;
/** Suffix upstream appends to `--leader-elect-resource-name` for its one detector. */
const LEASE_NAME_SUFFIX = '-coredns-detector';
const DETECTOR = 'coredns-detector';
/** Cluster names are DNS labels of at most 48 characters (the Cluster CRD's rule). */
const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]{0,46}[a-z0-9])?$/;

/**
 * Settings this probe once named differently from Karmada's detector. Karmada's name is the
 * documented flag; the others are hidden aliases, so that command lines and environments written
 * for the earlier names keep working. Each name also reads its own variable (`--period` reads
 * `KF_PERIOD`, `--coredns-detect-period` reads `KF_COREDNS_DETECT_PERIOD`).
 *
 * Any of the names sets the value. Precedence: any name on the command line, then any variable,
 * then the default. At the same level Karmada's name wins, then the aliases in the order listed;
 * only variables can meet there, since two names on the command line are refused.
 */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  hostName: ['nodeName'],
  corednsDetectPeriod: ['period', 'detectPeriod'],
  corednsFailureThreshold: ['failAfter', 'detectFailureThreshold'],
  corednsSuccessThreshold: ['recoverAfter', 'detectSuccessThreshold'],
  corednsStaleThreshold: ['staleThreshold'],
};

function alias(flags: string, of: string): Option {
  return flag(flags, `same as --${of}`).hideHelp();
}

function durationAlias(flags: string, of: string): Option {
  return alias(flags, of).argParser((text: string) => parseGoDuration(text));
}

function parsePort(text: string): number {
  const port = parsePositiveInt(text);
  if (port > 65_535) throw new InvalidArgumentError(`${text} is not a port (1–65535)`);
  return port;
}

export function parseNames(text: string): string[] {
  return text
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
}

function parseRecordType(text: string): RecordType {
  const t = text.trim().toUpperCase();
  if (t !== 'A' && t !== 'AAAA') throw new InvalidArgumentError(`"${text}" is not A or AAAA`);
  return t;
}

function parseAggregation(text: string): 'upstream' | 'quorum' {
  if (text !== 'upstream' && text !== 'quorum')
    throw new InvalidArgumentError(`"${text}" is not upstream or quorum`);
  return text;
}

/**
 * The probe's command line. Every flag also reads `KF_<FLAG_NAME>` (flag beats environment beats
 * default); `--host-name` also reads `NODE_NAME`, which the DaemonSet sets from `spec.nodeName`.
 * Flags shared with Karmada's detector carry its names; the probe's earlier names stay accepted
 * as hidden aliases (see ALIASES). `run` gets the validated config; invalid input throws a
 * ConfigError listing every problem.
 */
export function buildProbeCommand(
  run: (cfg: Readonly<ProbeConfig>) => Promise<void>,
  version = '0.0.0',
): Command {
  const cmd = new Command('karmada-failover-probe')
    .description(
      'Resolves in-cluster service names from this node like a pod does, records the debounced verdict on the ' +
        'Node, and (one elected pod per cluster) reports ServiceDomainNameResolutionReady on the Cluster.',
    )
    .version(version)
    .allowExcessArguments(false)
    // Where to report
    .addOption(flag('--host-name <name>', 'the Node this pod runs on (also from NODE_NAME)'))
    .addOption(alias('--node-name <name>', 'host-name'))
    .addOption(flag('--cluster-name <name>', 'the Cluster in the control plane that this member is'))
    .addOption(flag('--kubeconfig <path>', "member cluster kubeconfig (default: the pod's service account)"))
    .addOption(flag('--karmada-kubeconfig <path>', 'control plane kubeconfig (required)'))
    .addOption(
      flag('--karmada-context <name>', 'context of --karmada-kubeconfig to use (default: its current one)'),
    )
    // What to resolve and how
    .addOption(
      flag('--lookup-names <names>', 'comma-separated names that must all resolve').default(DEFAULTS.names),
    )
    .addOption(
      flag('--record-type <type>', 'record type to ask for: A or AAAA')
        .argParser(parseRecordType)
        .default('A'),
    )
    .addOption(
      flag('--resolv-conf <path>', 'name servers, search list and options, read every round').default(
        DEFAULTS.resolvConf,
      ),
    )
    .addOption(
      flag(
        '--nameserver-port <port>',
        'port of the name servers (resolv.conf cannot say; for tests and unusual set-ups)',
      )
        .argParser(parsePort)
        .default(DEFAULTS.nameserverPort),
    )
    .addOption(
      flag(
        '--dns-timeout <duration>',
        "per-try timeout, at most 30s (default: resolv.conf's, else 5s)",
      ).argParser((t: string) => parseGoDuration(t, MAX_DNS_TIMEOUT_MS)),
    )
    .addOption(
      flag('--dns-attempts <n>', "rounds over the name servers (default: resolv.conf's, else 2)").argParser(
        parsePositiveInt,
      ),
    )
    // When to decide
    .addOption(
      durationFlag(
        '--coredns-detect-period <duration>',
        'how often each pod resolves the names',
        DEFAULTS.periodMs,
      ),
    )
    .addOption(durationAlias('--period <duration>', 'coredns-detect-period'))
    .addOption(durationAlias('--detect-period <duration>', 'coredns-detect-period'))
    .addOption(
      durationFlag(
        '--coredns-failure-threshold <duration>',
        'how long lookups must keep failing before the node reports False',
        DEFAULTS.failAfterMs,
      ),
    )
    .addOption(durationAlias('--fail-after <duration>', 'coredns-failure-threshold'))
    .addOption(durationAlias('--detect-failure-threshold <duration>', 'coredns-failure-threshold'))
    .addOption(
      durationFlag(
        '--coredns-success-threshold <duration>',
        'how long lookups must keep succeeding before the node reports True again',
        DEFAULTS.recoverAfterMs,
      ),
    )
    .addOption(durationAlias('--recover-after <duration>', 'coredns-success-threshold'))
    .addOption(durationAlias('--detect-success-threshold <duration>', 'coredns-success-threshold'))
    .addOption(
      durationFlag(
        '--coredns-stale-threshold <duration>',
        'a node verdict whose heartbeat is older counts as Unknown',
        DEFAULTS.staleThresholdMs,
      ),
    )
    .addOption(durationAlias('--stale-threshold <duration>', 'coredns-stale-threshold'))
    .addOption(
      flag(
        '--aggregation <mode>',
        'upstream: False only when every Ready node fails, nothing while any is Unknown; quorum: False when at least --failure-quorum of the known nodes fail',
      )
        .argParser(parseAggregation)
        .default('upstream'),
    )
    .addOption(
      flag(
        '--failure-quorum <ratio>',
        'share of known nodes (0 < q ≤ 1) that must fail for False in quorum mode',
      )
        .argParser(parseRatio)
        .default(DEFAULTS.failureQuorum),
    )
    // Leader election (Karmada's names and defaults)
    .addOption(boolFlag('--leader-elect', 'elect one pod per cluster to write the Cluster condition', true));
  addLeaderElectionTimingFlags(cmd, {
    leaseDuration: 'how long others wait before taking over a silent leader',
    renewDeadline: 'a leader that could not renew for this long stops leading',
    retryPeriod: 'pause between tries to acquire or renew',
  })
    .addOption(
      flag('--leader-elect-resource-lock <kind>', 'lock object kind (only leases)').default('leases'),
    )
    .addOption(
      flag(
        '--leader-elect-resource-name <name>',
        `lock name prefix; the Lease is <name>${LEASE_NAME_SUFFIX}`,
      ).default(DEFAULTS.resourceName),
    )
    .addOption(
      flag('--leader-elect-resource-namespace <ns>', 'namespace of the Lease, in the member cluster').default(
        DEFAULTS.resourceNamespace,
      ),
    );
  // Serving; Karmada's own spellings of the health address are accepted but not shown.
  addServingFlags(cmd, {
    metricsBindAddress: DEFAULTS.metricsBindAddress,
    healthProbeBindAddress: DEFAULTS.healthProbeBindAddress,
    parseAddresses: true,
    help: {
      metricsBindAddress: '/metrics on host:port, :port (every interface) or 0 (off)',
      healthProbeBindAddress: '/healthz and /readyz on host:port, :port (every interface) or 0 (off)',
      logLevel: 'trace, debug, info, warn, error, fatal or silent',
    },
  })
    .addOption(
      flag(
        '--bind-address <ip>',
        "Karmada's health address; with --healthz-port it sets --health-probe-bind-address",
      ).hideHelp(),
    )
    .addOption(
      flag('--healthz-port <port>', "Karmada's health port; see --bind-address")
        .argParser((t: string) => (t === '0' ? 0 : parsePort(t)))
        .hideHelp(),
    )
    .addOption(
      flag('--detectors <list>', "Karmada's detector selection; only coredns-detector exists")
        .default('*')
        .hideHelp(),
    );
  cmd.action(async (opts: Record<string, unknown>, command: Command) => {
    await run(toProbeConfig(opts, command));
  });
  return cmd;
}

/** Turns parsed options into a ProbeConfig; throws ConfigError listing every problem. */
export function toProbeConfig(opts: Record<string, unknown>, cmd: Command): Readonly<ProbeConfig> {
  const pick = (key: string): unknown => pickAliased(opts, cmd, key);
  return collectProblems((p) => {
    const names = parseNames(str(opts.lookupNames) ?? '');
    checkNames(p, names);
    const periodMs = num(pick('corednsDetectPeriod'));
    const staleThresholdMs = num(pick('corednsStaleThreshold'));
    p.check(periodMs > 0, '--coredns-detect-period must be positive');
    p.check(
      staleThresholdMs > periodMs,
      '--coredns-stale-threshold must be longer than --coredns-detect-period: a heartbeat is written at most once a period',
    );
    for (const key of [
      'corednsDetectPeriod',
      'corednsFailureThreshold',
      'corednsSuccessThreshold',
      'corednsStaleThreshold',
    ])
      checkAliases(p, opts, cmd, key);
    const dnsTimeoutMs = opts.dnsTimeout as number | undefined;
    p.check(dnsTimeoutMs === undefined || dnsTimeoutMs > 0, '--dns-timeout must be positive');
    const karmadaKubeconfig = str(opts.karmadaKubeconfig) ?? '';
    p.check(
      karmadaKubeconfig !== '',
      '--karmada-kubeconfig is required: the elected pod writes the Cluster condition there',
    );
    const dnsAttempts = opts.dnsAttempts as number | undefined;
    return {
      nodeName: nodeNameOf(p, opts, cmd),
      clusterName: clusterNameOf(p, opts),
      ...optional('kubeconfig', str(opts.kubeconfig)),
      karmadaKubeconfig,
      ...optional('karmadaContext', str(opts.karmadaContext)),
      names,
      recordType: opts.recordType as RecordType,
      resolvConf: str(opts.resolvConf) ?? DEFAULTS.resolvConf,
      nameserverPort: num(opts.nameserverPort),
      ...optional('dnsTimeoutMs', dnsTimeoutMs),
      ...optional('dnsAttempts', dnsAttempts),
      periodMs,
      failAfterMs: num(pick('corednsFailureThreshold')),
      recoverAfterMs: num(pick('corednsSuccessThreshold')),
      staleThresholdMs,
      aggregation: aggregationOf(p, opts),
      leaderElection: leaderElectionOf(p, opts),
      ...optional('metricsBindAddress', bindAddressOf(opts.metricsBindAddress)),
      ...optional('healthProbeBindAddress', healthAddressOf(opts, cmd)),
      logLevel: opts.logLevel as LogLevel,
    };
  });
}

function checkNames(p: Problems, names: readonly string[]): void {
  p.check(names.length > 0, '--lookup-names needs at least one name');
  for (const name of names)
    p.check(isValidDnsName(name), `--lookup-names: "${name}" is not a valid DNS name`);
}

function nodeNameOf(p: Problems, opts: Record<string, unknown>, cmd: Command): string {
  checkAliases(p, opts, cmd, 'hostName');
  const name = str(pickAliased(opts, cmd, 'hostName')) ?? str(process.env.NODE_NAME) ?? '';
  p.check(
    name !== '',
    `--host-name is required (or ${DEFAULT_ENV_PREFIX}HOST_NAME or NODE_NAME): the Node this pod runs on`,
  );
  return name;
}

function clusterNameOf(p: Problems, opts: Record<string, unknown>): string {
  const name = str(opts.clusterName) ?? '';
  if (name === '') p.add('--cluster-name is required: the Cluster to report on');
  else
    p.check(
      CLUSTER_NAME.test(name),
      `--cluster-name: "${name}" is not a cluster name (a DNS label of at most 48 characters)`,
    );
  return name;
}

function aggregationOf(p: Problems, opts: Record<string, unknown>): AggregationMode {
  if (opts.aggregation === 'upstream') return { kind: 'upstream' };
  const failureQuorum = num(opts.failureQuorum);
  p.check(
    failureQuorum > 0,
    '--failure-quorum must be greater than 0 (0 would report False with no failing node)',
  );
  return { kind: 'quorum', failureQuorum };
}

function leaderElectionOf(p: Problems, opts: Record<string, unknown>): LeaderElectionConfig {
  const le = {
    enabled: opts.leaderElect === true,
    leaseDurationMs: num(opts.leaderElectLeaseDuration),
    renewDeadlineMs: num(opts.leaderElectRenewDeadline),
    retryPeriodMs: num(opts.leaderElectRetryPeriod),
    namespace: str(opts.leaderElectResourceNamespace) ?? DEFAULTS.resourceNamespace,
    leaseName: `${str(opts.leaderElectResourceName) ?? DEFAULTS.resourceName}${LEASE_NAME_SUFFIX}`,
  };
  p.check(
    opts.leaderElectResourceLock === 'leases',
    '--leader-elect-resource-lock: only "leases" is supported',
  );
  try {
    validateTimings(le.leaseDurationMs, le.renewDeadlineMs, le.retryPeriodMs, 1.2);
  } catch (err: unknown) {
    p.add(
      `leader election timings: ${err instanceof Error ? err.message : String(err)} (retry period × 1.2 jitter)`,
    );
  }
  const detectors = (str(opts.detectors) ?? '*').split(',').map((d) => d.trim());
  const enabled =
    detectors.includes(DETECTOR) || (detectors.includes('*') && !detectors.includes(`-${DETECTOR}`));
  p.check(enabled, `--detectors must enable ${DETECTOR}, the only detector`);
  return le;
}

/** Karmada's `--bind-address`/`--healthz-port` pair, when given, set the health address. */
function healthAddressOf(opts: Record<string, unknown>, cmd: Command): BindAddress | undefined {
  const legacy = [cmd.getOptionValueSource('bindAddress'), cmd.getOptionValueSource('healthzPort')];
  if (legacy.every((s) => s === undefined)) return bindAddressOf(opts.healthProbeBindAddress);
  const host = str(opts.bindAddress) ?? '127.0.0.1';
  return { host, port: (opts.healthzPort as number | undefined) ?? 0 };
}

/** A parsed address, or undefined for `0` (commander stores a parser's undefined as ''). */
function bindAddressOf(v: unknown): BindAddress | undefined {
  return typeof v === 'object' && v !== null ? (v as BindAddress) : undefined;
}

const RANK: Readonly<Record<string, number>> = { cli: 3, env: 2 };

/**
 * The value of `key` or of one of its aliases, whichever was given at the higher level; at the
 * same level `key` first, then the aliases in ALIASES order.
 */
function pickAliased(opts: Record<string, unknown>, cmd: Command, key: string): unknown {
  let best = key;
  let bestRank = RANK[cmd.getOptionValueSource(key) ?? ''] ?? 0;
  for (const a of ALIASES[key] ?? []) {
    const rank = opts[a] === undefined ? 0 : (RANK[cmd.getOptionValueSource(a) ?? ''] ?? 0);
    if (rank > bestRank) {
      best = a;
      bestRank = rank;
    }
  }
  return opts[best];
}

function checkAliases(p: Problems, opts: Record<string, unknown>, cmd: Command, key: string): void {
  const onCli = [key, ...(ALIASES[key] ?? [])].filter(
    (k) => opts[k] !== undefined && cmd.getOptionValueSource(k) === 'cli',
  );
  if (onCli.length > 1) p.add(`${onCli.map(kebab).join(' and ')} mean the same: give one`);
}

function kebab(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : Number.NaN;
}

/** `{ [key]: value }` when value is defined, else `{}` (exactOptionalPropertyTypes). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
