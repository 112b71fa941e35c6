/** One printed step: when it happened (ms since the start) and what. */
export interface TimelineEntry {
  readonly atMs: number;
  readonly what: string;
}

/** Prints steps with the time since the start and since the previous step, and keeps them. */
export class Timeline {
  private readonly startMs = performance.now();
  private lastMs = this.startMs;
  private readonly print: (line: string) => void;
  readonly entries: TimelineEntry[] = [];

  constructor(print: (line: string) => void) {
    this.print = print;
  }

  /** Prints and records a step; returns its time (ms since the start). */
  mark(what: string): number {
    const now = performance.now();
    const total = ((now - this.startMs) / 1000).toFixed(1).padStart(6);
    const step = ((now - this.lastMs) / 1000).toFixed(1).padStart(5);
    this.lastMs = now;
    const atMs = now - this.startMs;
    this.entries.push({ atMs, what });
    this.print(`[+${total}s | ${step}s] ${what}`);
    return atMs;
  }

  /** Prints a line that is not a step (a heading or a detail). */
  note(line: string): void {
    this.print(line);
  }

  /** Milliseconds since the start. */
  now(): number {
    return performance.now() - this.startMs;
  }
}
