/**
 * Scheduling failures as values. The kinds mirror upstream's error classes, which decide the
 * `Scheduled` condition's reason and how the binding is retried.
 */

/**
 * - `NoClusterFit`: every cluster was filtered out (upstream's FitError);
 * - `Unschedulable`: clusters fit but lack capacity for the replicas;
 * - `SchedulerError`: anything else (unsatisfiable spread constraints, unsupported strategy, …).
 */
export type FailureKind = 'NoClusterFit' | 'Unschedulable' | 'SchedulerError';

export interface Failure {
  readonly kind: FailureKind;
  /** Upstream's error text; it becomes the condition message. */
  readonly message: string;
}

export type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: Failure };

export function succeed<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

export function fail(kind: FailureKind, message: string): { readonly ok: false; readonly failure: Failure } {
  return { ok: false, failure: { kind, message } };
}
