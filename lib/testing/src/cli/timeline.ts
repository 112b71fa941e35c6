/** Prints steps with the time since the start and since the previous step. */
export class Timeline {
  private readonly startMs = performance.now();
  private lastMs = this.startMs;
  private readonly print: (line: string) => void;

  constructor(print: (line: string) => void) {
    this.print = print;
  }

  mark(what: string): void {
    const now = performance.now();
    const total = ((now - this.startMs) / 1000).toFixed(1).padStart(6);
    const step = ((now - this.lastMs) / 1000).toFixed(1).padStart(5);
    this.lastMs = now;
    this.print(`[+${total}s | ${step}s] ${what}`);
  }
}
