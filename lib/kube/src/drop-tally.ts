/**
 * When to tell of things dropped, as a full queue drops them: once when dropping starts, then at
 * most once per interval with how many went since the last word. A queue that stays at its limit
 * keeps and drops by turns (each write frees one slot); the word still comes once per interval,
 * and what is left untold once dropping stops is told with the next thing kept after the interval,
 * or when asked for (a stopping process). A recorder that logged every drop wrote a log line per
 * Event it could not keep: 40,000 lines, and about 5 s of CPU, while 10,000 new bindings were placed.
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
    return this.due(nowMs) ? this.tell(nowMs) : undefined;
  }

  /** Something kept at `nowMs`: how many drops to tell of now, if any went untold and it is time. */
  kept(nowMs: number): number | undefined {
    return this.untold > 0 && this.due(nowMs) ? this.tell(nowMs) : undefined;
  }

  /** Whatever went untold, now (undefined when nothing did). */
  rest(nowMs: number): number | undefined {
    return this.untold > 0 ? this.tell(nowMs) : undefined;
  }

  private due(nowMs: number): boolean {
    return this.toldAtMs === undefined || nowMs - this.toldAtMs >= this.intervalMs;
  }

  private tell(nowMs: number): number {
    const n = this.untold;
    this.untold = 0;
    this.toldAtMs = nowMs;
    return n;
  }
}
