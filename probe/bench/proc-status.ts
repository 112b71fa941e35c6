import { readFile } from 'node:fs/promises';

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
