/**
 * Whether a member serves a resource type, from what its agent reports: `status.apiEnablements`
 * and the `CompleteAPIEnablements` condition. Listed means enabled. Not listed means disabled only
 * when the list is complete; an agent whose discovery failed for some group versions reports a
 * partial list (condition False), and then a type it does not list may still be served: unknown.
 */
import { isConditionTrue } from './conditions.ts';
import { clusterConditionTypes, type APIEnablement, type ClusterStatus } from './cluster.ts';

export type APIEnablementStatus = 'Enabled' | 'Disabled' | 'Unknown';

/** Whether `status.apiEnablements` lists `kind` in `apiVersion`. */
export function listsAPI(enablements: readonly APIEnablement[], apiVersion: string, kind: string): boolean {
  return enablements.some(
    (e) => e.groupVersion === apiVersion && (e.resources ?? []).some((r) => r.kind === kind),
  );
}

/** Whether the member's API list is complete (`CompleteAPIEnablements` is True). */
export function hasCompleteAPIList(status: ClusterStatus | undefined): boolean {
  return isConditionTrue(status?.conditions, clusterConditionTypes.completeAPIEnablements);
}

/** Enabled when listed; Disabled when not listed in a complete list; else Unknown. */
export function apiEnablementOf(
  status: ClusterStatus | undefined,
  apiVersion: string,
  kind: string,
): APIEnablementStatus {
  if (listsAPI(status?.apiEnablements ?? [], apiVersion, kind)) return 'Enabled';
  return hasCompleteAPIList(status) ? 'Disabled' : 'Unknown';
}
