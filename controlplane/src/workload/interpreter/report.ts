/**
 * Writes a scripted step's condition onto the binding (see script-condition.ts) when it changed,
 * guarded by the binding's resourceVersion: the conditions list is replaced whole, so a stale copy
 * must conflict rather than drop a condition another controller just wrote. A conflict is tried
 * again at once from the binding as the API server has it: the copy a controller holds is often
 * a write or two behind a freshly created binding (the scheduler places it and reports on it
 * meanwhile), and a retry through the work queue's backoff would leave the condition missing
 * for seconds. The Warning Event of a failure follows the write, so a retried write does not
 * repeat it.
 */
import { retryOnConflict, type EventRecorder } from '@kf/kube';
import { recordOnBinding, type Binding, type OwnBindingWrites } from '../../bindings.ts';
import { planScriptCondition, type ScriptOutcome, type ScriptStep } from './script-condition.ts';

export interface ReportDeps {
  /**
   * Where the condition is written: the caller's recording clients when it has them, so that the
   * watch event of this write does not wake it again.
   */
  readonly writes: Pick<OwnBindingWrites, 'client'>;
  readonly events: EventRecorder;
}

/** Returns the binding as written (or as given when nothing changed). */
export async function reportScriptOutcome(
  deps: ReportDeps,
  target: { readonly key: string; readonly b: Binding },
  result: { readonly step: ScriptStep; readonly outcome: ScriptOutcome<unknown> },
  ctx: { readonly nowMs: number; readonly signal: AbortSignal },
): Promise<Binding> {
  const { key } = target;
  const client = deps.writes.client(key);
  const { signal } = ctx;
  return retryOnConflict(
    async (attempt) => {
      const b = attempt === 0 ? target.b : await client.get(key, { signal });
      const plan = planScriptCondition(b.status?.conditions, result.step, result.outcome, ctx.nowMs);
      if (plan === undefined) return b;
      const written = await client.patchStatus(
        key,
        {
          metadata: { resourceVersion: b.metadata.resourceVersion },
          status: { conditions: plan.conditions },
        },
        { signal },
      );
      if (plan.event !== undefined) recordOnBinding(deps.events, b, { type: 'Warning', ...plan.event });
      return written;
    },
    { signal },
  );
}

/** What a reconcile throws for a failed script, so that the runner retries it with backoff. */
export class ScriptFailedError extends Error {
  constructor(step: ScriptStep, message: string) {
    super(`${step} failed: ${message}`);
    this.name = 'ScriptFailedError';
  }
}

/** The error to throw for `outcome`, if it failed. */
export function scriptFailure(step: ScriptStep, outcome: ScriptOutcome<unknown>): Error | undefined {
  return outcome.kind === 'failed' ? new ScriptFailedError(step, outcome.message) : undefined;
}
