/** Cluster.status.apiEnablements and the CompleteAPIEnablements condition from member discovery. */
import {
  apiEnablementReasons,
  clusterConditionTypes,
  type APIEnablement,
  type ConditionUpdate,
} from '@kf/api';

export interface DiscoveredResource {
  /** Plural name; subresources look like `pods/status`. */
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export interface DiscoveredGroupVersion {
  /** `v1`, `apps/v1`. */
  readonly groupVersion: string;
  readonly resources: readonly DiscoveredResource[];
}

export interface Discovery {
  readonly groupVersions: readonly DiscoveredGroupVersion[];
  /** Some group could not be read (or is stale): the list may be incomplete. */
  readonly partial: boolean;
}

export interface ApiEnablementsResult {
  /** Undefined when nothing was discovered (the field is cleared). */
  readonly apiEnablements: readonly APIEnablement[] | undefined;
  readonly condition: ConditionUpdate;
}

/**
 * One entry per group version, sorted by group version; resources sorted by name, subresources
 * dropped. The condition is `Empty` when nothing was found, `Partial` when discovery failed
 * somewhere, else `Complete`.
 */
export function buildApiEnablements(discovery: Discovery): ApiEnablementsResult {
  const list = discovery.groupVersions
    .map((gv) => ({
      groupVersion: gv.groupVersion,
      resources: gv.resources
        .filter((r) => !r.name.includes('/'))
        .map((r) => ({ name: r.name, kind: r.kind }))
        .sort((a, b) => compare(a.name, b.name)),
    }))
    .sort((a, b) => compare(a.groupVersion, b.groupVersion));
  const type = clusterConditionTypes.completeAPIEnablements;
  if (list.length === 0) {
    return {
      apiEnablements: undefined,
      condition: {
        type,
        status: 'False',
        reason: apiEnablementReasons.empty,
        message: 'collected empty APIEnablements from the cluster',
      },
    };
  }
  const condition: ConditionUpdate = discovery.partial
    ? {
        type,
        status: 'False',
        reason: apiEnablementReasons.partial,
        message: `might collect partial APIEnablements(${list.length}) from the cluster`,
      }
    : {
        type,
        status: 'True',
        reason: apiEnablementReasons.complete,
        message: 'collected complete APIEnablements from the cluster',
      };
  return { apiEnablements: list, condition };
}

/** Byte order, as Go's sort of strings (not locale order). */
function compare(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
