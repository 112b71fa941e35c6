/**
 * When this control-plane process first saw each cluster, on its own clock. A restarted control
 * plane has watched nothing while it was away, so the age of a Lease it finds says nothing about
 * the member: health rules count silence from first sight at the earliest. The same holds for a
 * replica that becomes leader again, and after the process lost its API server for a while (the
 * agents most likely lost it too): {@link FirstSeen.forgetAll} starts every clock afresh.
 */
export class FirstSeen {
  readonly #at = new Map<string, number>();

  /** The first time `name` was asked about; `nowMs` the first time. */
  at(name: string, nowMs: number): number {
    const seen = this.#at.get(name);
    if (seen !== undefined) return seen;
    this.#at.set(name, nowMs);
    return nowMs;
  }

  /** Forgets a deleted cluster, so that one created again under its name starts afresh. */
  forget(name: string): void {
    this.#at.delete(name);
  }

  /** Every cluster is seen for the first time again at its next look. */
  forgetAll(): void {
    this.#at.clear();
  }
}
