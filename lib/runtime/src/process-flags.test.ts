import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectProblems } from './cli.ts';
import { ConfigError } from './errors.ts';
import {
  DEFAULT_LEADER_ELECTION_TIMINGS,
  addLeaderElectionTimingFlags,
  addServingFlags,
  checkLeaderElectionTimings,
  leaderElectionTimingsOf,
  servingConfigOf,
  type LeaderElectionTimingOptions,
  type LeaderElectionTimings,
  type ServingFlagsOptions,
  type ServingOptions,
} from './process-flags.ts';

const ENV = [
  'KF_LEADER_ELECT_LEASE_DURATION',
  'KF_LEADER_ELECT_RENEW_DEADLINE',
  'KF_LEADER_ELECT_RETRY_PERIOD',
  'KF_METRICS_BIND_ADDRESS',
  'KF_HEALTH_PROBE_BIND_ADDRESS',
  'KF_LOG_LEVEL',
];

afterEach(() => {
  vi.unstubAllEnvs();
});

function quiet(cmd: Command): Command {
  for (const name of ENV) vi.stubEnv(name, undefined);
  return cmd
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
    .action(() => undefined);
}

/** `--help`'s option lines, one per flag, joined: flag, help and `(default…)` on one line each. */
function optionLines(cmd: Command): string[] {
  return cmd
    .helpInformation()
    .replace(/\n {20,}/g, ' ')
    .split('\n')
    .filter((l) => l.trimStart().startsWith('--'))
    .map((l) => l.trim().replace(/ {2,}/g, '  '));
}

describe('leader election timing flags', () => {
  function program(help?: Parameters<typeof addLeaderElectionTimingFlags>[1]): Command {
    return quiet(addLeaderElectionTimingFlags(new Command('p'), help));
  }

  it("have client-go's defaults, help and KF_ variables, in this order", () => {
    expect(optionLines(program())).toEqual([
      '--leader-elect-lease-duration <duration>  how long followers wait before taking over (default: 15s, env: KF_LEADER_ELECT_LEASE_DURATION)',
      '--leader-elect-renew-deadline <duration>  a leader that cannot renew for this long stops leading (default: 10s, env: KF_LEADER_ELECT_RENEW_DEADLINE)',
      '--leader-elect-retry-period <duration>  pause between election attempts (default: 2s, env: KF_LEADER_ELECT_RETRY_PERIOD)',
    ]);
  });

  it('take a product its own help words', () => {
    const help = program({ retryPeriod: 'pause between tries to acquire or renew' }).helpInformation();
    expect(help).toContain('pause between tries to acquire or renew');
    expect(help).not.toContain('pause between election attempts');
    expect(help).toContain('how long followers wait before taking over');
  });

  it('parse Go durations from flags and the environment into timings', () => {
    const cmd = program();
    vi.stubEnv('KF_LEADER_ELECT_RETRY_PERIOD', '500ms');
    const opts = cmd
      .parse(['--leader-elect-lease-duration=1m', '--leader-elect-renew-deadline', '40s'], { from: 'user' })
      .opts<LeaderElectionTimingOptions>();
    expect(leaderElectionTimingsOf(opts)).toEqual({
      leaseDurationMs: 60_000,
      renewDeadlineMs: 40_000,
      retryPeriodMs: 500,
    });
    expect(
      leaderElectionTimingsOf(program().parse([], { from: 'user' }).opts<LeaderElectionTimingOptions>()),
    ).toEqual(DEFAULT_LEADER_ELECTION_TIMINGS);
  });
});

