/**
 * The taints ClusterTaintPolicies want on one cluster (upstream's cluster-taint-policy-controller
 * semantics), plus a hold time upstream does not have.
 *
 * Upstream semantics kept: policies apply in `creationTimestamp` order (ties broken by name here;
 * upstream leaves them unspecified); a policy whose `targetClusters` does not match is skipped
 * (its taints stay as they are); when `addOnConditions` match, each policy taint whose key and
 * effect is missing is appended with `timeAdded = now`; then, when `removeOnConditions` match, the
 * first cluster taint with each policy taint's key and effect is removed. Policy deletion removes
 * nothing.
 *
 * Extension — hold time (annotation `failover.karmada-failover.io/add-after-seconds`, which works
 * under Karmada's own CRD too, or `spec.addAfterSeconds`, which only the project's CRD accepts; the
 * annotation wins when both are set, and an unreadable one is ignored): the taints are
 * added only once the `addOnConditions` have held for that many seconds. "Held since" is the
 * latest transition among the matched conditions, as the control plane saw it happen (the member's
 * `lastTransitionTime` is on the member's clock: one running behind would cut the hold short):
 * a condition moving between two matching statuses (Ready False → Unknown for `NotIn [True]`)
 * restarts the hold. A matched condition whose transition time is unknown does not hold anything
 * back (upstream's immediate behaviour), since waiting on a time that never comes would silently
 * disable the policy. Unset or 0 means add at once, as upstream.
 */
import {
  annotations,
  wholeSeconds,
  clusterConditionTypes,
  formatTime,
  isSameTaint,
  parseTime,
  type Cluster,
  type ClusterCondition,
  type ClusterTaintPolicySpec,
  type KarmadaObject,
  type MatchCondition,
  type PolicyTaint,
  type Taint,
  type TaintIdentity,
  taintEffects,
} from '@kf/api';
import { planTaintChange, type TaintPlan } from '../cluster-taints/taint-diff.ts';
import { isClusterTargeted } from './target-clusters.ts';

/**
 * Extension of `ClusterTaintPolicy.spec` (proposed field, not in upstream's CRD; upstream ignores
 * it): seconds the `addOnConditions` must have held without interruption before the taints are
 * added. Same spirit as a toleration's `tolerationSeconds`, applied on the cluster side.
 */
export interface TaintPolicyHold {
  readonly addAfterSeconds?: number;
}

/** A ClusterTaintPolicy as stored, possibly carrying the hold-time extension. */
export type HeldClusterTaintPolicy = KarmadaObject<ClusterTaintPolicySpec & TaintPolicyHold, never>;

/** The desired taints plus, when a hold is running, when to look again. */
export interface PolicyTaintPlan extends TaintPlan {
  /** Milliseconds until a held-back taint would be added, if any. */
  readonly recheckInMs?: number;
  /** NoExecute taints due now but held back because Ready=Unknown is stale, with their policy. */
  readonly deferred: readonly { readonly policy: string; readonly taint: PolicyTaint }[];
}

export interface PolicyTaintOptions {
  /**
   * Ready=Unknown is stale for this many more milliseconds (see `judgeStaleReady`): NoExecute
   * taints of policies that match on Ready are not added until then. NoSchedule taints are.
   */
  readonly staleReadyForMs?: number;
  /**
   * Since when a condition has had its status, on the control plane's clock (see
   * cluster-health/observations.ts); by default its own `lastTransitionTime`, which the member
   * wrote on its clock.
   */
  readonly conditionSinceMs?: (condition: ClusterCondition) => number | undefined;
}

/**
 * Applies every policy to `cluster`, in order, and returns the resulting taint list. Reads the
 * cluster's taints, conditions, and the name, labels and topology fields `targetClusters` tests.
 */
export function planPolicyTaints(
  cluster: Cluster,
  policies: readonly HeldClusterTaintPolicy[],
  nowMs: number,
  options: PolicyTaintOptions = {},
): PolicyTaintPlan {
  const conditions = cluster.status?.conditions ?? [];
  let taints: readonly Taint[] = cluster.spec.taints ?? [];
  let recheckInMs: number | undefined;
  const deferred: { policy: string; taint: PolicyTaint }[] = [];
  for (const policy of orderPolicies(policies)) {
    if (!isClusterTargeted(cluster, policy.spec.targetClusters)) continue;
    const spec = { ...policy.spec, addAfterSeconds: holdSecondsOf(policy) };
    const step = applyPolicy(taints, conditions, spec, { nowMs, ...options });
    taints = step.taints;
    for (const t of step.deferred) deferred.push({ policy: policy.metadata.name ?? '', taint: t });
    if (step.waitMs !== undefined) recheckInMs = Math.min(recheckInMs ?? step.waitMs, step.waitMs);
  }
  const plan = { ...planTaintChange(cluster.spec.taints, taints), deferred };
  return recheckInMs === undefined ? plan : { ...plan, recheckInMs };
}

/** The policy's hold time in seconds: its annotation, else `spec.addAfterSeconds`, else 0. */
export function holdSecondsOf(policy: HeldClusterTaintPolicy): number {
  const fromAnnotation = wholeSeconds(policy.metadata.annotations?.[annotations.addAfterSeconds]);
  return fromAnnotation ?? Math.max(0, policy.spec.addAfterSeconds ?? 0);
}

