#!/usr/bin/env node
/**
 * Process edge of the control plane: parses the command line, builds the logger and metrics
 * registry, runs, turns signals into a graceful stop and errors into exit codes (0 ok, 1 runtime
 * failure, 2 bad flags or configuration).
 */
import { CommanderError } from 'commander';
import { commandFailure, reportServiceFailure, setDefaultPingInterval } from '@kf/kube';
import { connectionPingIntervalMs } from '@kf/member';
import { ConfigError, createLogger, createRegistry, onShutdownSignal } from '@kf/runtime';
import { createControlPlane, loadControlPlaneKubeConfig } from './app.ts';
import { CONTROLPLANE_VERSION, buildControlPlaneCommand } from './cli.ts';
import { buildJoinCommand, buildUnjoinCommand } from './join/join-command.ts';
import { runJoin, runUnjoin } from './join/run.ts';
import { BindingNotFoundError, explain, type ExplainConfig } from './workload/explain/run.ts';

const COMPONENT = 'controlplane';

async function main(argv: readonly string[]): Promise<number> {
  let log = createLogger({ component: COMPONENT });
  const program = buildControlPlaneCommand(async (config) => {
    log = createLogger({ component: COMPONENT, level: config.logLevel });
    // Push members' connections (HTTP/2) are checked on the Push Lease's timing.
    setDefaultPingInterval(connectionPingIntervalMs(config));
    const registry = createRegistry({ component: COMPONENT, version: CONTROLPLANE_VERSION });
    const shutdown = onShutdownSignal((signal, count) => {
      log.info({ signal, count }, 'shutdown signal received');
      if (count > 1) process.exit(1); // a second signal: stop waiting
    });
    try {
      await createControlPlane(config, { log, registry }).start(shutdown.signal);
    } finally {
      shutdown.unsubscribe();
    }
  }, runExplain)
    .addCommand(buildJoinCommand(runJoin))
    .addCommand(buildUnjoinCommand(runUnjoin));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err: unknown) {
    // `run` is a service: once its flags are valid, a failure goes to its log and one plain line to stderr. `explain`, `join` and `unjoin` print
    // one line (an API server's refusal of the input exits 2, like a bad flag).
    if (program.args[0] === 'run' && !(err instanceof ConfigError) && !(err instanceof CommanderError)) {
      return reportServiceFailure(err, 'control plane', log);
    }
    const failure = commandFailure(err);
    if (failure.message !== undefined) console.error(failure.message);
    return failure.exitCode;
  }
}

/** `explain`: prints the report on stdout; an unknown binding is a bad argument (exit 2). */
async function runExplain(config: ExplainConfig): Promise<void> {
  const kc = loadControlPlaneKubeConfig(config.kubeconfig);
  try {
    const { explanation, text } = await explain(kc, config, Date.now());
    process.stdout.write(config.output === 'json' ? `${JSON.stringify(explanation, null, 2)}\n` : text);
  } catch (err: unknown) {
    if (err instanceof BindingNotFoundError) throw new ConfigError([err.message]);
    throw err;
  }
}

process.exitCode = await main(process.argv.slice(2));
