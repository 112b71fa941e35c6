import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The probe's steady RSS target (MiB) that both benchmarks report against: within 4 MiB of what
 * any probe on Node pays before its own code, the `undici, leader` row of floor.bench.ts (60.5
 * MiB when the target was set).
 */
export const TARGET_RSS_MIB = 64.5;

/** What /proc says of a process's memory (MiB) and CPU time (seconds). */
export interface ProcStatus {
  readonly rssMiB: number;
  readonly anonMiB: number;
  readonly fileMiB: number;
  /** The kernel's RSS high-water mark, start-up included. */
  readonly hwmMiB: number;
  readonly cpuSeconds: number;
}

export async function procStatus(pid: number): Promise<ProcStatus> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string): number =>
    Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 'NaN') / 1024;
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(stat[11]) + Number(stat[12]); // utime + stime, fields 14 and 15
  return {
    rssMiB: kib('VmRSS'),
    anonMiB: kib('RssAnon'),
    fileMiB: kib('RssFile'),
    hwmMiB: kib('VmHWM'),
    cpuSeconds: ticks / 100,
  };
}

/** The mean RSS (MiB) of a process, sampled every `everyMs` for `ms`. */
export async function meanRssOver(pid: number, ms: number, everyMs = 250): Promise<number> {
  const samples: number[] = [];
  const sampling = setInterval(() => {
    void procStatus(pid).then(
      (p) => samples.push(p.rssMiB),
      () => undefined,
    );
  }, everyMs);
  await sleep(ms);
  clearInterval(sampling);
  return samples.length === 0
    ? (await procStatus(pid)).rssMiB
    : samples.reduce((a, v) => a + v, 0) / samples.length;
}
