/**
 * When to tell of things dropped, as a full queue drops them: once when dropping starts, then at
 * most once per interval with how many went since the last word, and once more when it stops, with
 * what is left untold. A recorder that logged every drop wrote a log line per Event it could not
 * keep: 40,000 lines, and about 5 s of CPU, while 10,000 new bindings were placed.
 */
export class DropTally {
  private readonly intervalMs: number;
  private untold = 0;
  private toldAtMs: number | undefined;

  constructor(intervalMs: number) {
    this.intervalMs = intervalMs;
  }

  /** One more dropped at `nowMs`: how many to tell of now, or undefined to stay quiet. */
  dropped(nowMs: number): number | undefined {
    this.untold++;
    if (this.toldAtMs !== undefined && nowMs - this.toldAtMs < this.intervalMs) return undefined;
    return this.tell(nowMs);
  }

  /**
   * Something was kept again: dropping stopped. How many went untold since the last word, if any;
   * the next drop is then told at once.
   */
  kept(): number | undefined {
    if (this.toldAtMs === undefined && this.untold === 0) return undefined;
    const untold = this.untold;
    this.untold = 0;
    this.toldAtMs = undefined;
    return untold === 0 ? undefined : untold;
  }

  private tell(nowMs: number): number {
    const n = this.untold;
    this.untold = 0;
    this.toldAtMs = nowMs;
    return n;
  }
}
