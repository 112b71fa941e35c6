/**
 * A binding's `status.aggregatedStatus` and `FullyApplied` condition from its Works:
 * one item per Work not being deleted that its member has reported on (it has a status), sorted
 * by cluster, taken from the Work's `Applied` condition and the manifest status of the template as
 * the agent reflected it. A Work its member has not reported on yet has nothing to show, and the
 * controller is not woken when one is made (as upstream's is not): leaving it out keeps what a
 * look from scratch (a restart) writes the same as what the events built.
 */
import {
  bindingConditionMessages,
  bindingConditionTypes,
  findCondition,
  fullyAppliedReasons,
  resourceHealths,
  type AggregatedStatusItem,
  type ConditionUpdate,
  type ManifestStatus,
  type ObjectReference,
  type ResourceBinding,
  type Work,
} from '@kf/api';
import { compareNames } from '../../scheduler/name-order.ts';
import { clusterOfWork, expectedClusters } from '../binding/work-plan.ts';

export interface Aggregation {
  readonly items: readonly AggregatedStatusItem[];
  readonly fullyApplied: ConditionUpdate;
}

/** Whether a manifest status is about the template `r`. */
export function isStatusOf(s: ManifestStatus, r: ObjectReference): boolean {
  const slash = r.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : r.apiVersion.slice(0, slash);
  const version = slash < 0 ? r.apiVersion : r.apiVersion.slice(slash + 1);
  const id = s.identifier;
  return (
    (id.group ?? '') === group &&
    id.version === version &&
    id.kind === r.kind &&
    id.name === r.name &&
    (id.namespace ?? '') === (r.namespace ?? '')
  );
}

/**
 * One item per Work: not applied (with the condition's message, if any) while `Applied` is missing
 * or not True; once applied, the reflected status and health of the template's manifest, or only
 * health Unknown while the agent has reflected none.
 */
export function itemOf(w: Work, cluster: string, r: ObjectReference): AggregatedStatusItem {
  const applied = findCondition(w.status, 'Applied');
  if (applied === undefined) return { clusterName: cluster, applied: false, health: resourceHealths.unknown };
  if (applied.status !== 'True') {
    return {
      clusterName: cluster,
      applied: false,
      appliedMessage: applied.message,
      health: resourceHealths.unknown,
    };
  }
  const manifest = (w.status?.manifestStatuses ?? []).find((s) => isStatusOf(s, r));
  if (manifest?.status === undefined)
    return { clusterName: cluster, applied: true, health: resourceHealths.unknown };
  return {
    clusterName: cluster,
    applied: true,
    status: manifest.status,
    health: manifest.health ?? resourceHealths.unknown,
  };
}

/**
 * Whether the binding's status is worth writing yet. Upstream starts once the binding was scheduled
 * (`lastScheduledTime`), or once one of its Works reports a status (a binding placed by hand, with no
 * scheduler, is reported that way). A binding the scheduler has placed but whose status write the
 * cache does not show yet waits even with its new Works there: they have nothing to report, and a
 * write then, from a copy without the scheduler's status, conflicts with that write (while placing
 * 10,000 bindings, one in three did, each retried). The scheduler's status write wakes the controller
 * again, and so does each Work's status as the member reports it, so the last look sees every Work
 * that has something to report.
 */
export function readyToAggregate(b: ResourceBinding, works: readonly Work[]): boolean {
  return b.status?.lastScheduledTime !== undefined || works.some((w) => w.status !== undefined);
}

export function aggregate(b: ResourceBinding, works: readonly Work[]): Aggregation {
  const items: AggregatedStatusItem[] = [];
  for (const w of works) {
    const cluster = clusterOfWork(w);
    if (cluster === undefined || w.metadata.deletionTimestamp !== undefined || w.status === undefined)
      continue;
    items.push(itemOf(w, cluster, b.spec.resource));
  }
  items.sort((x, y) => compareNames(x.clusterName, y.clusterName));
  const expected = expectedClusters(b);
  const full =
    expected.size > 0 &&
    items.length === expected.size &&
    items.every((i) => i.applied === true && expected.has(i.clusterName));
  return {
    items,
    fullyApplied: {
      type: bindingConditionTypes.fullyApplied,
      status: full ? 'True' : 'False',
      reason: full ? fullyAppliedReasons.success : fullyAppliedReasons.failed,
      message: full ? bindingConditionMessages.fullyApplied : bindingConditionMessages.notFullyApplied,
    },
  };
}
