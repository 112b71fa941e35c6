import {
  serviceDomainNameResolutionMessages as messages,
  serviceDomainNameResolutionReasons as reasons,
} from '@kf/api';
import type { NodeVerdict } from './staleness.ts';

/**
 * How node verdicts become the cluster's condition:
 * - `upstream` (Karmada's rule): report only when every Ready node has a fresh verdict; False
 *   only when all of them fail;
 * - `quorum`: False when at least `failureQuorum` (0 < q ≤ 1) of the Ready nodes with a fresh
 *   verdict fail; nodes without one are left out and counted in the message.
 */
export type AggregationMode =
  { readonly kind: 'upstream' } | { readonly kind: 'quorum'; readonly failureQuorum: number };

/** One node as aggregation sees it. */
export interface NodeView {
  readonly name: string;
  /** The Node's own `Ready` condition is True; other nodes are not counted at all. */
  readonly ready: boolean;
  readonly verdict: NodeVerdict;
}

export interface NodeCounts {
  /** Ready nodes. */
  readonly ready: number;
  readonly failed: number;
  readonly succeeded: number;
  readonly unknown: number;
}

export type SkipReason = 'NoReadyNodes' | 'UnknownNodes' | 'NoKnownNodes';

export type ClusterVerdict =
  | { readonly kind: 'skip'; readonly reason: SkipReason; readonly counts: NodeCounts }
  | {
      readonly kind: 'report';
      readonly status: 'True' | 'False';
      readonly reason: string;
      readonly message: string;
      readonly counts: NodeCounts;
    };

/**
 * Decides the cluster's `ServiceDomainNameResolutionReady` condition from the node verdicts, or
 * that nothing is to be reported (no Ready nodes; in upstream mode any Unknown; in quorum mode
 * no known node). Messages are exact and contain counts only in quorum mode, so upstream mode
 * writes the very texts Karmada's detector writes.
 */
export function decideClusterVerdict(nodes: readonly NodeView[], mode: AggregationMode): ClusterVerdict {
  const counts = countVerdicts(nodes);
  if (counts.ready === 0) return { kind: 'skip', reason: 'NoReadyNodes', counts };
  switch (mode.kind) {
    case 'upstream': {
      if (counts.unknown > 0) return { kind: 'skip', reason: 'UnknownNodes', counts };
      const failed = counts.failed === counts.ready;
      return failed
        ? { kind: 'report', status: 'False', reason: reasons.failed, message: messages.failed, counts }
        : { kind: 'report', status: 'True', reason: reasons.ready, message: messages.ready, counts };
    }
    case 'quorum': {
      const known = counts.failed + counts.succeeded;
      if (known === 0) return { kind: 'skip', reason: 'NoKnownNodes', counts };
      // The epsilon keeps 0.3 × 10 from missing 3 by a rounding error.
      const failed = counts.failed >= mode.failureQuorum * known - 1e-9;
      return {
        kind: 'report',
        status: failed ? 'False' : 'True',
        reason: failed ? reasons.failed : reasons.ready,
        message: quorumMessage(failed, counts),
        counts,
      };
    }
  }
}

/**
 * `service domain name resolution is unready: 2 of 3 nodes failed` (known nodes only), with
 * `; 1 node unknown` when some Ready nodes had no fresh verdict. All known nodes fine and none
 * unknown gives the plain upstream message.
 */
function quorumMessage(failed: boolean, c: NodeCounts): string {
  const head = failed ? messages.failed : messages.ready;
  if (c.failed === 0 && c.unknown === 0) return head;
  const known = c.failed + c.succeeded;
  const unknown = c.unknown === 0 ? '' : `; ${c.unknown} ${c.unknown === 1 ? 'node' : 'nodes'} unknown`;
  return `${head}: ${c.failed} of ${known} ${known === 1 ? 'node' : 'nodes'} failed${unknown}`;
}

function countVerdicts(nodes: readonly NodeView[]): NodeCounts {
  let ready = 0;
  let failed = 0;
  let succeeded = 0;
  for (const n of nodes) {
    if (!n.ready) continue;
    ready++;
    if (n.verdict === 'False') failed++;
    else if (n.verdict === 'True') succeeded++;
  }
  return { ready, failed, succeeded, unknown: ready - failed - succeeded };
}
