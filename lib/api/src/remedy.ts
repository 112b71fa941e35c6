/** remedy.karmada.io/v1alpha1 Remedy: actions to take on clusters whose conditions match. */
import { defineKind } from './kind.ts';
import type { KarmadaObject } from './meta.ts';

export type RemedyAction = 'TrafficControl';

export const remedyActions = {
  /** Take the cluster's backends out of MultiClusterIngress load balancers. */
  trafficControl: 'TrafficControl',
} as const satisfies Record<string, RemedyAction>;

export type ClusterConditionOperator = 'Equal' | 'NotEqual';

export interface ClusterConditionRequirement {
  /** e.g. `ServiceDomainNameResolutionReady`. */
  readonly conditionType: string;
  readonly operator: ClusterConditionOperator;
  /** `True`, `False` or `Unknown`. */
  readonly conditionStatus: string;
}

export interface DecisionMatch {
  readonly clusterConditionMatch?: ClusterConditionRequirement;
}

export interface RemedyClusterAffinity {
  readonly clusterNames?: readonly string[];
}

export interface RemedySpec {
  /** Unset: every cluster; set with no names: no cluster. */
  readonly clusterAffinity?: RemedyClusterAffinity;
  /** ORed; unset means the actions apply at once. */
  readonly decisionMatches?: readonly DecisionMatch[];
  readonly actions?: readonly RemedyAction[];
}

/** No status, as upstream: what a Remedy does shows in the clusters' `status.remedyActions`. */
export type Remedy = KarmadaObject<RemedySpec, never>;

export const remedyKind = defineKind<Remedy>({
  group: 'remedy.karmada.io',
  version: 'v1alpha1',
  kind: 'Remedy',
  plural: 'remedies',
  namespaced: false,
  specFields: { clusterAffinity: true, decisionMatches: true, actions: true },
  statusFields: {},
});
