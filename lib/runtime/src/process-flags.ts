/**
 * The flags every long-running process of ours shares with Karmada's binaries: leader election
 * timings and where /metrics, /healthz and /readyz are served, plus `--log-level`. Names and
 * defaults are upstream's; a product may word the help its own way.
 */
import type { Command, Option } from 'commander';
import { parseBindAddress, type BindAddress } from './bind-address.ts';
import { DEFAULT_ENV_PREFIX, durationFlag, flag, parseLogLevel, type Problems } from './cli.ts';
import type { LogLevel } from './logger.ts';

/** How a Lease-based election paces itself, in ms. */
export interface LeaderElectionTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** client-go's defaults, which every Karmada component keeps: 15s, 10s, 2s. */
export const DEFAULT_LEADER_ELECTION_TIMINGS: LeaderElectionTimings = Object.freeze({
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
});

/** Raw commander values of the timing flags, before validation. */
export interface LeaderElectionTimingOptions {
  leaderElectLeaseDuration: number;
  leaderElectRenewDeadline: number;
  leaderElectRetryPeriod: number;
}

/** Help texts of the timing flags, where a product words them its own way. */
export interface LeaderElectionTimingHelp {
  readonly leaseDuration?: string;
  readonly renewDeadline?: string;
  readonly retryPeriod?: string;
}

/**
 * Adds `--leader-elect-lease-duration`, `--leader-elect-renew-deadline` and
 * `--leader-elect-retry-period` (Go durations, client-go's defaults) to `cmd`, in that order.
 */
export function addLeaderElectionTimingFlags(
  cmd: Command,
  help: LeaderElectionTimingHelp = {},
  envPrefix = DEFAULT_ENV_PREFIX,
): Command {
  const d = DEFAULT_LEADER_ELECTION_TIMINGS;
  return cmd
    .addOption(
      durationFlag(
        '--leader-elect-lease-duration <duration>',
        help.leaseDuration ?? 'how long followers wait before taking over',
        d.leaseDurationMs,
        { envPrefix },
      ),
    )
    .addOption(
      durationFlag(
        '--leader-elect-renew-deadline <duration>',
        help.renewDeadline ?? 'a leader that cannot renew for this long stops leading',
        d.renewDeadlineMs,
        { envPrefix },
      ),
    )
    .addOption(
      durationFlag(
        '--leader-elect-retry-period <duration>',
        help.retryPeriod ?? 'pause between election attempts',
        d.retryPeriodMs,
        { envPrefix },
      ),
    );
}

/** The timings given by the flags of {@link addLeaderElectionTimingFlags}. */
export function leaderElectionTimingsOf(o: LeaderElectionTimingOptions): LeaderElectionTimings {
  return {
    leaseDurationMs: o.leaderElectLeaseDuration,
    renewDeadlineMs: o.leaderElectRenewDeadline,
    retryPeriodMs: o.leaderElectRetryPeriod,
  };
}

/**
 * Records what client-go's elector would refuse: a lease that lapses before the leader gives up
 * renewing (two leaders at once), and a renew deadline that the last retry, delayed by client-go's
 * jitter factor of 1.2, could overshoot.
 */
export function checkLeaderElectionTimings(p: Problems, t: LeaderElectionTimings): void {
  p.check(
    t.leaseDurationMs > t.renewDeadlineMs,
    '--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline',
  );
  p.check(
    t.renewDeadlineMs > t.retryPeriodMs * 1.2,
    '--leader-elect-renew-deadline must be greater than 1.2 × --leader-elect-retry-period',
  );
}

/** How {@link addServingFlags} shapes the flags of one product. */
export interface ServingFlagsOptions {
  /** Default of `--metrics-bind-address`, e.g. `:8080`. */
  readonly metricsBindAddress: string;
  /** Default of `--health-probe-bind-address`, e.g. `:10357`. */
  readonly healthProbeBindAddress: string;
  /** Help texts, where a product words them its own way. */
  readonly help?: {
    readonly metricsBindAddress?: string;
    readonly healthProbeBindAddress?: string;
    readonly logLevel?: string;
  };
  /**
   * Parse the addresses as flags are read, so that commander reports a bad one against its flag
   * and the option holds a {@link BindAddress} (`''` for `0`). Default: the option holds the text,
   * for {@link servingConfigOf} to parse with the other problems.
   */
  readonly parseAddresses?: boolean;
  readonly envPrefix?: string;
}

/** Raw commander values of {@link addServingFlags}' flags when the addresses are kept as text. */
export interface ServingOptions {
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  logLevel: LogLevel;
}

/** Where a process serves its endpoints and how much it logs. */
export interface ServingConfig {
  /** Undefined: not served (`0`). */
  readonly metricsBindAddress: BindAddress | undefined;
  /** Undefined: not served (`0`). */
  readonly healthProbeBindAddress: BindAddress | undefined;
  readonly logLevel: LogLevel;
}

/** Adds `--metrics-bind-address`, `--health-probe-bind-address` and `--log-level` to `cmd`, in that order. */
export function addServingFlags(cmd: Command, options: ServingFlagsOptions): Command {
  const { help = {}, envPrefix = DEFAULT_ENV_PREFIX } = options;
  const address = (flags: string, description: string, defaultText: string): Option => {
    const option = flag(flags, description, envPrefix);
    if (options.parseAddresses !== true) return option.default(defaultText);
    return option.argParser(parseBindAddress).default(parseBindAddress(defaultText), defaultText);
  };
  return cmd
    .addOption(
      address(
        '--metrics-bind-address <addr>',
        help.metricsBindAddress ??
          'address of /metrics: host:port, or :port for every interface (0 disables)',
        options.metricsBindAddress,
      ),
    )
    .addOption(
      address(
        '--health-probe-bind-address <addr>',
        help.healthProbeBindAddress ??
          'address of /healthz and /readyz: host:port, or :port for every interface (0 disables)',
        options.healthProbeBindAddress,
      ),
    )
    .addOption(
      flag('--log-level <level>', help.logLevel ?? 'trace, debug, info, warn, error', envPrefix)
        .argParser(parseLogLevel)
        .default('info'),
    );
}

/** Parses the text values of {@link addServingFlags}' flags, recording bad addresses in `p`. */
export function servingConfigOf(p: Problems, o: ServingOptions): ServingConfig {
  return {
    metricsBindAddress: p.parse('--metrics-bind-address', o.metricsBindAddress, parseBindAddress, undefined),
    healthProbeBindAddress: p.parse(
      '--health-probe-bind-address',
      o.healthProbeBindAddress,
      parseBindAddress,
      undefined,
    ),
    logLevel: o.logLevel,
  };
}
