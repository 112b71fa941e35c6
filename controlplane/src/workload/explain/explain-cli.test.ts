import type { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '@kf/runtime';
import { buildControlPlaneCommand } from '../../cli.ts';
import type { ExplainConfig } from './run.ts';

async function explainArgs(...args: string[]): Promise<ExplainConfig> {
  let got: ExplainConfig | undefined;
  const program = buildControlPlaneCommand(
    () => Promise.resolve(),
    (c) => {
      got = c;
      return Promise.resolve();
    },
  );
  const quiet = (c: Command): void => {
    c.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    c.commands.forEach(quiet);
  };
  quiet(program);
  await program.parseAsync(['explain', ...args], { from: 'user' });
  if (got === undefined) throw new Error('explain not called');
  return got;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('explain command line', () => {
  it('takes the binding and upstream defaults', async () => {
    expect(await explainArgs('default/web')).toEqual({
      kubeconfig: '',
      target: 'default/web',
      output: 'text',
      settings: {
        failoverGate: false,
        gracefulEvictionGate: true,
        statefulFailoverInjectionGate: false,
        enableTaintManager: true,
        enableNoExecuteTaintEviction: false,
        noExecuteTaintEvictionPurgeMode: 'Gracefully',
        gracefulEvictionTimeoutMs: 600_000,
      },
    });
  });

  it('reads the running control plane settings from the same flags and environment as run', async () => {
    vi.stubEnv('KF_FEATURE_GATES', 'StatefulFailoverInjection=true');
    vi.stubEnv('KF_FAILOVER', 'true');
    const c = await explainArgs(
      'web',
      '-o',
      'json',
      '--enable-taint-manager=false',
      '--graceful-eviction-timeout',
      '1m',
    );
    expect(c).toMatchObject({ target: 'web', output: 'json' });
    expect(c.settings).toMatchObject({
      failoverGate: true,
      statefulFailoverInjectionGate: true,
      enableTaintManager: false,
      enableNoExecuteTaintEviction: true,
      gracefulEvictionTimeoutMs: 60_000,
    });
  });

  it('reports every bad flag at once', async () => {
    const err = await explainArgs(
      'web',
      '-o',
      'yaml',
      '--no-execute-taint-eviction-purge-mode',
      'Never',
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toHaveLength(2);
  });
});
