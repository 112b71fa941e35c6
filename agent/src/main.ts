#!/usr/bin/env node
/**
 * Process edge of the member agent: parses the command line, builds the logger and metrics
 * registry, runs the command, turns signals into a graceful stop and errors into exit codes
 * (0 ok, 1 runtime failure, 2 bad flags or configuration).
 */
import { CommanderError } from 'commander';
import { renderAgentAccess } from '@kf/api';
import { commandFailure, reportServiceFailure, setDefaultPingInterval } from '@kf/kube';
import { connectionPingIntervalMs } from '@kf/member';
import { ConfigError, createLogger, createRegistry, onShutdownSignal } from '@kf/runtime';
import { createAgent } from './app.ts';
import { AGENT_VERSION, buildAgentCommand, throwInsteadOfExit } from './cli.ts';
import { clusterStatus, conditionClear, conditionSet } from './commands/cluster-commands.ts';
import { buildRbacCommand } from './commands/rbac-command.ts';

async function main(argv: readonly string[]): Promise<number> {
  let log = createLogger({ component: 'agent' });
  const program = throwInsteadOfExit(
    buildAgentCommand({
      run: async (config) => {
        log = createLogger({ component: 'agent', level: config.logLevel });
        setDefaultPingInterval(connectionPingIntervalMs(config));
        const registry = createRegistry({ component: 'agent', version: AGENT_VERSION });
        const shutdown = onShutdownSignal((signal, count) => {
          log.info({ signal, count }, 'shutdown signal received');
          if (count > 1) process.exit(1); // a second signal: stop waiting
        });
        try {
          await createAgent(config, { log, registry }).start(shutdown.signal);
        } finally {
          shutdown.unsubscribe();
        }
      },
      conditionSet: async (c) => {
        console.log(await conditionSet(c));
      },
      conditionClear: async (c) => {
        console.log(await conditionClear(c));
      },
      status: async (c) => {
        process.stdout.write(await clusterStatus(c));
      },
    }).addCommand(
      buildRbacCommand((c) => {
        process.stdout.write(renderAgentAccess(c.clusterName, { karmadaAgent: c.karmadaAgent }));
      }),
    ),
  );
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err: unknown) {
    // `run` is a service: once its flags are valid, a failure goes to its log and one plain line to stderr. The operator
    // commands print one line (an API server's refusal of the input exits 2, like a bad flag).
    if (program.args[0] === 'run' && !(err instanceof ConfigError) && !(err instanceof CommanderError)) {
      return reportServiceFailure(err, 'agent', log);
    }
    const failure = commandFailure(err);
    if (failure.message !== undefined) console.error(failure.message);
    return failure.exitCode;
  }
}

process.exitCode = await main(process.argv.slice(2));
