/**
 * Script failures of the work-status controller, reported once: a failing script fails again on
 * every resync and on every change of the object it judges, and an Event and a log line each time
 * would bury everything else. A failure is reported when it is new for its manifest and
 * operation, when its message changes, and again after the customizations changed; one that
 * cleared is forgotten, so that failing again is news.
 */
import type { ManifestScriptFailure } from './manifest-statuses.ts';

/** Reasons of upstream's Events for a failed interpretation (its work status controller's). */
export const scriptEventReasons = {
  InterpretHealth: 'InterpretHealthFailed',
  InterpretStatus: 'ReflectStatusFailed',
} as const;

/** The Warning Event on the Work for one failure, worded as upstream's. */
export function failureEvent(f: ManifestScriptFailure): { reason: string; message: string } {
  return f.operation === 'InterpretHealth'
    ? {
        reason: scriptEventReasons.InterpretHealth,
        message: `Interpret health of object(${f.object}) failed, err: ${f.message}.`,
      }
    : {
        reason: scriptEventReasons.InterpretStatus,
        message: `Reflect status for object(${f.object}) failed, err: ${f.message}.`,
      };
}

export class ReportedFailures {
  /** Per Work key: `ordinal/operation` → what was reported (customizations' generation and message). */
  private readonly byWork = new Map<string, Map<string, string>>();

  /**
   * The failures of a Work not reported yet, which count as reported from now on; the Work's
   * failures that are no longer there are forgotten.
   */
  fresh(
    work: string,
    failures: readonly ManifestScriptFailure[],
    generation: number,
  ): ManifestScriptFailure[] {
    const before = this.byWork.get(work);
    const now = new Map<string, string>();
    const out: ManifestScriptFailure[] = [];
    for (const f of failures) {
      const slot = `${String(f.ordinal)}/${f.operation}`;
      const signature = `${String(generation)}|${f.message}`;
      now.set(slot, signature);
      if (before?.get(slot) !== signature) out.push(f);
    }
    if (now.size === 0) this.byWork.delete(work);
    else this.byWork.set(work, now);
    return out;
  }

  /** The Work is gone: nothing of it is remembered. */
  forget(work: string): void {
    this.byWork.delete(work);
  }

  /** Works with failures remembered (tests). */
  get size(): number {
    return this.byWork.size;
  }
}
