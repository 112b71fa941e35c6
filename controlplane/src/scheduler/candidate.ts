/**
 * A feasible cluster as selection and assignment see it (upstream's ClusterDetailInfo), and the
 * order both rely on: overflow tier, then score, then available replicas, then name.
 */
import { matchesAffinity } from './affinity.ts';
import type { ClusterView } from './cluster-view.ts';
import type { AttemptTerm } from './framework.ts';
import { compareNames } from './name-order.ts';

/** Overflow order of a cluster matching neither the term nor any of its overflow affinities. */
export const UNMATCHED_OVERFLOW_ORDER = 1000;

export interface Candidate {
  readonly cluster: ClusterView;
  /** `cluster.name`. */
  readonly name: string;
  readonly score: number;
  /** 0: the term's own affinity (or no terms); k: its k-th overflow affinity. */
  readonly overflowOrder: number;
  /** Replicas the cluster can still take (`AllocatableReplicas`). */
  readonly allocatable: number;
  /** `allocatable` plus the replicas the binding has there now (`AvailableReplicas`). */
  readonly available: number;
}

/** Overflow tier ascending, score descending, available replicas descending, name ascending. */
export function compareCandidates(a: Candidate, b: Candidate): number {
  return (
    a.overflowOrder - b.overflowOrder ||
    b.score - a.score ||
    b.available - a.available ||
    compareNames(a.name, b.name)
  );
}

/** The overflow tier a cluster belongs to under `term` (always 0 without `clusterAffinities`). */
export function overflowOrderOf(term: AttemptTerm, c: ClusterView): number {
  if (term.name === '' || term.affinity === undefined || matchesAffinity(c, term.affinity)) return 0;
  const k = term.overflow.findIndex((x) => matchesAffinity(c, x));
  return k < 0 ? UNMATCHED_OVERFLOW_ORDER : k + 1;
}
