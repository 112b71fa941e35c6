/**
 * A process run with its wall clock ahead of or behind the host's, as a member whose clock drifted
 * or was set wrong: libfaketime (Debian's `faketime` package, installed by scripts/ensure-apt.sh)
 * preloaded with a relative offset, the monotonic clock left alone so that timers and intervals
 * keep their real length. Only programs that read the time through libc see it: Node does, Go
 * programs (karmada-agent) read the clock without libc and do not.
 */
import { access } from 'node:fs/promises';

/** How far behind the host an offset may put a process: the harness's certificates are valid from then on (pki.ts). */
export const MAX_CLOCK_BEHIND_MS = 60 * 60 * 1000;
/** How far ahead: well inside the ten years the harness's certificates are valid. */
export const MAX_CLOCK_AHEAD_MS = 365 * 24 * 60 * 60 * 1000;

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** An offset in libfaketime's relative format: a sign, a whole number and a unit (s, m, h or d). */
const OFFSET = /^([+-])(\d+)([smhd])$/;

/**
 * The offset `text` gives, in ms: `-60s` is a clock a minute behind, `+10m` ten minutes ahead,
 * `+0s` the host's clock. Throws a RangeError saying what is accepted.
 */
export function parseClockOffset(text: string): number {
  const m = OFFSET.exec(text.trim());
  if (m === null) {
    throw new RangeError(
      `clock offset "${text}": expected a sign, a whole number and a unit s, m, h or d (like -60s or +10m)`,
    );
  }
  const [, sign, amount, unit] = m as unknown as [string, '+' | '-', string, keyof typeof UNIT_MS];
  const ms = Number(amount) * UNIT_MS[unit];
  if (sign === '-' && ms > MAX_CLOCK_BEHIND_MS) {
    throw new RangeError(
      `clock offset "${text}": at most 1h behind (the harness's certificates are valid from 1h before they were issued)`,
    );
  }
  if (sign === '+' && ms > MAX_CLOCK_AHEAD_MS) {
    throw new RangeError(`clock offset "${text}": at most 365d ahead`);
  }
  return sign === '-' ? -ms : ms;
}

/**
 * The environment that runs a process with its clock `offsetMs` off the host's, given where
 * libfaketime is: what `faketime -f <offset> --exclude-monotonic` would set, without that
 * wrapper's own process (it forks and waits, so a SIGKILL meant for a crashed agent would reach the
 * wrapper and leave the agent running). Offset 0 clears the variables: the host's clock.
 * `inherited` is the LD_PRELOAD the process would get otherwise, kept after libfaketime.
 */
export function clockOffsetEnv(
  offsetMs: number,
  libfaketime: string,
  inherited?: string,
): Record<string, string | undefined> {
  if (offsetMs === 0) {
    return { LD_PRELOAD: inherited, FAKETIME: undefined, FAKETIME_DONT_FAKE_MONOTONIC: undefined };
  }
  const seconds = Math.round(offsetMs / 1000);
  return {
    LD_PRELOAD: inherited === undefined || inherited === '' ? libfaketime : `${libfaketime}:${inherited}`,
    // Seconds with a sign: libfaketime's relative format, whatever unit the caller wrote.
    FAKETIME: `${seconds < 0 ? '-' : '+'}${String(Math.abs(seconds))}s`,
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  };
}

/** Where Debian and a build from source put libfaketime (the multiarch folder first). */
const LIBFAKETIME_PATHS = [
  `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/faketime/libfaketime.so.1`,
  '/usr/lib/faketime/libfaketime.so.1',
  '/usr/local/lib/faketime/libfaketime.so.1',
];

/** The path of libfaketime; throws saying how to install it when it is missing. */
export async function findLibfaketime(): Promise<string> {
  for (const path of LIBFAKETIME_PATHS) {
    if (
      await access(path).then(
        () => true,
        () => false,
      )
    )
      return path;
  }
  throw new Error(
    `libfaketime not found (looked in ${LIBFAKETIME_PATHS.join(', ')}): run scripts/ensure-apt.sh, or install Debian's faketime package`,
  );
}

/** The environment of a process whose clock is `offset` (say `-60s`) off the host's. */
export async function clockOffsetEnvFor(offset: string): Promise<Record<string, string | undefined>> {
  const offsetMs = parseClockOffset(offset);
  const lib = offsetMs === 0 ? '' : await findLibfaketime();
  return clockOffsetEnv(offsetMs, lib, process.env.LD_PRELOAD);
}
