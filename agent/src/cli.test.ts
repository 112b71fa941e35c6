import { CommanderError, type Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '@kf/runtime';
import {
  buildAgentCommand,
  throwInsteadOfExit,
  type AgentCommands,
  type ConditionSetConfig,
  type RunConfig,
} from './cli.ts';

function program(): { cmd: Command; calls: { run?: RunConfig; set?: ConditionSetConfig } } {
  const calls: { run?: RunConfig; set?: ConditionSetConfig } = {};
  const commands: AgentCommands = {
    run: (c) => {
      calls.run = c;
      return Promise.resolve();
    },
    conditionSet: (c) => {
      calls.set = c;
      return Promise.resolve();
    },
    conditionClear: () => Promise.resolve(),
    status: () => Promise.resolve(),
  };
  const cmd = throwInsteadOfExit(buildAgentCommand(commands));
  const quiet = (c: Command): void => {
    c.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    c.commands.forEach(quiet);
  };
  quiet(cmd);
  return { cmd, calls };
}

async function run(...args: string[]): Promise<RunConfig> {
  const p = program();
  await p.cmd.parseAsync(['run', ...args], { from: 'user' });
  if (p.calls.run === undefined) throw new Error('run not called');
  return p.calls.run;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('agent run', () => {
  it("has karmada-agent's defaults, but reports no credential secrets", async () => {
    const c = await run('--cluster-name=member1');
    expect(c).toMatchObject({
      clusterName: 'member1',
      clusterNamespace: 'karmada-cluster',
      fenceRecordNamespace: 'karmada-system',
      clusterStatusUpdateFrequencyMs: 10_000,
      clusterLeaseDurationMs: 40_000,
      clusterLeaseRenewIntervalFraction: 0.25,
      clusterSuccessThresholdMs: 30_000,
      clusterFailureThresholdMs: 30_000,
      clusterCacheSyncTimeoutMs: 120_000,
      concurrentWorkSyncs: 5,
      enableClusterResourceModeling: true,
      controllers: ['clusterStatus', 'execution', 'workStatus'],
      reportSecrets: { credentials: false, impersonator: false },
      leaderElection: {
        enabled: true,
        namespace: 'karmada-system',
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
      },
      metricsBindAddress: { port: 8080 },
      healthProbeBindAddress: { port: 10357 },
      logLevel: 'info',
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads every flag from KF_ variables; a flag beats the variable', async () => {
    vi.stubEnv('KF_CLUSTER_NAME', 'from-env');
    vi.stubEnv('KF_CLUSTER_FAILURE_THRESHOLD', '1m30s');
    vi.stubEnv('KF_LEADER_ELECT', 'false');
    vi.stubEnv('KF_CLUSTER_ZONES', 'a, b');
    vi.stubEnv('KF_REPORT_SECRETS', 'KubeCredentials');
    const c = await run('--cluster-failure-threshold=5s');
    expect(c).toMatchObject({
      clusterName: 'from-env',
      reportSecrets: { credentials: true, impersonator: false },
      clusterFailureThresholdMs: 5_000,
      clusterZones: ['a', 'b'],
      leaderElection: { enabled: false },
    });
  });

  it('accepts Go-style booleans and `--flag` alone meaning true', async () => {
    expect((await run('--cluster-name=m', '--leader-elect=false')).leaderElection.enabled).toBe(false);
    expect(
      (await run('--cluster-name=m', '--enable-cluster-resource-modeling')).enableClusterResourceModeling,
    ).toBe(true);
    expect(
      (await run('--cluster-name=m', '--enable-cluster-resource-modeling=0')).enableClusterResourceModeling,
    ).toBe(false);
  });

  it('reports every configuration problem at once', async () => {
    const err = await run(
      '--cluster-name=Not_A_Label',
      '--cluster-lease-renew-interval-fraction=1',
      '--leader-elect-renew-deadline=20s',
      '--controllers=*,-nope',
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      expect.stringMatching(/^--cluster-name must be a DNS label/),
      expect.stringMatching(/^--cluster-lease-renew-interval-fraction must be between 0 and 1/),
      expect.stringMatching(
        /^--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline/,
      ),
      expect.stringMatching(/^--controllers: unknown controller\(s\) -nope/),
    ]);
  });

  it.each<[string, { credentials: boolean; impersonator: boolean }]>([
    ['--report-secrets=KubeImpersonator', { credentials: false, impersonator: true }],
    ['--report-secrets=KubeCredentials, KubeImpersonator', { credentials: true, impersonator: true }],
    ['--report-secrets=None', { credentials: false, impersonator: false }],
  ])('%s', async (arg, expected) => {
    expect((await run('--cluster-name=m', arg)).reportSecrets).toEqual(expected);
  });

  it('refuses unknown --report-secrets values at start-up, with the valid ones', async () => {
    const err = await run('--cluster-name=m', '--report-secrets=KubeCredentials,Everything').catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      '--report-secrets: unknown value(s) "Everything" (valid: KubeCredentials, KubeImpersonator, None)',
    ]);
  });

  it.each([
    ['', /--cluster-name is required/],
    ['a'.repeat(49), /at most 48 characters/],
  ])('refuses cluster name %j', async (name, why) => {
    await expect(run(`--cluster-name=${name}`)).rejects.toThrow(why);
  });

  it('refuses a bad duration as a usage error (exit code 2)', async () => {
    const err = await run('--cluster-name=m', '--cluster-lease-duration=10').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommanderError);
    expect((err as CommanderError).message).toMatch(/missing unit/);
  });
});

describe('agent condition set', () => {
  it('passes the condition through', async () => {
    const p = program();
    await p.cmd.parseAsync(
      ['condition', 'set', '--cluster=member1', '--type=Maintenance', '--status=False', '--reason=Done'],
      { from: 'user' },
    );
    expect(p.calls.set).toMatchObject({
      cluster: 'member1',
      type: 'Maintenance',
      status: 'False',
      reason: 'Done',
      message: '',
    });
  });

  it.each([
    [['--type=T', '--status=True', '--reason=R'], /required option '--cluster <name>'/],
    [['--cluster=m', '--type=T', '--status=yes', '--reason=R'], /"yes" is not one of True, False, Unknown/],
  ])('refuses %j', async (args, why) => {
    await expect(program().cmd.parseAsync(['condition', 'set', ...args], { from: 'user' })).rejects.toThrow(
      why,
    );
  });

  it.each([
    ['condition', 'set', '--cluster=Bad_Name', '--type=T', '--status=True', '--reason=R'],
    ['condition', 'clear', '--cluster=Bad_Name', '--type=T'],
    ['status', '--cluster=Bad_Name'],
  ])(
    'refuses a bad --cluster with a sentence saying why, before contacting anything: %s %s',
    async (...argv) => {
      const err: unknown = await program()
        .cmd.parseAsync(argv, { from: 'user' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toBe(
        'invalid configuration: --cluster "Bad_Name" must be a DNS label: lower-case letters, digits and "-", starting and ending with a letter or digit',
      );
    },
  );
});

describe('durations', () => {
  it.each([
    ['--cluster-lease-duration=700h'],
    ['--cluster-status-update-frequency=700h'],
    ['--cluster-cache-sync-timeout=600h'],
  ])('refuses %s, longer than a timer can wait', async (arg) => {
    const err: unknown = await run('--cluster-name=m', arg).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommanderError);
  });

  it('names the maximum', async () => {
    const err: unknown = await run('--cluster-name=m', '--cluster-lease-duration=700h').catch(
      (e: unknown) => e,
    );
    expect((err as CommanderError).message).toContain('the maximum is 596h31m23.647s');
  });
});
