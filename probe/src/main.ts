#!/usr/bin/env node
/**
 * karmada-failover-probe: the DNS health probe DaemonSet's process. Exit codes: 0 after a clean
 * shutdown (SIGTERM/SIGINT) or --help/--version, 1 on a runtime failure, 2 on bad flags or
 * configuration.
 */
import { CommanderError } from 'commander';
import {
  ConfigError,
  createLogger,
  createRegistry,
  exitCodeFor,
  onShutdownSignal,
  type Logger,
} from '@kf/runtime';
import { reportServiceFailure } from '@kf/kube';
import packageJson from '../package.json' with { type: 'json' };
import { createProbeApp } from './app.ts';
import { buildProbeCommand } from './cli.ts';

let log: Logger | undefined;

const command = buildProbeCommand(async (cfg) => {
  log = createLogger({ component: 'probe', level: cfg.logLevel });
  const registry = createRegistry({ component: 'probe', version: packageJson.version });
  const app = createProbeApp(cfg, { log, registry });
  const shutdown = onShutdownSignal((signal, count) => {
    log?.info({ signal }, count === 1 ? 'signal received; shutting down' : 'second signal; exiting now');
    if (count > 1) process.exit(1);
  });
  shutdown.signal.addEventListener('abort', () => void app.stop(), { once: true });
  try {
    await app.start(); // until stopped; rejects when a part of the probe failed
  } finally {
    shutdown.unsubscribe();
  }
}, packageJson.version).exitOverride();

/** Runs the probe until it stops, then exits with its code. */
async function main(): Promise<never> {
  try {
    await command.parseAsync(process.argv);
    log?.info('probe stopped');
    log?.flush();
    process.exit(0);
  } catch (err: unknown) {
    let code = exitCodeFor(err);
    if (err instanceof ConfigError) console.error(err.message);
    else if (!(err instanceof CommanderError)) {
      code = reportServiceFailure(err, 'probe', log ?? createLogger({ component: 'probe' }));
    }
    log?.flush();
    process.exit(code);
  }
}

// Not a top-level await: the bundle's top level (the top-level code of every module in it, in
// one function) would stay suspended for the life of the process, and with it a register for
// each of the bundle's top-level variables, about 90 KiB; once it returns, they are garbage.
void main();
