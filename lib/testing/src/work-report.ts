/**
 * What an agent writes into the status of a Work carrying one object: Applied, and the object's
 * reflected status and health. Tests and benchmarks that play the agents report with it.
 */
import type { ResourceHealth, Work } from '@kf/api';

/** The object a Work carries, as its manifest status identifies it. */
export interface ReportedObject {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

export function appliedWorkStatus(
  object: ReportedObject,
  report: { readonly health: ResourceHealth; readonly status: Readonly<Record<string, unknown>> },
): NonNullable<Work['status']> {
  return {
    conditions: [
      {
        type: 'Applied',
        status: 'True',
        reason: 'AppliedSuccessful',
        message: 'Manifest has been successfully applied',
        lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      },
    ],
    manifestStatuses: [
      { identifier: { ordinal: 0, resource: '', ...object }, status: report.status, health: report.health },
    ],
  };
}
