import { CommanderError, type Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, exitCodeFor } from '@kf/runtime';
import {
  buildControlPlaneCommand,
  isControllerEnabled,
  parseControllers,
  parseFeatureGates,
  type ControlPlaneConfig,
} from './cli.ts';

function program(calls: { config?: ControlPlaneConfig }): Command {
  const cmd = buildControlPlaneCommand((c) => {
    calls.config = c;
    return Promise.resolve();
  });
  const quiet = (c: Command): void => {
    c.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    c.commands.forEach(quiet);
  };
  quiet(cmd);
  return cmd;
}

async function run(...args: string[]): Promise<ControlPlaneConfig> {
  const calls: { config?: ControlPlaneConfig } = {};
  await program(calls).parseAsync(['run', ...args], { from: 'user' });
  if (calls.config === undefined) throw new Error('run not called');
  return calls.config;
}

async function failure(...args: string[]): Promise<unknown> {
  return run(...args).then(
    () => undefined,
    (err: unknown) => err,
  );
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('controlplane run', () => {
  it("has karmada-controller-manager's defaults, failover off", async () => {
    expect(await run()).toMatchObject({
      kubeconfig: '',
      clusterMonitorPeriodMs: 5_000,
      clusterMonitorGracePeriodMs: 40_000,
      clusterStartupGracePeriodMs: 60_000,
      gracefulEvictionTimeoutMs: 600_000,
      enableTaintManager: true,
      enableNoExecuteTaintEviction: false,
      noExecuteTaintEvictionPurgeMode: 'Gracefully',
      evictionPacing: { ratePerSecond: 50, burst: 100 },
      eventPace: { ratePerSecond: 50, burst: 100, busyRatePerSecond: 5 },
      failBackMaxInFlight: 10,
      featureGates: { Failover: false, GracefulEviction: true },
      controllers: ['*'],
      leaderElection: { enabled: true, namespace: 'karmada-system', leaseDurationMs: 15_000 },
      metricsBindAddress: { port: 8080 },
      healthProbeBindAddress: { port: 10357 },
      logLevel: 'info',
    });
  });

  it('--failover turns on the gate, the taint manager and NoExecute eviction', async () => {
    expect(await run('--failover')).toMatchObject({
      enableTaintManager: true,
      enableNoExecuteTaintEviction: true,
      featureGates: { Failover: true },
    });
  });

  it('explicit upstream flags and gates win over --failover', async () => {
    const c = await run(
      '--failover',
      '--enable-no-execute-taint-eviction=false',
      '--feature-gates=Failover=false',
    );
    expect(c.enableNoExecuteTaintEviction).toBe(false);
    expect(c.featureGates.Failover).toBe(false);
  });

  it('reads every flag from a KF_ variable, and a flag beats it', async () => {
    vi.stubEnv('KF_CLUSTER_MONITOR_GRACE_PERIOD', '1m30s');
    vi.stubEnv('KF_NO_EXECUTE_TAINT_EVICTION_PURGE_MODE', 'Directly');
    vi.stubEnv('KF_FAILOVER', 'true');
    vi.stubEnv('KF_RESOURCE_EVICTION_RATE', '0.5');
    vi.stubEnv('KF_FAIL_BACK_MAX_IN_FLIGHT', '3');
    const c = await run('--resource-eviction-rate=2');
    expect(c.failBackMaxInFlight).toBe(3);
    expect(c.clusterMonitorGracePeriodMs).toBe(90_000);
    expect(c.noExecuteTaintEvictionPurgeMode).toBe('Directly');
    expect(c.featureGates.Failover).toBe(true);
    expect(c.evictionPacing.ratePerSecond).toBe(2);
  });

  it('paces Events by --event-qps and --event-burst; 0 lifts the pace', async () => {
    vi.stubEnv('KF_EVENT_BURST', '7');
    expect((await run('--event-qps=0')).eventPace).toEqual({
      ratePerSecond: 0,
      burst: 7,
      busyRatePerSecond: 5,
    });
    await expect(run('--event-burst=0')).rejects.toThrow(/event-burst/);
    await expect(run('--event-qps=-1')).rejects.toThrow(/event-qps/);
  });

  it('slows Events to --event-busy-qps while the controllers hold a backlog; 0 keeps the pace', async () => {
    vi.stubEnv('KF_EVENT_BUSY_QPS', '2');
    expect((await run()).eventPace.busyRatePerSecond).toBe(2);
    expect((await run('--event-busy-qps=0')).eventPace.busyRatePerSecond).toBe(0);
    await expect(run('--event-busy-qps=-1')).rejects.toThrow(/event-busy-qps/);
  });

  it('accepts the deprecated --failover-eviction-timeout', async () => {
    await expect(run('--failover-eviction-timeout=5m')).resolves.toBeDefined();
  });

  it('reports every problem at once as a configuration error (exit code 2)', async () => {
    const err = await failure(
      '--failover',
      '--no-execute-taint-eviction-purge-mode=Never',
      '--feature-gates=Nope=true',
      '--fleet-guard-resume-threshold=0.9',
      '--metrics-bind-address=nope',
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toHaveLength(4);
    expect(exitCodeFor(err)).toBe(2);
  });

  it('refuses malformed flag values as usage errors (exit code 2)', async () => {
    const err = await failure('--cluster-monitor-period=5 seconds');
    expect(err).toBeInstanceOf(CommanderError);
    expect(exitCodeFor(err)).toBe(2);
  });

  it.each([
    '--cluster-monitor-period=700h',
    '--cluster-monitor-grace-period=700h',
    '--graceful-eviction-timeout=1000h',
    '--leader-elect-lease-duration=700h',
  ])('refuses %s, longer than a timer can wait, naming the maximum', async (arg) => {
    const err = await failure(arg);
    expect(err).toBeInstanceOf(CommanderError);
    expect((err as CommanderError).message).toContain('is too long: the maximum is 596h31m23.647s');
    expect(exitCodeFor(err)).toBe(2);
  });
});

describe('explain <binding>', () => {
  async function explainFailure(target: string): Promise<unknown> {
    const cmd = buildControlPlaneCommand(
      () => Promise.resolve(),
      () => Promise.resolve(),
    );
    cmd.commands.forEach((c) => c.configureOutput({ writeErr: () => undefined, writeOut: () => undefined }));
    return cmd.parseAsync(['explain', target], { from: 'user' }).then(
      () => undefined,
      (err: unknown) => err,
    );
  }

  it.each([
    ['', '<binding> is empty'],
    ['  ', '<binding> is empty'],
    ['a/b/c', 'has more than one "/"'],
    ['/web', '"" is not a namespace name'],
    ['default/', '"" is not an object name'],
    ['Default/web', '"Default" is not a namespace name'],
    ['default/Web_1', '"Web_1" is not an object name'],
  ])('refuses %j with a sentence and exit code 2', async (target, text) => {
    const err = await explainFailure(target);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain(text);
    expect(exitCodeFor(err)).toBe(2);
  });

  it.each(['default/web-deployment', 'nginx-clusterrole', 'kube-system/coredns.v1'])(
    'accepts %j',
    async (target) => {
      expect(await explainFailure(target)).toBeUndefined();
    },
  );
});

describe('--controllers', () => {
  it.each([
    [['*'], 'taint-manager', true],
    [['*', '-taint-manager'], 'taint-manager', false],
    [['-taint-manager', '*'], 'taint-manager', false],
    [['cluster'], 'taint-manager', false],
    [['cluster'], 'cluster', true],
  ] as const)('%j enables %s: %s', (entries, name, expected) => {
    expect(isControllerEnabled(entries, name)).toBe(expected);
  });

  it('takes kebab-case names only', () => {
    expect(parseControllers('*, -taint-manager,cluster-health')).toEqual([
      '*',
      '-taint-manager',
      'cluster-health',
    ]);
    expect(() => parseControllers('taintManager')).toThrow(/kebab-case/);
  });
});

describe('--feature-gates', () => {
  it('parses Gate=bool pairs and refuses unknown gates', () => {
    expect(parseFeatureGates('Failover=true,GracefulEviction=false')).toEqual({
      Failover: true,
      GracefulEviction: false,
    });
    expect(() => parseFeatureGates('Failover')).toThrow(/Failover=true/);
    expect(() => parseFeatureGates('Bogus=true')).toThrow(/unknown feature gate/);
  });
});