interface PolicyStep {
  readonly taints: readonly Taint[];
  readonly deferred: readonly PolicyTaint[];
  readonly waitMs?: number;
}

/**
 * One policy's add-then-remove on the working list; `waitMs` when its add is held back (hold time
 * running, or NoExecute deferred on a stale Ready).
 */
function applyPolicy(
  current: readonly Taint[],
  conditions: readonly ClusterCondition[],
  spec: HeldClusterTaintPolicy['spec'],
  options: PolicyTaintOptions & { readonly nowMs: number },
): PolicyStep {
  const { nowMs } = options;
  let taints = current;
  let waitMs: number | undefined;
  let deferred: readonly PolicyTaint[] = [];
  const missing = spec.taints.filter((t) => !taints.some((c) => isSameTaint(c, t)));
  if (missing.length > 0 && areConditionsMatched(conditions, spec.addOnConditions)) {
    const remainingMs = holdRemainingMs(conditions, spec, nowMs, options.conditionSinceMs ?? transitionOf);
    const staleForMs = staleReadyWaitMs(spec, options);
    if (remainingMs > 0) waitMs = remainingMs;
    else {
      const due =
        staleForMs === undefined ? missing : missing.filter((t) => t.effect !== taintEffects.noExecute);
      deferred = staleForMs === undefined ? [] : missing.filter((t) => t.effect === taintEffects.noExecute);
      taints = [...taints, ...due.map((t) => stamp(t, nowMs))];
      if (deferred.length > 0) waitMs = staleForMs;
    }
  }
  if (areConditionsMatched(conditions, spec.removeOnConditions)) {
    for (const t of spec.taints) taints = removeFirst(taints, t);
  }
  return waitMs === undefined ? { taints, deferred } : { taints, deferred, waitMs };
}

/** How long this policy's NoExecute taints wait on a stale Ready; undefined when they don't. */
function staleReadyWaitMs(spec: ClusterTaintPolicySpec, options: PolicyTaintOptions): number | undefined {
  const forMs = options.staleReadyForMs;
  if (forMs === undefined || forMs <= 0) return undefined;
  const onReady = (spec.addOnConditions ?? []).some((m) => m.conditionType === clusterConditionTypes.ready);
  return onReady ? forMs : undefined;
}

/**
 * Upstream's `conditionsMatch`: an empty list never matches; every entry must hold; an entry holds
 * only when the cluster has a condition of its type whose status is (`In`) or is not (`NotIn`) in
 * `statusValues` — a missing condition fails both operators; an unknown operator fails all.
 */
export function areConditionsMatched(
  conditions: readonly ClusterCondition[],
  matches: readonly MatchCondition[] | undefined,
): boolean {
  if (matches === undefined || matches.length === 0) return false;
  return matches.every((m) => matchedCondition(conditions, m) !== undefined);
}

function matchedCondition(
  conditions: readonly ClusterCondition[],
  m: MatchCondition,
): ClusterCondition | undefined {
  const condition = conditions.find((c) => c.type === m.conditionType);
  if (condition === undefined) return undefined;
  const listed = m.statusValues.includes(condition.status);
  switch (m.operator as string) {
    case 'In':
      return listed ? condition : undefined;
    case 'NotIn':
      return listed ? undefined : condition;
    default:
      return undefined;
  }
}

/** Milliseconds the add conditions still have to hold; ≤ 0 when they have held long enough. */
function holdRemainingMs(
  conditions: readonly ClusterCondition[],
  spec: ClusterTaintPolicySpec & TaintPolicyHold,
  nowMs: number,
  sinceOf: (condition: ClusterCondition) => number | undefined,
): number {
  const holdMs = Math.max(0, spec.addAfterSeconds ?? 0) * 1000;
  if (holdMs === 0) return 0;
  const since = (spec.addOnConditions ?? [])
    .map((m) => {
      const condition = matchedCondition(conditions, m);
      return condition === undefined ? undefined : sinceOf(condition);
    })
    .filter((t): t is number => t !== undefined);
  if (since.length === 0) return 0;
  return Math.max(...since) + holdMs - nowMs;
}

function transitionOf(condition: ClusterCondition): number | undefined {
  return parseTime(condition.lastTransitionTime);
}

/** Creation time ascending, then name; a policy without a creation time sorts last. */
function orderPolicies(policies: readonly HeldClusterTaintPolicy[]): readonly HeldClusterTaintPolicy[] {
  const created = (p: HeldClusterTaintPolicy): number =>
    parseTime(p.metadata.creationTimestamp) ?? Number.POSITIVE_INFINITY;
  const name = (p: HeldClusterTaintPolicy): string => p.metadata.name ?? '';
  return [...policies].sort((a, b) => {
    const byTime = created(a) - created(b);
    if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
    return name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0;
  });
}

function stamp(t: PolicyTaint, nowMs: number): Taint {
  return {
    key: t.key,
    ...(t.value === undefined ? {} : { value: t.value }),
    effect: t.effect,
    timeAdded: formatTime(nowMs),
  };
}

function removeFirst(taints: readonly Taint[], unwanted: TaintIdentity): readonly Taint[] {
  const index = taints.findIndex((t) => isSameTaint(t, unwanted));
  return index < 0 ? taints : [...taints.slice(0, index), ...taints.slice(index + 1)];
}
