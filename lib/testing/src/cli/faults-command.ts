import { Command, type Option } from 'commander';
import { parseGoDuration } from '@kf/runtime';
import {
  faultSocketPath,
  listLinks,
  sendFaultCommand,
  withFor,
  type FaultCommand,
} from '../faults/fault-control.ts';

type Flag = (flags: string, description: string) => Option;

interface Common {
  readonly runDir: string;
}

/**
 * `federation faults …`: breaks links or processes of a federation that `failover-up --keep` runs
 * in another terminal, through the fault socket in its run folder.
 */
export function buildFaultsCommand(flag: Flag, print: (line: string) => void): Command {
  const runDir = (): Option =>
    flag('--run-dir <path>', 'the run folder printed by `failover-up --keep`').makeOptionMandatory();
  const link = (): Option =>
    flag('--link <name>', 'controlplane, agent:<member>, agent-member:<member> or probe:<member>');
  const forDuration = (): Option =>
    flag('--for <duration>', 'undo the fault after this long (Go syntax: 15s, 2m)').argParser((t) =>
      parseGoDuration(t),
    );
  const send = async (opts: Common, cmd: FaultCommand, said: string): Promise<void> => {
    await sendFaultCommand(faultSocketPath(opts.runDir), cmd);
    print(said);
  };
  const until = (forMs: number | undefined): string => (forMs === undefined ? '' : ` for ${forMs / 1000}s`);

  const faults = new Command('faults').description(
    'Cuts, blackholes or delays one link of a running failover federation, or kills its control plane.',
  );
  faults
    .command('list')
    .description('Lists the links and what each does now.')
    .addOption(runDir())
    .action(async (opts: Common) => {
      for (const l of await listLinks(faultSocketPath(opts.runDir))) {
        const mode = l.mode === 'delay' ? `delay ${l.delayMs}ms` : l.mode;
        print(`${l.name.padEnd(24)} ${mode.padEnd(12)} ${String(l.open).padStart(3)} open  → ${l.target}`);
      }
    });
  for (const op of ['cut', 'blackhole'] as const) {
    faults
      .command(op)
      .description(
        op === 'cut'
          ? 'Resets every connection of the link and each new one (clients see ECONNRESET at once).'
          : 'Swallows everything on the link: only client timeouts reveal it.',
      )
      .addOption(runDir())
      .addOption(link().makeOptionMandatory())
      .addOption(forDuration())
      .action(async (opts: Common & { link: string; for?: number }) => {
        await send(
          opts,
          { op, link: opts.link, ...withFor(opts.for) },
          `${opts.link}: ${op}${until(opts.for)}`,
        );
      });
  }
  faults
    .command('delay')
    .description('Adds latency to the link in each direction.')
    .addOption(runDir())
    .addOption(link().makeOptionMandatory())
    .addOption(
      flag('--latency <duration>', 'added per direction (Go syntax: 200ms)')
        .argParser((t) => parseGoDuration(t))
        .makeOptionMandatory(),
    )
    .addOption(forDuration())
    .action(async (opts: Common & { link: string; latency: number; for?: number }) => {
      const cmd: FaultCommand = { op: 'delay', link: opts.link, delayMs: opts.latency, ...withFor(opts.for) };
      await send(opts, cmd, `${opts.link}: +${opts.latency}ms each way${until(opts.for)}`);
    });
  faults
    .command('restore')
    .description('Forwards normally again on one link, or on every link without --link.')
    .addOption(runDir())
    .addOption(link())
    .action(async (opts: Common & { link?: string }) => {
      const cmd: FaultCommand =
        opts.link === undefined ? { op: 'restore' } : { op: 'restore', link: opts.link };
      await send(opts, cmd, `${opts.link ?? 'every link'}: restored`);
    });
  faults
    .command('kill-control-plane')
    .description('SIGKILLs the control-plane process and the control plane kube-apiserver.')
    .addOption(runDir())
    .addOption(forDuration())
    .action(async (opts: Common & { for?: number }) => {
      await send(
        opts,
        { op: 'kill-control-plane', ...withFor(opts.for) },
        `control plane killed${until(opts.for)}`,
      );
    });
  faults
    .command('resume-control-plane')
    .description('Starts the control plane kube-apiserver and the control-plane process again.')
    .addOption(runDir())
    .action(async (opts: Common) => {
      await send(opts, { op: 'resume-control-plane' }, 'control plane running and ready');
    });
  faults
    .command('restart-agent')
    .description("Stops a member's agent (SIGTERM) and starts it again.")
    .addOption(runDir())
    .addOption(flag('--member <name>', 'the member whose agent restarts').makeOptionMandatory())
    .action(async (opts: Common & { member: string }) => {
      await send(opts, { op: 'restart-agent', member: opts.member }, `agent of ${opts.member} restarted`);
    });
  return faults;
}
