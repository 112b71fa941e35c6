import { CommanderError } from 'commander';
import { ConfigError, exitCodeFor } from '@kf/runtime';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULTS, buildProbeCommand, type ProbeConfig } from './cli.ts';

const REQUIRED = [
  '--host-name=member1-node-0',
  '--cluster-name=member1',
  '--karmada-kubeconfig=/etc/karmada/kubeconfig',
];

/** Parses `args` as the probe would; resolves with the config or rejects with the error. */
async function parse(args: readonly string[]): Promise<Readonly<ProbeConfig>> {
  let config: Readonly<ProbeConfig> | undefined;
  const cmd = buildProbeCommand((cfg) => {
    config = cfg;
    return Promise.resolve();
  })
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  await cmd.parseAsync(['node', 'probe', ...args]);
  if (config === undefined) throw new Error('run was not called');
  return config;
}

async function problems(args: readonly string[]): Promise<readonly string[]> {
  const err: unknown = await parse(args).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(err)}`);
  return err.problems;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('buildProbeCommand', () => {
  it('fills in the defaults', async () => {
    vi.stubEnv('NODE_NAME', '');
    expect(await parse(REQUIRED)).toEqual({
      nodeName: 'member1-node-0',
      clusterName: 'member1',
      karmadaKubeconfig: '/etc/karmada/kubeconfig',
      names: ['kubernetes.default'],
      recordType: 'A',
      resolvConf: '/etc/resolv.conf',
      nameserverPort: 53,
      periodMs: 5_000,
      failAfterMs: 30_000,
      recoverAfterMs: 30_000,
      staleThresholdMs: 60_000,
      aggregation: { kind: 'upstream' },
      leaderElection: {
        enabled: true,
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
        namespace: 'kube-system',
        leaseName: 'cluster-problem-detector-coredns-detector',
      },
      metricsBindAddress: { port: 8080 },
      healthProbeBindAddress: { port: 8081 },
      logLevel: 'info',
    });
  });

  it('returns a frozen config', async () => {
    const cfg = await parse(REQUIRED);
    expect(Object.isFrozen(cfg)).toBe(true);
    expect(Object.isFrozen(cfg.leaderElection)).toBe(true);
  });

  it('reads every setting from its flag', async () => {
    const cfg = await parse([
      ...REQUIRED,
      '--kubeconfig=/m.kubeconfig',
      '--karmada-context=ctx',
      '--lookup-names=kubernetes.default, coredns.kube-system ,',
      '--record-type=aaaa',
      '--resolv-conf=/tmp/resolv.conf',
      '--nameserver-port=5353',
      '--dns-timeout=750ms',
      '--dns-attempts=3',
      '--coredns-detect-period=1s',
      '--coredns-failure-threshold=10s',
      '--coredns-success-threshold=20s',
      '--coredns-stale-threshold=30s',
      '--aggregation=quorum',
      '--failure-quorum=0.5',
      '--leader-elect=false',
      '--leader-elect-lease-duration=4s',
      '--leader-elect-renew-deadline=3s',
      '--leader-elect-retry-period=1s',
      '--leader-elect-resource-name=dns',
      '--leader-elect-resource-namespace=karmada-probe',
      '--metrics-bind-address=127.0.0.1:9000',
      '--health-probe-bind-address=[::1]:9001',
      '--log-level=DEBUG',
    ]);
    expect(cfg).toMatchObject({
      kubeconfig: '/m.kubeconfig',
      karmadaContext: 'ctx',
      names: ['kubernetes.default', 'coredns.kube-system'],
      recordType: 'AAAA',
      resolvConf: '/tmp/resolv.conf',
      nameserverPort: 5353,
      dnsTimeoutMs: 750,
      dnsAttempts: 3,
      periodMs: 1_000,
      failAfterMs: 10_000,
      recoverAfterMs: 20_000,
      staleThresholdMs: 30_000,
      aggregation: { kind: 'quorum', failureQuorum: 0.5 },
      leaderElection: {
        enabled: false,
        leaseDurationMs: 4_000,
        renewDeadlineMs: 3_000,
        retryPeriodMs: 1_000,
        namespace: 'karmada-probe',
        leaseName: 'dns-coredns-detector',
      },
      metricsBindAddress: { host: '127.0.0.1', port: 9000 },
      healthProbeBindAddress: { host: '::1', port: 9001 },
      logLevel: 'debug',
    });
  });

  it('reads KF_ environment variables, and a flag beats its variable', async () => {
    vi.stubEnv('KF_HOST_NAME', 'env-node');
    vi.stubEnv('KF_CLUSTER_NAME', 'member2');
    vi.stubEnv('KF_KARMADA_KUBECONFIG', '/k');
    vi.stubEnv('KF_COREDNS_DETECT_PERIOD', '2s');
    vi.stubEnv('KF_COREDNS_FAILURE_THRESHOLD', '7s');
    vi.stubEnv('KF_LEADER_ELECT', 'false');
    const cfg = await parse(['--coredns-detect-period=3s']);
    expect(cfg).toMatchObject({
      nodeName: 'env-node',
      clusterName: 'member2',
      karmadaKubeconfig: '/k',
      periodMs: 3_000,
      failAfterMs: 7_000,
    });
    expect(cfg.leaderElection.enabled).toBe(false);
  });

  it('takes the node name from NODE_NAME, as the DaemonSet sets it', async () => {
    vi.stubEnv('NODE_NAME', 'from-downward-api');
    expect((await parse(REQUIRED.slice(1))).nodeName).toBe('from-downward-api');
    expect((await parse(REQUIRED)).nodeName).toBe('member1-node-0');
  });

  it.each([
    [['--coredns-detect-period=3s'], { periodMs: 3_000 }],
    [['--coredns-failure-threshold=11s'], { failAfterMs: 11_000 }],
    [['--coredns-success-threshold=13s'], { recoverAfterMs: 13_000 }],
    [['--coredns-stale-threshold=2m'], { staleThresholdMs: 120_000 }],
    [
      ['--bind-address=0.0.0.0', '--healthz-port=8081'],
      { healthProbeBindAddress: { host: '0.0.0.0', port: 8081 } },
    ],
    [['--healthz-port=9999'], { healthProbeBindAddress: { host: '127.0.0.1', port: 9999 } }],
    [['--detectors=coredns-detector'], {}],
    [['--leader-elect'], { leaderElection: { enabled: true } }],
  ])("accepts Karmada's flags %j", async (extra, expected) => {
    expect(await parse([...REQUIRED, ...extra])).toMatchObject(expected);
  });

  it('turns a server off with 0', async () => {
    expect(await parse([...REQUIRED, '--metrics-bind-address=0'])).not.toHaveProperty('metricsBindAddress');
    expect(await parse([...REQUIRED, '--health-probe-bind-address=0'])).not.toHaveProperty(
      'healthProbeBindAddress',
    );
  });

  it("takes the node name from Karmada's --host-name", async () => {
    vi.stubEnv('NODE_NAME', '');
    expect((await parse([...REQUIRED.slice(1), '--host-name=upstream-node'])).nodeName).toBe('upstream-node');
  });

  describe('the earlier names, kept as hidden aliases', () => {
    /** Karmada's flag, an earlier name of it, and a value with its resolved setting. */
    const PAIRS: readonly (readonly [string, string, string, Partial<ProbeConfig>])[] = [
      ['--host-name', '--node-name', 'n9', { nodeName: 'n9' }],
      ['--coredns-detect-period', '--period', '3s', { periodMs: 3_000 }],
      ['--coredns-detect-period', '--detect-period', '4s', { periodMs: 4_000 }],
      ['--coredns-failure-threshold', '--fail-after', '11s', { failAfterMs: 11_000 }],
      ['--coredns-failure-threshold', '--detect-failure-threshold', '12s', { failAfterMs: 12_000 }],
      ['--coredns-success-threshold', '--recover-after', '13s', { recoverAfterMs: 13_000 }],
      ['--coredns-success-threshold', '--detect-success-threshold', '14s', { recoverAfterMs: 14_000 }],
      ['--coredns-stale-threshold', '--stale-threshold', '2m', { staleThresholdMs: 120_000 }],
    ];
    const others = (name: string): string[] => REQUIRED.filter((f) => !f.startsWith(`${name}=`));
    const env = (name: string): string => `KF_${name.slice(2).replaceAll('-', '_').toUpperCase()}`;

    it.each(PAIRS)('%s and %s set the same value', async (karmada, earlier, value, expected) => {
      vi.stubEnv('NODE_NAME', '');
      const viaKarmada = await parse([...others(karmada), `${karmada}=${value}`]);
      const viaEarlier = await parse([...others(karmada), `${earlier}=${value}`]);
      expect(viaKarmada).toMatchObject(expected);
      expect(viaEarlier).toEqual(viaKarmada);
    });

    it.each(PAIRS)('%s and %s read their own variables', async (karmada, earlier, value, expected) => {
      vi.stubEnv('NODE_NAME', '');
      vi.stubEnv(env(karmada), value);
      const viaKarmada = await parse(others(karmada));
      vi.stubEnv(env(karmada), undefined);
      vi.stubEnv(env(earlier), value);
      const viaEarlier = await parse(others(karmada));
      expect(viaKarmada).toMatchObject(expected);
      expect(viaEarlier).toEqual(viaKarmada);
    });

    it('reads KF_NODE_NAME, KF_PERIOD, KF_FAIL_AFTER, KF_RECOVER_AFTER and KF_STALE_THRESHOLD', async () => {
      vi.stubEnv('NODE_NAME', '');
      vi.stubEnv('KF_NODE_NAME', 'old-env-node');
      vi.stubEnv('KF_PERIOD', '2s');
      vi.stubEnv('KF_FAIL_AFTER', '7s');
      vi.stubEnv('KF_RECOVER_AFTER', '8s');
      vi.stubEnv('KF_STALE_THRESHOLD', '9s');
      expect(await parse(REQUIRED.slice(1))).toMatchObject({
        nodeName: 'old-env-node',
        periodMs: 2_000,
        failAfterMs: 7_000,
        recoverAfterMs: 8_000,
        staleThresholdMs: 9_000,
      });
    });

    it('any name on the command line beats any name in the environment', async () => {
      vi.stubEnv('KF_PERIOD', '9s');
      expect((await parse([...REQUIRED, '--coredns-detect-period=2s'])).periodMs).toBe(2_000);
      vi.stubEnv('KF_PERIOD', undefined);
      vi.stubEnv('KF_COREDNS_DETECT_PERIOD', '9s');
      expect((await parse([...REQUIRED, '--period=2s'])).periodMs).toBe(2_000);
    });

    it("Karmada's variable beats an earlier name's when both are set", async () => {
      vi.stubEnv('KF_PERIOD', '2s');
      vi.stubEnv('KF_DETECT_PERIOD', '3s');
      vi.stubEnv('KF_COREDNS_DETECT_PERIOD', '4s');
      expect((await parse(REQUIRED)).periodMs).toBe(4_000);
      vi.stubEnv('KF_COREDNS_DETECT_PERIOD', undefined);
      expect((await parse(REQUIRED)).periodMs).toBe(2_000);
      vi.stubEnv('NODE_NAME', '');
      vi.stubEnv('KF_NODE_NAME', 'old');
      vi.stubEnv('KF_HOST_NAME', 'new');
      expect((await parse(REQUIRED.slice(1))).nodeName).toBe('new');
    });

    it('refuses a flag given twice under both names', async () => {
      expect(await problems([...REQUIRED, '--period=1s', '--coredns-detect-period=2s'])).toEqual([
        '--coredns-detect-period and --period mean the same: give one',
      ]);
      expect(await problems([...REQUIRED, '--node-name=other'])).toEqual([
        '--host-name and --node-name mean the same: give one',
      ]);
    });
  });

  it('lists every missing required setting at once', async () => {
    vi.stubEnv('NODE_NAME', '');
    expect(await problems([])).toEqual([
      '--karmada-kubeconfig is required: the elected pod writes the Cluster condition there',
      '--host-name is required (or KF_HOST_NAME or NODE_NAME): the Node this pod runs on',
      '--cluster-name is required: the Cluster to report on',
    ]);
  });

  it.each([
    [
      ['--cluster-name=Member_1'],
      '--cluster-name: "Member_1" is not a cluster name (a DNS label of at most 48 characters)',
    ],
    [['--lookup-names=bad..name'], '--lookup-names: "bad..name" is not a valid DNS name'],
    [['--lookup-names=,'], '--lookup-names needs at least one name'],
    [['--coredns-detect-period=0s'], '--coredns-detect-period must be positive'],
    [['--period=0s'], '--coredns-detect-period must be positive'],
    [
      ['--coredns-detect-period=1m'],
      '--coredns-stale-threshold must be longer than --coredns-detect-period: a heartbeat is written at most once a period',
    ],
    [
      ['--period=1m'],
      '--coredns-stale-threshold must be longer than --coredns-detect-period: a heartbeat is written at most once a period',
    ],
    [['--dns-timeout=0s'], '--dns-timeout must be positive'],
    [
      ['--aggregation=quorum', '--failure-quorum=0'],
      '--failure-quorum must be greater than 0 (0 would report False with no failing node)',
    ],
    [
      ['--leader-elect-renew-deadline=20s'],
      'leader election timings: leaseDuration must be greater than renewDeadline (retry period × 1.2 jitter)',
    ],
    [
      ['--leader-elect-retry-period=9s'],
      'leader election timings: renewDeadline must be greater than retryPeriod × jitterFactor (retry period × 1.2 jitter)',
    ],
    [['--leader-elect-resource-lock=configmaps'], '--leader-elect-resource-lock: only "leases" is supported'],
    [['--detectors=*,-coredns-detector'], '--detectors must enable coredns-detector, the only detector'],
  ])('refuses %j', async (extra, problem) => {
    expect(
      await problems([
        ...REQUIRED.filter((f) => !extra.some((e) => e.startsWith(f.split('=')[0] ?? ''))),
        ...extra,
      ]),
    ).toEqual([problem]);
  });

  it.each([
    ['--coredns-detect-period=5', 'missing unit'],
    ['--period=5', 'missing unit'],
    ['--coredns-detect-period=700h', 'duration "700h" is too long: the maximum is 596h31m23.647s'],
    ['--period=700h', 'duration "700h" is too long: the maximum is 596h31m23.647s'],
    ['--coredns-failure-threshold=600h', 'the maximum is 596h31m23.647s'],
    ['--fail-after=600h', 'the maximum is 596h31m23.647s'],
    ['--dns-timeout=31s', 'duration "31s" is too long: the maximum is 30s'],
    ['--failure-quorum=1.5', 'not a ratio'],
    ['--nameserver-port=70000', 'not a port'],
    ['--record-type=MX', 'not A or AAAA'],
    ['--aggregation=majority', 'not upstream or quorum'],
    ['--leader-elect=maybe', 'not a boolean'],
    ['--metrics-bind-address=8080', 'is not an address like :8080 or 127.0.0.1:8080 (0 disables)'],
    ['--log-level=loud', 'not a log level'],
    ['--no-such-flag', 'unknown option'],
  ])('rejects %s as a usage error (exit code 2)', async (arg, text) => {
    const err: unknown = await parse([...REQUIRED, arg]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommanderError);
    expect((err as CommanderError).message).toContain(text);
    expect(exitCodeFor(err)).toBe(2);
  });

  it('rejects positional arguments', async () => {
    const err: unknown = await parse([...REQUIRED, 'extra']).catch((e: unknown) => e);
    expect(exitCodeFor(err)).toBe(2);
  });

  it("documents Karmada's names and hides the earlier ones", () => {
    const help = buildProbeCommand(() => Promise.resolve()).helpInformation();
    for (const f of [
      '--host-name <name>',
      '--coredns-detect-period <duration>',
      '--coredns-failure-threshold <duration>',
      '--coredns-success-threshold <duration>',
      '--coredns-stale-threshold <duration>',
      '--nameserver-port',
      '--failure-quorum',
    ]) {
      expect(help).toContain(f);
    }
    expect(help).toMatch(
      /--coredns-failure-threshold <duration>[^]*\(default: 30s, env: KF_COREDNS_FAILURE_THRESHOLD\)/,
    );
    expect(help).toMatch(/--coredns-detect-period <duration> +how often each pod resolves the names/);
    for (const hidden of [
      '--node-name',
      '--period',
      '--detect-period',
      '--fail-after',
      '--detect-failure-threshold',
      '--recover-after',
      '--detect-success-threshold',
      '--stale-threshold',
    ]) {
      expect(help).not.toMatch(new RegExp(`(^|[\\s(])${hidden}\\b`));
    }
    for (const variable of [
      'KF_NODE_NAME',
      'KF_PERIOD',
      'KF_FAIL_AFTER',
      'KF_RECOVER_AFTER',
      'KF_STALE_THRESHOLD',
    ])
      expect(help).not.toContain(variable);
  });
});

it('keeps upstream defaults in DEFAULTS', () => {
  expect(DEFAULTS).toMatchObject({
    periodMs: 5_000,
    failAfterMs: 30_000,
    recoverAfterMs: 30_000,
    staleThresholdMs: 60_000,
  });
});