describe('checkLeaderElectionTimings', () => {
  const LEASE = '--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline';
  const RENEW = '--leader-elect-renew-deadline must be greater than 1.2 × --leader-elect-retry-period';
  const problems = (t: LeaderElectionTimings): string[] => {
    try {
      collectProblems((p) => {
        checkLeaderElectionTimings(p, t);
        return {};
      });
      return [];
    } catch (err: unknown) {
      if (err instanceof ConfigError) return [...err.problems];
      throw err;
    }
  };

  it.each([
    ['the defaults', DEFAULT_LEADER_ELECTION_TIMINGS, []],
    ['short test timings', { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 1_000 }, []],
    [
      'a lease as long as the deadline',
      { leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
      [LEASE],
    ],
    [
      'a deadline of exactly 1.2 retries',
      { leaseDurationMs: 15_000, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 },
      [RENEW],
    ],
    [
      'a deadline just over 1.2 retries',
      { leaseDurationMs: 15_000, renewDeadlineMs: 2_401, retryPeriodMs: 2_000 },
      [],
    ],
    ['both wrong', { leaseDurationMs: 1_000, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }, [LEASE, RENEW]],
  ])('%s', (_name, timings, expected) => {
    expect(problems(timings)).toEqual(expected);
  });
});

describe('serving flags', () => {
  const AGENT: ServingFlagsOptions = { metricsBindAddress: ':8080', healthProbeBindAddress: ':10357' };

  function program(options: ServingFlagsOptions): Command {
    return quiet(addServingFlags(new Command('p'), options));
  }

  it('keep the addresses as text by default, quoted in help, for servingConfigOf to parse', () => {
    const cmd = program(AGENT);
    expect(optionLines(cmd)).toEqual([
      '--metrics-bind-address <addr>  address of /metrics: host:port, or :port for every interface (0 disables) (default: ":8080", env: KF_METRICS_BIND_ADDRESS)',
      '--health-probe-bind-address <addr>  address of /healthz and /readyz: host:port, or :port for every interface (0 disables) (default: ":10357", env: KF_HEALTH_PROBE_BIND_ADDRESS)',
      '--log-level <level>  trace, debug, info, warn, error (default: "info", env: KF_LOG_LEVEL)',
    ]);
    vi.stubEnv('KF_LOG_LEVEL', 'DEBUG');
    const opts = cmd
      .parse(['--metrics-bind-address=127.0.0.1:9090', '--health-probe-bind-address', '0'], { from: 'user' })
      .opts<ServingOptions>();
    expect(opts).toEqual({
      metricsBindAddress: '127.0.0.1:9090',
      healthProbeBindAddress: '0',
      logLevel: 'debug',
    });
    expect(collectProblems((p) => servingConfigOf(p, opts))).toEqual({
      metricsBindAddress: { host: '127.0.0.1', port: 9090 },
      healthProbeBindAddress: undefined,
      logLevel: 'debug',
    });
  });

  it('servingConfigOf names each bad address', () => {
    const opts = program(AGENT)
      .parse(['--metrics-bind-address=nope', '--health-probe-bind-address=:99999'], { from: 'user' })
      .opts<ServingOptions>();
    expect(() => collectProblems((p) => servingConfigOf(p, opts))).toThrow(
      new ConfigError([
        '--metrics-bind-address: "nope" is not an address like :8080 or 127.0.0.1:8080 (0 disables)',
        '--health-probe-bind-address: ":99999" is not an address like :8080 or 127.0.0.1:8080 (0 disables)',
      ]),
    );
  });

  it('parse the addresses while reading flags when asked, with the product its own help words', () => {
    const cmd = program({
      metricsBindAddress: ':8080',
      healthProbeBindAddress: ':8081',
      parseAddresses: true,
      help: {
        metricsBindAddress: '/metrics on host:port, :port or 0 (off)',
        logLevel: 'trace, debug, info, warn, error, fatal or silent',
      },
    });
    expect(optionLines(cmd)).toEqual([
      '--metrics-bind-address <addr>  /metrics on host:port, :port or 0 (off) (default: :8080, env: KF_METRICS_BIND_ADDRESS)',
      '--health-probe-bind-address <addr>  address of /healthz and /readyz: host:port, or :port for every interface (0 disables) (default: :8081, env: KF_HEALTH_PROBE_BIND_ADDRESS)',
      '--log-level <level>  trace, debug, info, warn, error, fatal or silent (default: "info", env: KF_LOG_LEVEL)',
    ]);
    expect(cmd.parse(['--health-probe-bind-address=[::1]:9001'], { from: 'user' }).opts()).toEqual({
      metricsBindAddress: { port: 8080 },
      healthProbeBindAddress: { host: '::1', port: 9001 },
      logLevel: 'info',
    });
    expect(() =>
      program({ ...AGENT, parseAddresses: true }).parse(['--metrics-bind-address=8080'], { from: 'user' }),
    ).toThrow(/option '--metrics-bind-address <addr>' argument '8080' is invalid/);
  });
});
