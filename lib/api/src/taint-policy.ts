/** policy.karmada.io/v1alpha1 ClusterTaintPolicy: taints clusters by their conditions. */
import { defineKind } from './kind.ts';
import type { ConditionStatus, KarmadaObject, TaintEffect } from './meta.ts';
import type { ClusterAffinity } from './policy.ts';

export type MatchConditionOperator = 'In' | 'NotIn';

/** Holds when the cluster has a condition of `conditionType` whose status is (not) in the list. */
export interface MatchCondition {
  readonly conditionType: string;
  readonly operator: MatchConditionOperator;
  readonly statusValues: readonly ConditionStatus[];
}

/** A taint to add or remove; matched on clusters by key and effect. */
export interface PolicyTaint {
  readonly key: string;
  readonly effect: TaintEffect;
  readonly value?: string;
}

export interface ClusterTaintPolicySpec {
  /** Unset: every cluster. */
  readonly targetClusters?: ClusterAffinity;
  /** ANDed; empty never adds. */
  readonly addOnConditions?: readonly MatchCondition[];
  /** ANDed; empty never removes. */
  readonly removeOnConditions?: readonly MatchCondition[];
  readonly taints: readonly PolicyTaint[];
  /**
   * Seconds the addOnConditions must hold without interruption before the taints are added, so
   * that a short blip does not taint; unset or 0 adds at once. An extension: upstream has none.
   */
  readonly addAfterSeconds?: number;
}

/** No status, as upstream: what a policy does shows in the clusters' `spec.taints`. */
export type ClusterTaintPolicy = KarmadaObject<ClusterTaintPolicySpec, never>;

export const clusterTaintPolicyKind = defineKind<ClusterTaintPolicy>({
  group: 'policy.karmada.io',
  version: 'v1alpha1',
  kind: 'ClusterTaintPolicy',
  plural: 'clustertaintpolicies',
  namespaced: false,
  specFields: {
    targetClusters: true,
    addOnConditions: true,
    removeOnConditions: true,
    taints: true,
    addAfterSeconds: true,
  },
  statusFields: {},
});
