/**
 * What the taint manager reads of a binding to decide an eviction: where it is placed, the
 * tolerations and fail-back setting in its annotations, its own failover purge mode, and whether it
 * is being deleted. Everything else a binding carries (its eviction tasks, the scheduler's and the
 * status controllers' output) changes in a failover several times per binding, each a wake that
 * decides nothing.
 */
import { isSameJson } from '@kf/api';
import type { Binding } from '../../bindings.ts';

/** Whether a modification of a binding changed what the taint manager decides from. */
export function evictionInputsChanged(b: Binding, old: Binding): boolean {
  return (
    b.metadata.deletionTimestamp !== old.metadata.deletionTimestamp ||
    !isSameJson(b.spec.clusters, old.spec.clusters) ||
    !isSameJson(b.metadata.annotations, old.metadata.annotations) ||
    !isSameJson(b.spec.failover, old.spec.failover)
  );
}
