import { Command, Option } from 'commander';
import { runDemo } from '../demo/demo.ts';
import { killRun } from '../federation.ts';
import { runFailoverUp } from './failover-up.ts';
import { buildFaultsCommand } from './faults-command.ts';
import { runFederationUp } from './federation-up.ts';

/** Every flag reads an environment variable named after it: --members → KF_MEMBERS. */
function flag(flags: string, description: string): Option {
  const long = /--([a-z0-9-]+)/.exec(flags)?.[1] ?? '';
  return new Option(flags, description).env(`KF_${long.replaceAll('-', '_').toUpperCase()}`);
}

function positiveInt(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive whole number, got '${text}'`);
  return n;
}

const program = new Command('federation')
  .description('Brings a local Karmada-style federation up on loopback: a control plane and member clusters.')
  .showHelpAfterError();

program
  .command('demo')
  .description(
    'Brings up 3 members with agents and DNS probes, the control plane with --failover and a Prometheus scraping ' +
      'them all; plays a cluster failover (nginx divided member1:1, member2:2; member1 lost and back) and a DNS ' +
      'outage remedied by TrafficControl, printing a timeline; runs every dashboard query against Prometheus; ' +
      'then tears everything down (or, with --keep, waits for Ctrl-C).',
  )
  .addOption(
    flag('--nodes <n>', 'KWOK nodes per member, each with a DNS probe').argParser(positiveInt).default(2),
  )
  .addOption(
    flag('--run-dir <path>', 'folder for kubeconfigs, logs and data (default: a new folder under .run/)'),
  )
  .addOption(flag('--keep', 'keep everything running after the demo until Ctrl-C').default(false))
  .action(async (opts: { nodes: number; runDir?: string; keep: boolean }) => {
    const report = await runDemo({
      ...opts,
      print: (line) => {
        console.log(line);
      },
    });
    if (report.dashboards.some((q) => q.error !== undefined)) process.exitCode = 1;
  });

program
  .command('up')
  .description(
    'Starts the control plane (CRDs installed) and members with KWOK nodes, rolls a Deployment out on every member, ' +
      'prints a timeline, then tears everything down (or, with --keep, waits for Ctrl-C).',
  )
  .addOption(flag('--members <n>', 'number of member clusters').argParser(positiveInt).default(2))
  .addOption(flag('--nodes <n>', 'KWOK nodes per member').argParser(positiveInt).default(3))
  .addOption(
    flag('--run-dir <path>', 'folder for kubeconfigs, logs and data (default: a new folder under .run/)'),
  )
  .addOption(flag('--keep', 'keep the federation running until Ctrl-C').default(false))
  .action(async (opts: { members: number; nodes: number; runDir?: string; keep: boolean }) => {
    await runFederationUp({
      ...opts,
      print: (line) => {
        console.log(line);
      },
    });
  });

program
  .command('failover-up')
  .description(
    'Starts the federation with a member agent per member, the control plane with --failover and the default ' +
      'ClusterTaintPolicy, waits until every Cluster is Ready, then tears everything down (or, with --keep, waits for Ctrl-C).',
  )
  .addOption(flag('--members <n>', 'number of member clusters').argParser(positiveInt).default(2))
  .addOption(flag('--nodes <n>', 'KWOK nodes per member').argParser(positiveInt).default(1))
  .addOption(
    flag('--run-dir <path>', 'folder for kubeconfigs, logs and data (default: a new folder under .run/)'),
  )
  .addOption(flag('--keep', 'keep the federation running until Ctrl-C').default(false))
  .action(async (opts: { members: number; nodes: number; runDir?: string; keep: boolean }) => {
    await runFailoverUp({
      ...opts,
      print: (line) => {
        console.log(line);
      },
    });
  });

program.addCommand(
  buildFaultsCommand(flag, (line) => {
    console.log(line);
  }),
);

program
  .command('down')
  .description('Stops every process of a federation started in another terminal.')
  .addOption(flag('--run-dir <path>', 'the run folder printed by `up`').makeOptionMandatory())
  .action(async (opts: { runDir: string }) => {
    const n = await killRun(opts.runDir);
    console.log(`sent SIGTERM to ${n} processes of ${opts.runDir}`);
  });

try {
  await program.parseAsync();
} catch (err: unknown) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
